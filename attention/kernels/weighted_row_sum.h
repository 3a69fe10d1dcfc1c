// out(k, :) = sum_t weights(t, k) * rows(t, :) for a few weight columns k and long rows: the
// product weights^T * rows with weights tall and thin. Eigen's GEMM packs `rows` first, which
// costs more than the multiply when weights has 6 columns (paper 3's sparse_select layer
// computes this once per sample); this kernel streams `rows` once and keeps every
// accumulator in registers.
#ifndef ATTNLAB_ATTENTION_KERNELS_WEIGHTED_ROW_SUM_H_
#define ATTNLAB_ATTENTION_KERNELS_WEIGHTED_ROW_SUM_H_

#include "Eigen/Core"
#include "attention/kernels/product.h"

namespace attnlab {
namespace internal {

// K weight columns, known at compile time so the 2K accumulators live in registers.
template <int K, typename W, typename R, typename O>
void WeightedRowSumFixed(const W& weights, const R& rows, O& out) {
  using T = typename R::Scalar;
  constexpr int kLanes = 64 / sizeof(T);  // 64 bytes: one AVX-512 register, or two AVX2
  using Chunk = Eigen::Array<T, kLanes, 1>;
  const Eigen::Index n = rows.rows(), width = rows.cols();
  Eigen::Index col = 0;
  for (; col + 2 * kLanes <= width; col += 2 * kLanes) {
    Chunk acc[K][2];
    for (int k = 0; k < K; ++k) acc[k][0].setZero(), acc[k][1].setZero();
    for (Eigen::Index t = 0; t < n; ++t) {
      const T* row = rows.data() + t * rows.outerStride() + col;
      const Chunk lo = Eigen::Map<const Chunk>(row), hi = Eigen::Map<const Chunk>(row + kLanes);
      for (int k = 0; k < K; ++k) {
        const T w = weights(t, k);
        acc[k][0] += w * lo;
        acc[k][1] += w * hi;
      }
    }
    for (int k = 0; k < K; ++k) {
      Eigen::Map<Chunk>(&out(k, col)) = acc[k][0];
      Eigen::Map<Chunk>(&out(k, col + kLanes)) = acc[k][1];
    }
  }
  // The last < 2 chunks of columns, as above one column at a time (an Eigen product here would
  // be compiled for every K in every file that calls this).
  for (; col < width; ++col) {
    T acc[K] = {};
    for (Eigen::Index t = 0; t < n; ++t) {
      const T x = rows(t, col);
      for (int k = 0; k < K; ++k) acc[k] += weights(t, k) * x;
    }
    for (int k = 0; k < K; ++k) out(k, col) = acc[k];
  }
}

}  // namespace internal

// `rows` and `out` must be row-major with unit inner stride (e.g. blocks of a row-major
// Matrix); out is weights.cols() x rows.cols().
template <typename W, typename R, typename O>
void WeightedRowSum(const W& weights, const R& rows, O&& out) {
  switch (weights.cols()) {
    case 1: return internal::WeightedRowSumFixed<1>(weights, rows, out);
    case 2: return internal::WeightedRowSumFixed<2>(weights, rows, out);
    case 3: return internal::WeightedRowSumFixed<3>(weights, rows, out);
    case 4: return internal::WeightedRowSumFixed<4>(weights, rows, out);
    case 5: return internal::WeightedRowSumFixed<5>(weights, rows, out);
    case 6: return internal::WeightedRowSumFixed<6>(weights, rows, out);
    case 7: return internal::WeightedRowSumFixed<7>(weights, rows, out);
    case 8: return internal::WeightedRowSumFixed<8>(weights, rows, out);
    default:
      Product(weights.transpose(), rows, out, /*accumulate=*/false);
  }
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_WEIGHTED_ROW_SUM_H_
