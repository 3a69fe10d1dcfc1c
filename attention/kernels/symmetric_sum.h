// The symmetric part of a square block, for symmetric attention's backward: with the queries
// equal to the keys, dL/dK = scale (G + G^T) K takes one product where G K + G^T K took two.
#ifndef ATTNLAB_ATTENTION_KERNELS_SYMMETRIC_SUM_H_
#define ATTNLAB_ATTENTION_KERNELS_SYMMETRIC_SUM_H_

#include <cstdint>

namespace attnlab {

// g = scale (g + g^T) in place for the n x n block at g (row stride ldg).
template <typename T>
void ScaledSymmetricSum(int n, T scale, T* g, int64_t ldg);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_SYMMETRIC_SUM_H_
