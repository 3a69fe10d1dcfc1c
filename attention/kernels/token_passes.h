// The two passes over one sample's tokens (a rows x dim row-major block) that paper 1's
// attention makes, each prefetching half of the next sample's tokens.
//
// Why: that sample loop is memory-bound. A step streams the whole token tensor (33 MB at
// n = 1024, T = d = 64), and one core alone gets little DRAM bandwidth; requesting the next
// sample's lines while this one computes overlaps the loads with the arithmetic, which the
// hardware prefetcher (it stops at every 4 KB page) does not. The arithmetic is in register
// tiles: Eigen's GEMV on a 64 x 64 block waits on its FMAs' latency chains.
#ifndef ATTNLAB_ATTENTION_KERNELS_TOKEN_PASSES_H_
#define ATTNLAB_ATTENTION_KERNELS_TOKEN_PASSES_H_

#include <algorithm>
#include <cstdint>

#include "Eigen/Core"
#include "attention/kernels/packet.h"

namespace attnlab {
namespace token_passes_internal {

// Spreads the prefetch of half (`half` 0 or 1) of a block over `steps` calls of Step.
class Prefetcher {
 public:
  Prefetcher(const void* block, int64_t bytes, int steps, int half)
      : block_(static_cast<const char*>(block)) {
    const int64_t lines = (bytes + 63) / 64, half_lines = (lines + 1) / 2;
    per_step_ = (half_lines + steps - 1) / steps;
    first_ = half * half_lines;
    end_ = half == 0 ? half_lines : lines;
  }
  void Step(int step) const {
    if (block_ == nullptr) return;
    for (int64_t l = first_ + step * per_step_, end = std::min(l + per_step_, end_); l < end; ++l) {
      __builtin_prefetch(block_ + l * 64, /*read*/ 0, /*to L2*/ 2);
    }
  }

 private:
  const char* block_;
  int64_t per_step_ = 0, first_ = 0, end_ = 0;
};

// dots(c, r) for kRows token rows from `x` and kVecs vectors from `v`: kRows x kVecs
// independent accumulators, so that the FMAs do not wait on each other.
template <typename T, int kRows, int kVecs>
EIGEN_ALWAYS_INLINE void DotTile(const T* x, const T* v, int dim, T* dots, int rows) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  P acc[kRows][kVecs];
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kVecs; ++c) acc[r][c] = pset1<P>(T(0));
  }
  int k = 0;
  for (; k + kPacketSize<T> <= dim; k += kPacketSize<T>) {
    P vp[kVecs];
    for (int c = 0; c < kVecs; ++c) vp[c] = ploadu<P>(v + int64_t(c) * dim + k);
    for (int r = 0; r < kRows; ++r) {
      const P xp = ploadu<P>(x + int64_t(r) * dim + k);
      for (int c = 0; c < kVecs; ++c) acc[r][c] = pmadd(xp, vp[c], acc[r][c]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kVecs; ++c) {
      T sum = predux(acc[r][c]);
      for (int i = k; i < dim; ++i) sum += x[int64_t(r) * dim + i] * v[int64_t(c) * dim + i];
      dots[int64_t(c) * rows + r] = sum;
    }
  }
}

// sums(c, k .. k + kPackets lanes) for kWeights weight rows: kWeights x kPackets accumulators.
template <typename T, int kWeights, int kPackets>
EIGEN_ALWAYS_INLINE void SumTile(const T* tokens, int rows, int dim, const T* weights, int k,
                                 T* sums) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  P acc[kWeights][kPackets];
  for (int c = 0; c < kWeights; ++c) {
    for (int p = 0; p < kPackets; ++p) acc[c][p] = pset1<P>(T(0));
  }
  for (int t = 0; t < rows; ++t) {
    P xp[kPackets];
    for (int p = 0; p < kPackets; ++p)
      xp[p] = ploadu<P>(tokens + int64_t(t) * dim + k + p * kPacketSize<T>);
    for (int c = 0; c < kWeights; ++c) {
      const P w = pset1<P>(weights[int64_t(c) * rows + t]);
      for (int p = 0; p < kPackets; ++p) acc[c][p] = pmadd(w, xp[p], acc[c][p]);
    }
  }
  for (int c = 0; c < kWeights; ++c) {
    for (int p = 0; p < kPackets; ++p)
      pstoreu(sums + int64_t(c) * dim + k + p * kPacketSize<T>, acc[c][p]);
  }
}

}  // namespace token_passes_internal

