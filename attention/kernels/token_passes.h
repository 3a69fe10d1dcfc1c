// The two passes over one sample's tokens (a rows x dim row-major block) that paper 1's
// attention makes, each prefetching part of the next sample's tokens.
//
// Why: that sample loop is memory-bound. A step streams the whole token tensor (33 MB at
// n = 1024, T = d = 64) and one core alone gets little DRAM bandwidth; requesting the next
// sample's lines while this one computes overlaps the loads with the arithmetic. The requests
// go out a few at a time from the passes' inner loops: in bursts they stall the arithmetic
// behind them. The arithmetic is in register tiles: Eigen's GEMV on a 64 x 64 block waits on
// its FMAs' latency chains, and the dots of 8 rows are reduced together into one packet.
#ifndef ATTNLAB_ATTENTION_KERNELS_TOKEN_PASSES_H_
#define ATTNLAB_ATTENTION_KERNELS_TOKEN_PASSES_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "attention/kernels/packet.h"

namespace attnlab {
namespace token_passes_internal {

// Prefetches the lines of [begin, end) in order, `per_step` lines at each Step: spread over a
// pass's inner loop, so that the requests go out evenly while it computes.
class Prefetcher {
 public:
  Prefetcher(const void* begin, const void* end, int steps)
      : line_(static_cast<const char*>(begin)), end_(static_cast<const char*>(end)) {
    const int64_t lines = begin == nullptr ? 0 : (end_ - line_ + 63) / 64;
    per_step_ = steps > 0 ? int((lines + steps - 1) / steps) : 0;
  }
  EIGEN_ALWAYS_INLINE void Step() {
    for (int i = 0; i < per_step_ && line_ < end_; ++i, line_ += 64) {
      __builtin_prefetch(line_, /*read*/ 0, /*to L2*/ 2);
    }
  }

 private:
  const char* line_;
  const char* end_;
  int per_step_;
};

// sums(c, k .. k + kPackets lanes) for kWeights weight rows: kWeights x kPackets accumulators.
template <typename T, int kWeights, int kPackets>
EIGEN_ALWAYS_INLINE void SumTile(const T* tokens, int rows, int dim, const T* weights, int k,
                                 T* sums, Prefetcher& prefetch) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  P acc[kWeights][kPackets];
  for (int c = 0; c < kWeights; ++c) {
    for (int p = 0; p < kPackets; ++p) acc[c][p] = pset1<P>(T(0));
  }
  for (int t = 0; t < rows; ++t) {
    prefetch.Step();
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

// Sums of kRows packets, written as kRows consecutive values.
template <typename T, int kRows>
EIGEN_ALWAYS_INLINE void ReduceRows(const Packet<T>* acc, T* out) {
#ifdef EIGEN_VECTORIZE_AVX512
  if constexpr (std::is_same_v<T, double> && kRows == 8 && kPacketSize<T> == 8) {
    // A transposing tree: 14 shuffles and 7 adds for 8 rows, one store.
    __m512d s[4];
    for (int i = 0; i < 4; ++i) {
      s[i] = _mm512_add_pd(_mm512_unpacklo_pd(acc[2 * i], acc[2 * i + 1]),
                           _mm512_unpackhi_pd(acc[2 * i], acc[2 * i + 1]));
    }
    const __m512d u0 = _mm512_add_pd(_mm512_shuffle_f64x2(s[0], s[1], 0x88),
                                     _mm512_shuffle_f64x2(s[0], s[1], 0xDD));
    const __m512d u1 = _mm512_add_pd(_mm512_shuffle_f64x2(s[2], s[3], 0x88),
                                     _mm512_shuffle_f64x2(s[2], s[3], 0xDD));
    _mm512_storeu_pd(out, _mm512_add_pd(_mm512_shuffle_f64x2(u0, u1, 0x88),
                                        _mm512_shuffle_f64x2(u0, u1, 0xDD)));
    return;
  }
#endif
  for (int r = 0; r < kRows; ++r) out[r] = Eigen::internal::predux(acc[r]);
}

// dots(c, r) for kRows token rows from `x` and kVecs vectors from `v` over the first `packed`
// entries (a multiple of the packet): kRows x kVecs independent accumulators, so that the
// FMAs do not wait on each other. Then the rest of each row in scalars.
template <typename T, int kRows, int kVecs>
EIGEN_ALWAYS_INLINE void DotTile(const T* x, const T* v, int dim, int packed, T* dots, int rows,
                                 Prefetcher& prefetch) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  P acc[kVecs][kRows];
  for (int c = 0; c < kVecs; ++c) {
    for (int r = 0; r < kRows; ++r) acc[c][r] = pset1<P>(T(0));
  }
  for (int k = 0; k < packed; k += kPacketSize<T>) {
    prefetch.Step();
    P vp[kVecs];
    for (int c = 0; c < kVecs; ++c) vp[c] = ploadu<P>(v + int64_t(c) * dim + k);
    for (int r = 0; r < kRows; ++r) {
      const P xp = ploadu<P>(x + int64_t(r) * dim + k);
      for (int c = 0; c < kVecs; ++c) acc[c][r] = pmadd(xp, vp[c], acc[c][r]);
    }
  }
  for (int c = 0; c < kVecs; ++c) {
    T* out = dots + int64_t(c) * rows;
    ReduceRows<T, kRows>(acc[c], out);
    for (int r = 0; r < kRows; ++r) {
      for (int i = packed; i < dim; ++i) {
        out[r] += x[int64_t(r) * dim + i] * v[int64_t(c) * dim + i];
      }
    }
  }
}

}  // namespace token_passes_internal

// Memory the caller wants in L2 soon (the next sample's tokens, or part of them), prefetched
// evenly over a pass's inner loop; {} for none.
struct PrefetchSpan {
  const void* begin = nullptr;
  const void* end = nullptr;
};

// The next sample's tokens, prefetched into L2 while this sample computes: the first half over
// the first pass, a few lines at each of the caller's steps between the passes (the weights'
// arithmetic there would otherwise leave the memory idle), the rest over the second pass.
class NextSamplePrefetch {
 public:
  static constexpr int kLinesPerStep = 8;

