// Softmax attention scores over short rows, computed in registers: each register tile of the
// product Q K^T holds whole rows of scores (up to 64 floats or 32 doubles: kFusedPackets),
// so their softmax, or its backward, runs on the tile before anything is stored. A ViT head
// (50 tokens) takes two passes less over its 50 x 50 scores this way, and the separate softmax
// pass stalled on reading back the scores' last, partial packet (the A/B:
// experiments/BENCHMARKS.md).
//
// Compiled -O3 in fused_softmax.cc, like tiled_product.cc.
#ifndef ATTNLAB_ATTENTION_KERNELS_FUSED_SOFTMAX_H_
#define ATTNLAB_ATTENTION_KERNELS_FUSED_SOFTMAX_H_

#include <cstdint>

#include "attention/kernels/packet.h"
#include "attention/kernels/product.h"
#include "attention/kernels/softmax.h"

namespace attnlab {

// The most packets in a row of keys the kernels below take: 4 with AVX-512, 8 with AVX2 (whose
// packets are half as wide, and whose tiles of rows that long are one row high, as 16 registers
// allow), so 64 floats or 32 doubles on either.
#ifdef EIGEN_VECTORIZE_AVX512
constexpr int kFusedPackets = 4;
#else
constexpr int kFusedPackets = 8;
#endif
// The longest rows of keys the kernels below take.
template <typename T>
constexpr int kMaxFusedKeys = (kFusedPackets * kPacketSize<T>);

// probs (rows x keys, row stride ldp) = softmax(scale q k^T) row by row, where q is rows x depth
// (row stride ldq) and k is keys x depth (row stride ldk); 1 <= keys <= kMaxFusedKeys<T>.
// Instantiated for float and double.
template <typename T>
void FusedSoftmaxScores(int rows, int keys, int depth, T scale, const T* q, int64_t ldq, const T* k,
                        int64_t ldk, T* probs, int64_t ldp);

// Backward of the above up to the scores: given probs (rows x keys) = softmax(scores) and
// dL/dprobs = g v^T (g rows x depth, v keys x depth), writes dL/dscores (rows x keys, row stride
// lds; may be probs' memory only if lds == ldp and it is not needed after). As
// SoftmaxRowsBackward (softmax.h), relative to a dominant token m (a largest probability; among
// tied ones the largest dL/dprobs): p .* ((g - g_m) - sum_k p_k (g_k - g_m)), without the
// cancellation of the textbook form once the softmax saturates.
template <typename T>
void FusedSoftmaxScoresBackward(int rows, int keys, int depth, const T* g, int64_t ldg, const T* v,
                                int64_t ldv, const T* probs, int64_t ldp, T* grad_scores,
                                int64_t lds);

// For Eigen operands: probs = softmax(scale q k^T), fused where the rows are short enough and
// every operand's rows are contiguous, else Product then SoftmaxRows.
template <typename Q, typename K, typename A>
void SoftmaxOfScores(const Q& q, const K& k, typename A::Scalar scale, A& probs) {
  using T = typename A::Scalar;
  using softmax_internal::ContiguousRows;
  if constexpr (ContiguousRows<Q>() && ContiguousRows<K>() && ContiguousRows<A>()) {
    if (k.rows() >= 1 && k.rows() <= kMaxFusedKeys<T>) {
      FusedSoftmaxScores<T>(int(q.rows()), int(k.rows()), int(q.cols()), scale, q.data(),
                            q.outerStride(), k.data(), k.outerStride(), probs.data(),
                            probs.outerStride());
      return;
    }
  }
  Product(q, k.transpose(), probs, /*accumulate=*/false, scale);
  SoftmaxRows(probs, probs);
}

// For Eigen operands: grad_scores = dL/dscores for probs = softmax(scores) given
// dL/dprobs = g v^T; fused where it can be, as SoftmaxOfScores.
template <typename P, typename G, typename V, typename S>
void SoftmaxOfScoresBackward(const P& probs, const G& g, const V& v, S& grad_scores) {
  using T = typename S::Scalar;
  using softmax_internal::ContiguousRows;
  if constexpr (ContiguousRows<P>() && ContiguousRows<G>() && ContiguousRows<V>() &&
                ContiguousRows<S>()) {
    if (v.rows() >= 1 && v.rows() <= kMaxFusedKeys<T>) {
      FusedSoftmaxScoresBackward<T>(int(g.rows()), int(v.rows()), int(g.cols()), g.data(),
                                    g.outerStride(), v.data(), v.outerStride(), probs.data(),
                                    probs.outerStride(), grad_scores.data(),
                                    grad_scores.outerStride());
      return;
    }
  }
  Product(g, v.transpose(), grad_scores, /*accumulate=*/false);
  SoftmaxRowsBackward(probs, grad_scores, grad_scores);
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_FUSED_SOFTMAX_H_
