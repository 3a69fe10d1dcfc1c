// out (+)= alpha lhs rhs on the calling thread, for any Eigen operands. Where they are views of
// memory with unit stride (op(lhs) and a row-major rhs are read in place, a small transposed
// rhs is copied row-major): in float, a GEMM library where it is the faster (LibraryProduct),
// else TiledProduct; Eigen's GEMM for everything else.
#ifndef ATTNLAB_ATTENTION_KERNELS_PRODUCT_H_
#define ATTNLAB_ATTENTION_KERNELS_PRODUCT_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "attention/kernels/packet.h"
#include "attention/kernels/tiled_product.h"
#include "attention/tensor.h"

namespace attnlab {
namespace product_internal {

// Whether X is a view of memory with unit stride along its rows (row-major) or its columns.
template <typename X>
constexpr bool UnitStride() {
  using Traits = Eigen::internal::traits<std::decay_t<X>>;
  return (int(Traits::Flags) & Eigen::DirectAccessBit) && Traits::InnerStrideAtCompileTime == 1;
}
template <typename X>
constexpr bool RowMajorView() {
  return UnitStride<X>() && std::decay_t<X>::IsRowMajor;
}

// A column-major rhs (a transposed weight matrix or head block) up to this size is copied
// row-major: 64 x 64 is 4,096 moves against a ViT block's 256 x 64 x 64 multiply-adds. Larger
// ones (the LM's transposed vocabulary matrix) stay with Eigen.
constexpr int64_t kMaxCopiedRhs = 1 << 16;

// A buffer per thread and per use (kSlot), grown to the largest copy and then reused: no
// allocation from step to step, whatever the mix of shapes. in_use is for a user that waits
// while others read it: a thread waiting for TBB tasks may run another trial's task meanwhile.
template <typename T, int kSlot>
struct ThreadBuffer {
  static ThreadBuffer& Get() {
    thread_local ThreadBuffer buffer;
    return buffer;
  }
  std::vector<T> values;
  bool in_use = false;
};

// rhs copied row-major into `buffer`, its rows padded with zeros to whole packets as
// TiledProduct reads them.
template <typename R, typename T = typename R::Scalar>
Eigen::Map<Matrix<T>> PaddedCopy(const R& rhs, std::vector<T>& buffer) {
  const int64_t padded = PaddedColumns<T>(rhs.cols());
  if (buffer.size() < size_t(rhs.rows() * padded)) buffer.resize(rhs.rows() * padded);
  Eigen::Map<Matrix<T>> copy(buffer.data(), rhs.rows(), padded);
  copy.leftCols(rhs.cols()) = rhs;
  copy.rightCols(padded - rhs.cols()).setZero();
  return copy;
}

// Whether Product copies rhs (when it has at most kMaxCopiedRhs entries).
template <typename R>
constexpr bool CopiedRhs() {
  return UnitStride<R>() && !RowMajorView<R>();
}

// Product's operands do not fit (a bug in its caller: unlike an Eigen assignment, Product does
// not resize out): says so on stderr and aborts.
[[noreturn]] void ShapeMismatch(int64_t lhs_rows, int64_t lhs_cols, int64_t rhs_rows,
                                int64_t rhs_cols, int64_t out_rows, int64_t out_cols);

template <typename L, typename R, typename O, typename T>
void EigenProduct(const L& lhs, const R& rhs, O& out, bool accumulate, T alpha, const T* bias,
                  const T* addend, int64_t ld_addend) {
  if (addend != nullptr) {
    out = Eigen::Map<const Matrix<T>, 0, Eigen::OuterStride<>>(addend, out.rows(), out.cols(),
                                                               Eigen::OuterStride<>(ld_addend));
  } else if (!accumulate) {
    out.setZero();
  }
  out.noalias() += alpha * lhs * rhs;
  if (bias != nullptr) {
    out.rowwise() += Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(bias, out.cols());
  }
}

}  // namespace product_internal

// Product of operands in memory with unit stride: op(A) (rows x depth) row-major or
// column-major with outer stride lda, likewise B (depth x cols), C row-major. Compiled once
// (product.cc), for float and double, so that Eigen's GEMM is not instantiated again in every
// file that multiplies.
template <typename T>
void StridedProduct(int rows, int cols, int depth, T alpha, const T* a, int64_t lda,
                    bool a_row_major, const T* b, int64_t ldb, bool b_row_major, T* c, int64_t ldc,
                    bool accumulate, const T* bias, const T* addend, int64_t ld_addend);
extern template void StridedProduct<float>(int, int, int, float, const float*, int64_t, bool,
                                           const float*, int64_t, bool, float*, int64_t, bool,
                                           const float*, const float*, int64_t);
extern template void StridedProduct<double>(int, int, int, double, const double*, int64_t, bool,
                                            const double*, int64_t, bool, double*, int64_t, bool,
                                            const double*, const double*, int64_t);

// With a bias (out.cols() entries), also adds it to every row of out; with an addend (a matrix
// of out's shape, row-major with row stride ld_addend; not with accumulate), out = addend +
// alpha lhs rhs.
template <typename L, typename R, typename O>
void Product(const L& lhs, const R& rhs, O&& out, bool accumulate,
             typename std::decay_t<O>::Scalar alpha = 1,
             const typename std::decay_t<O>::Scalar* bias = nullptr,
             const typename std::decay_t<O>::Scalar* addend = nullptr, int64_t ld_addend = 0) {
  using namespace product_internal;
  using T = typename std::decay_t<O>::Scalar;
  if (lhs.cols() != rhs.rows() || out.rows() != lhs.rows() || out.cols() != rhs.cols()) {
    ShapeMismatch(lhs.rows(), lhs.cols(), rhs.rows(), rhs.cols(), out.rows(), out.cols());
  }
  if constexpr (UnitStride<L>() && UnitStride<R>() && RowMajorView<O>()) {
    StridedProduct<T>(int(out.rows()), int(out.cols()), int(lhs.cols()), alpha, lhs.data(),
                      lhs.outerStride(), std::decay_t<L>::IsRowMajor, rhs.data(), rhs.outerStride(),
                      std::decay_t<R>::IsRowMajor, out.data(), out.outerStride(), accumulate, bias,
                      addend, ld_addend);
  } else {
    EigenProduct(lhs, rhs, out, accumulate, alpha, bias, addend, ld_addend);
  }
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PRODUCT_H_
