#include "attention/kernels/gaussian.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace attnlab {
namespace {

// The 16 generators run in vectors of kLanes lanes, one register each: 16 with AVX-512, 8 with
// AVX (2 per step), 4 otherwise. The draws are the same at every width. (Vectors wider than a
// register are split by GCC into scalar code for the comparisons, and change the ABI of the
// functions that take them.)
#if defined(__AVX512F__)
constexpr int kLanes = 16;
#elif defined(__AVX__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
constexpr int kGenerators = 16;
typedef uint32_t U32s __attribute__((vector_size(4 * kLanes)));
typedef int32_t I32s __attribute__((vector_size(4 * kLanes)));
typedef float F32s __attribute__((vector_size(4 * kLanes)));

// One step of kLanes xoshiro128+ generators.
inline U32s NextBits(U32s& s0, U32s& s1, U32s& s2, U32s& s3) {
  const U32s result = s0 + s3;
  const U32s t = s1 << 9;
  s2 ^= s0;
  s3 ^= s1;
  s1 ^= s2;
  s0 ^= s3;
  s2 ^= t;
  s3 = (s3 << 11) | (s3 >> 21);
  return result;
}

#define ATTNLAB_INLINE __attribute__((always_inline)) inline

// The kernels below take N vectors and run each stage over all of them before the next, so that
// N independent dependency chains interleave in the instruction stream: one vector's chain of
// multiply-adds alone waits on their latency, and a core with a small reorder window (AVX2 on a
// first-generation EPYC splits each 256-bit operation in two) does not find the next vector's.

// y[k] = y[k] * x[k] + c: one Horner step of N polynomials.
template <int N>
ATTNLAB_INLINE void HornerStep(F32s (&y)[N], const F32s (&x)[N], float c) {
#pragma GCC unroll 16
  for (int k = 0; k < N; ++k) y[k] = y[k] * x[k] + c;
}

// out = -log(x) for normal positive floats (Cephes logf, |error| < 1e-6).
template <int N>
ATTNLAB_INLINE void NegativeLogs(const F32s (&x)[N], F32s (&out)[N]) {
  F32s f[N], e[N], y[N];
#pragma GCC unroll 16
  for (int k = 0; k < N; ++k) {
    // (Vector casts between same-sized vector types reinterpret the bits.)
    const I32s bits = (I32s)x[k];
    I32s exponent = ((bits >> 23) & 0xff) - 126;  // x = m * 2^exponent, m in [0.5, 1)
    F32s m = (F32s)((bits & 0x007fffff) | 0x3f000000);
    const I32s small = m < 0.70710678f;  // all ones where m < sqrt(1/2): use 2m, exponent - 1
    exponent += small;
    m += (F32s)((I32s)m & small);
    f[k] = m - 1.0f;
    e[k] = __builtin_convertvector(exponent, F32s);
    y[k] = f[k] * 7.0376836292e-2f - 1.1514610310e-1f;
  }
  HornerStep(y, f, 1.1676998740e-1f);
  HornerStep(y, f, -1.2420140846e-1f);
  HornerStep(y, f, 1.4249322787e-1f);
  HornerStep(y, f, -1.6668057665e-1f);
  HornerStep(y, f, 2.0000714765e-1f);
  HornerStep(y, f, -2.4999993993e-1f);
  HornerStep(y, f, 3.3333331174e-1f);
#pragma GCC unroll 16
  for (int k = 0; k < N; ++k) {
    const F32s z = f[k] * f[k];
    y[k] = y[k] * f[k] * z;
    y[k] += -2.12194440e-4f * e[k] - 0.5f * z;
    out[k] = -(f[k] + y[k] + 0.693359375f * e[k]);
  }
}

// Bit i set where w[i] >= 5.
inline uint32_t TailLanes(F32s w) {
#if defined(__AVX512F__)
  return _mm512_cmp_ps_mask((__m512)w, _mm512_set1_ps(5.0f), _CMP_GE_OQ);
#elif defined(__AVX__)
  return _mm256_movemask_ps(_mm256_cmp_ps((__m256)w, _mm256_set1_ps(5.0f), _CMP_GE_OQ));
#else
  return _mm_movemask_ps(_mm_cmpge_ps((__m128)w, _mm_set1_ps(5.0f)));
#endif
}

// Giles' tail polynomial for the lanes in `mask`.
__attribute__((noinline)) F32s FixTailLanes(F32s p, F32s w, uint32_t mask) {
  for (; mask != 0; mask &= mask - 1) {
    const int lane = __builtin_ctz(mask);
    const float b = std::sqrt(w[lane]) - 3.0f;
    float q = -0.000200214257f;
    for (float c : {0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f,
                    -0.0076224613f, 0.00943887047f, 1.00167406f, 2.83297682f}) {
      q = q * b + c;
    }
    p[lane] = q;
  }
  return p;
}

// z = std * sqrt(2) * erfinv(2u - 1) for u in (0, 1) (M. Giles, "Approximating the erfinv
// function", GPU Computing Gems, 2011). w = -log(1 - x^2) is computed as -log(4u(1 - u)), exact
// for our 23-bit grid of u, so the tails keep their precision.
template <int N>
ATTNLAB_INLINE void NormalQuantiles(const F32s (&u)[N], float std, F32s (&z)[N]) {
  F32s w[N], a[N], p[N];
#pragma GCC unroll 16
  for (int k = 0; k < N; ++k) w[k] = 4.0f * u[k] * (1.0f - u[k]);
  NegativeLogs(w, w);
#pragma GCC unroll 16
  for (int k = 0; k < N; ++k) {
    a[k] = w[k] - 2.5f;
    p[k] = a[k] * 2.81022636e-08f + 3.43273939e-07f;
  }
  HornerStep(p, a, -3.5233877e-06f);
  HornerStep(p, a, -4.39150654e-06f);
  HornerStep(p, a, 0.00021858087f);
  HornerStep(p, a, -0.00125372503f);
  HornerStep(p, a, -0.00417768164f);
  HornerStep(p, a, 0.246640727f);
  HornerStep(p, a, 1.50140941f);
#pragma GCC unroll 16
  for (int k = 0; k < N; ++k) {
    // Tail (w >= 5, |z| > 2.9): 0.34% of lanes, so one 16-lane vector in 18 has one. Find those
    // lanes with one compare into a bit mask; the rare fix-up stays out of line so that p can
    // live in a register on the common path.
    if (const uint32_t mask = TailLanes(w[k])) p[k] = FixTailLanes(p[k], w[k], mask);
    z[k] = 1.41421356f * p[k] * (2.0f * u[k] - 1.0f) * std;
  }
}

// S steps of the kGenerators generators (state in vectors of kLanes lanes), their draws in
// out[0, S * kGenerators) in step order, the first `count` of them stored.
template <int S>
ATTNLAB_INLINE void DrawSteps(U32s* s0, U32s* s1, U32s* s2, U32s* s3, float std, float* out,
                              Eigen::Index count) {
  constexpr int kVectors = kGenerators / kLanes;
  F32s u[S * kVectors], z[S * kVectors];
  for (int step = 0; step < S; ++step) {
    for (int v = 0; v < kVectors; ++v) {
      // u = (k + 1/2) / 2^23 for the top 23 bits k: strictly inside (0, 1), and 1 - u exact.
      // (24 bits do not fit: (2^24 - 1/2) / 2^24 rounds to exactly 1.0 in float.) Converted
      // as signed, exact below 2^23: AVX2 has no unsigned conversion instruction.
      const U32s bits = NextBits(s0[v], s1[v], s2[v], s3[v]) >> 9;
      u[step * kVectors + v] =
          (__builtin_convertvector((I32s)bits, F32s) + 0.5f) * (1.0f / 8388608);
    }
  }
  NormalQuantiles(u, std, z);
  for (int k = 0; k < S * kVectors; ++k) {
    const Eigen::Index first = k * kLanes;
    if (first + kLanes <= count) {
      std::memcpy(out + first, &z[k], sizeof(z[k]));  // constant size: one vector store
    } else {
      for (Eigen::Index j = first; j < count; ++j) out[j] = z[k][j - first];
    }
  }
}

}  // namespace