  // next: nullptr for none. steps_between: how many times the caller calls BetweenPasses().
  NextSamplePrefetch(const void* next, int64_t bytes, int steps_between) {
    if (next == nullptr) return;
    const char* begin = static_cast<const char*>(next);
    const char* end = begin + bytes;
    const char* half = begin + bytes / 2 / 64 * 64;
    first_ = {begin, half};
    line_ = half;
    between_end_ = std::min(end, half + int64_t(steps_between) * kLinesPerStep * 64);
    second_ = {between_end_, end};
  }
  PrefetchSpan first_pass() const { return first_; }
  PrefetchSpan second_pass() const { return second_; }
  void BetweenPasses() {
    for (int i = 0; i < kLinesPerStep && line_ < between_end_; ++i, line_ += 64) {
      __builtin_prefetch(line_, /*read*/ 0, /*to L2*/ 2);
    }
  }

 private:
  PrefetchSpan first_, second_;
  const char* line_ = nullptr;
  const char* between_end_ = nullptr;
};

// dots(c, t) = <tokens row t, vectors row c> for t < rows, c < count; all row-major (each
// vector's dots are a contiguous row).
template <typename T>
void TokenDots(const T* tokens, int rows, int dim, const T* vectors, int count, T* dots,
               PrefetchSpan prefetch_span = {}) {
  using namespace token_passes_internal;
  constexpr int kRows = 8;
  const int packed = dim / kPacketSize<T> * kPacketSize<T>;
  const int tiles = rows / kRows + rows % kRows;
  Prefetcher prefetch(prefetch_span.begin, prefetch_span.end,
                      tiles * ((count + 1) / 2) * (packed / kPacketSize<T>));
  for (int c = 0; c < count; c += 2) {
    const T* v = vectors + int64_t(c) * dim;
    T* out = dots + int64_t(c) * rows;
    int t = 0;
    for (; t + kRows <= rows; t += kRows) {
      const T* x = tokens + int64_t(t) * dim;
      if (c + 1 < count) {
        DotTile<T, kRows, 2>(x, v, dim, packed, out + t, rows, prefetch);
      } else {
        DotTile<T, kRows, 1>(x, v, dim, packed, out + t, rows, prefetch);
      }
    }
    for (; t < rows; ++t) {  // the last rows
      const T* x = tokens + int64_t(t) * dim;
      if (c + 1 < count) {
        DotTile<T, 1, 2>(x, v, dim, packed, out + t, rows, prefetch);
      } else {
        DotTile<T, 1, 1>(x, v, dim, packed, out + t, rows, prefetch);
      }
    }
  }
}

// sums(c, :) = sum_t weights(c, t) tokens row t, for c < count; all row-major.
template <typename T>
void WeightedTokenSums(const T* tokens, int rows, int dim, const T* weights, int count, T* sums,
                       PrefetchSpan prefetch_span = {}) {
  using namespace token_passes_internal;
  constexpr int kBlock = 4 * kPacketSize<T>;
  const int blocks = dim / kBlock + dim % kBlock / kPacketSize<T>;
  Prefetcher prefetch(prefetch_span.begin, prefetch_span.end, blocks * ((count + 1) / 2) * rows);
  for (int c = 0; c < count; c += 2) {
    const T* w = weights + int64_t(c) * rows;
    T* sum = sums + int64_t(c) * dim;
    const bool pair = c + 1 < count;
    int k = 0;
    for (; k + kBlock <= dim; k += kBlock) {
      if (pair) {
        SumTile<T, 2, 4>(tokens, rows, dim, w, k, sum, prefetch);
      } else {
        SumTile<T, 1, 4>(tokens, rows, dim, w, k, sum, prefetch);
      }
    }
    for (; k + kPacketSize<T> <= dim; k += kPacketSize<T>) {
      if (pair) {
        SumTile<T, 2, 1>(tokens, rows, dim, w, k, sum, prefetch);
      } else {
        SumTile<T, 1, 1>(tokens, rows, dim, w, k, sum, prefetch);
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
