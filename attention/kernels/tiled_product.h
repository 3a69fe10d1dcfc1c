// C (+)= alpha op(A) B with B and C row-major, in SIMD packets along C's rows (16 floats or 8
// doubles with AVX-512): our layers' products in double, and in float those LibraryProduct
// leaves (an accumulating scaled product, no libxsmm kernel, ProductBackend::kTiled). Eigen's
// GEMM packs both operands and clears C before every product, which for these shapes costs
// about as long as the multiply (experiments/BENCHMARKS.md, "Kernels of our own").
//
// op(A) is any strided view, A(i, k) = a[i * a_row + k * a_col], so A^T costs nothing. Each
// register tile holds up to 24 packets of C and broadcasts A; long products are cut into
// chunks of depth so that B's rows stay in L1. Compiled -O3 in tiled_product.cc (GCC 12 at -O2
// leaves the tiles on the stack).
#ifndef ATTNLAB_ATTENTION_KERNELS_TILED_PRODUCT_H_
#define ATTNLAB_ATTENTION_KERNELS_TILED_PRODUCT_H_

#include <cstdint>

#include "attention/kernels/packet.h"

namespace attnlab {

// `cols` rounded up to a whole number of packets.
template <typename T>
int64_t PaddedColumns(int64_t cols) {
  return (cols + kPacketSize<T> - 1) / kPacketSize<T> * kPacketSize<T>;
}

// C (rows x cols) = alpha op(A) B, or += with accumulate; op(A) is rows x depth, B depth x cols.
// In the same pass over C: with a bias (cols entries), bias is added to every row (a layer's
// affine map); with an addend D (rows x cols, row stride ld_addend; not with accumulate), C =
// D + alpha op(A) B (a residual connection's sum). B's rows must be readable up to
// PaddedColumns(cols) (what lies past cols is multiplied into lanes that are never stored).
// Instantiated for float and double.
template <typename T>
void TiledProduct(int rows, int cols, int depth, T alpha, const T* a, int64_t a_row,
                  int64_t a_col, const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate,
                  const T* bias = nullptr, const T* addend = nullptr, int64_t ld_addend = 0);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_TILED_PRODUCT_H_