uint64_t SplitMix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t StreamSeed(uint64_t base, uint64_t index) {
  uint64_t x = base ^ (index * 0xd1b54a32d192ed03ull);
  SplitMix64(x);
  return SplitMix64(x);
}

GaussianStream::GaussianStream(uint64_t seed) {
  for (int lane = 0; lane < kGenerators; ++lane) {
    const uint64_t a = SplitMix64(seed), b = SplitMix64(seed);
    state_[0][lane] = static_cast<uint32_t>(a);
    state_[1][lane] = static_cast<uint32_t>(a >> 32);
    state_[2][lane] = static_cast<uint32_t>(b);
    state_[3][lane] = static_cast<uint32_t>(b >> 32) | 1;  // never all zero
  }
}

void GaussianStream::Fill(float* out, Eigen::Index n, float std) {
  constexpr int kVectors = kGenerators / kLanes;
  // Generator steps drawn side by side: two on AVX2 (4 vectors in flight; 3 steps were no
  // faster, 4 slower: experiments/BENCHMARKS.md); one on AVX-512, whose 16-lane vectors
  // gained nothing from more generators in flight on a Zen 5.
  constexpr int kSteps = kLanes == 8 ? 2 : 1;
  U32s s0[kVectors], s1[kVectors], s2[kVectors], s3[kVectors];
  std::memcpy(s0, state_[0], sizeof(s0));
  std::memcpy(s1, state_[1], sizeof(s1));
  std::memcpy(s2, state_[2], sizeof(s2));
  std::memcpy(s3, state_[3], sizeof(s3));
  Eigen::Index i = 0;
  for (; i + kSteps * kGenerators <= n; i += kSteps * kGenerators) {
    DrawSteps<kSteps>(s0, s1, s2, s3, std, out + i, kSteps * kGenerators);
  }
  // Every generator steps, also where the last step stores fewer than 16 draws.
  for (; i < n; i += kGenerators) DrawSteps<1>(s0, s1, s2, s3, std, out + i, n - i);
  std::memcpy(state_[0], s0, sizeof(s0));
  std::memcpy(state_[1], s1, sizeof(s1));
  std::memcpy(state_[2], s2, sizeof(s2));
  std::memcpy(state_[3], s3, sizeof(s3));
}

void GaussianStream::Fill(double* out, Eigen::Index n, double std) {
  float block[256];
  for (Eigen::Index i = 0; i < n; i += 256) {
    const Eigen::Index count = std::min<Eigen::Index>(256, n - i);
    Fill(block, count);
    for (Eigen::Index k = 0; k < count; ++k) out[i + k] = std * block[k];
  }
}

}  // namespace attnlab
