// rows(i, :) *= factor[i], and optionally the scaled rows' column sums, in one pass: the LM
// head turns a vocabulary block's exponentials into dL/dlogits (and their sum over the tokens
// into dL/db's block) while the block is in cache.
#ifndef ATTNLAB_ATTENTION_KERNELS_SCALE_ROWS_H_
#define ATTNLAB_ATTENTION_KERNELS_SCALE_ROWS_H_

#include <algorithm>
#include <cstdint>

#include "Eigen/Core"
#include "attention/kernels/packet.h"

namespace attnlab {
namespace scale_rows_internal {

// kPackets whole packets of columns per row, their sums in registers.
template <typename T, int kPackets>
EIGEN_ALWAYS_INLINE void ScaleStrip(T* rows, int n, int64_t ld, const T* factor, T* sums) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  P acc[kPackets];
  for (int p = 0; p < kPackets; ++p) acc[p] = pset1<P>(T(0));
  for (int i = 0; i < n; ++i) {
    T* row = rows + i * ld;
    const P f = pset1<P>(factor[i]);
    for (int p = 0; p < kPackets; ++p) {
      const P y = pmul(ploadu<P>(row + p * L), f);
      pstoreu(row + p * L, y);
      acc[p] = padd(acc[p], y);
    }
  }
  if (sums == nullptr) return;
  for (int p = 0; p < kPackets; ++p) pstoreu(sums + p * L, padd(ploadu<P>(sums + p * L), acc[p]));
}

}  // namespace scale_rows_internal

// rows(i, :) *= factor[i] for i < n (width entries each, row stride ld); where column_sums is
// not null, column_sums[j] += sum_i rows(i, j) (after scaling, summed in row order).
template <typename T>
void ScaleRowsAndSumColumns(T* rows, int n, int width, int64_t ld, const T* factor,
                            T* column_sums) {
  using namespace scale_rows_internal;
  constexpr int L = kPacketSize<T>, kStrip = 8;
  int col = 0;
  for (; col + kStrip * L <= width; col += kStrip * L) {
    ScaleStrip<T, kStrip>(rows + col, n, ld, factor,
                          column_sums == nullptr ? nullptr : column_sums + col);
  }
  for (; col + L <= width; col += L) {
    ScaleStrip<T, 1>(rows + col, n, ld, factor,
                     column_sums == nullptr ? nullptr : column_sums + col);
  }
  for (; col < width; ++col) {  // past the last whole packet
    T sum = 0;
    for (int i = 0; i < n; ++i) sum += rows[i * ld + col] *= factor[i];
    if (column_sums != nullptr) column_sums[col] += sum;
  }
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_SCALE_ROWS_H_