// dots(c, t) = <tokens row t, vectors row c> for t < rows, c < count; all row-major (each
// vector's dots are a contiguous row). next: the next sample's tokens (as many) to prefetch,
// or nullptr.
template <typename T>
void TokenDots(const T* tokens, int rows, int dim, const T* vectors, int count, T* dots,
               const T* next) {
  using namespace token_passes_internal;
  const Prefetcher prefetch(next, int64_t(rows) * dim * sizeof(T), (rows + 3) / 4, 0);
  for (int t = 0; t < rows; t += 4) {
    prefetch.Step(t / 4);
    const T* x = tokens + int64_t(t) * dim;
    if (t + 4 <= rows) {
      int c = 0;
      for (; c + 1 < count; c += 2) {
        DotTile<T, 4, 2>(x, vectors + int64_t(c) * dim, dim, dots + int64_t(c) * rows + t, rows);
      }
      if (c < count) {
        DotTile<T, 4, 1>(x, vectors + int64_t(c) * dim, dim, dots + int64_t(c) * rows + t, rows);
      }
      continue;
    }
    for (int r = t; r < rows; ++r) {  // the last rows
      for (int c = 0; c < count; ++c) {
        DotTile<T, 1, 1>(tokens + int64_t(r) * dim, vectors + int64_t(c) * dim, dim,
                         dots + int64_t(c) * rows + r, rows);
      }
    }
  }
}

// sums(c, :) = sum_t weights(c, t) tokens row t, for c < count; all row-major.
// next: as in TokenDots (the other half of it).
template <typename T>
void WeightedTokenSums(const T* tokens, int rows, int dim, const T* weights, int count, T* sums,
                       const T* next) {
  using namespace token_passes_internal;
  constexpr int kBlock = 4 * kPacketSize<T>;
  const int steps = (dim + kBlock - 1) / kBlock * ((count + 1) / 2);
  const Prefetcher prefetch(next, int64_t(rows) * dim * sizeof(T), steps, 1);
  int step = 0;
  for (int c = 0; c < count; c += 2) {
    const T* w = weights + int64_t(c) * rows;
    T* sum = sums + int64_t(c) * dim;
    const bool pair = c + 1 < count;
    int k = 0;
    for (; k + kBlock <= dim; k += kBlock) {
      prefetch.Step(step++);
      if (pair) {
        SumTile<T, 2, 4>(tokens, rows, dim, w, k, sum);
      } else {
        SumTile<T, 1, 4>(tokens, rows, dim, w, k, sum);
      }
    }
    if (k < dim) prefetch.Step(step++);
    for (; k + kPacketSize<T> <= dim; k += kPacketSize<T>) {
      if (pair) {
        SumTile<T, 2, 1>(tokens, rows, dim, w, k, sum);
      } else {
        SumTile<T, 1, 1>(tokens, rows, dim, w, k, sum);
      }
    }
    for (int i = c; i < std::min(c + 2, count); ++i) {  // the columns past the last packet
      for (int j = k; j < dim; ++j) {
        T s = 0;
        for (int t = 0; t < rows; ++t)
          s += weights[int64_t(i) * rows + t] * tokens[int64_t(t) * dim + j];
        sums[int64_t(i) * dim + j] = s;
      }
    }
  }
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_TOKEN_PASSES_H_
