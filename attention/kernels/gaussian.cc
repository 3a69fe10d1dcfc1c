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

// Natural log for normal positive floats (Cephes logf), |error| < 1e-6.
inline F32s Log(F32s x) {
  // (Vector casts between same-sized vector types reinterpret the bits.)
  const I32s bits = (I32s)x;
  I32s exponent = ((bits >> 23) & 0xff) - 126;  // x = m * 2^exponent, m in [0.5, 1)
  F32s m = (F32s)((bits & 0x007fffff) | 0x3f000000);
  const I32s small = m < 0.70710678f;  // all ones where m < sqrt(1/2): use 2m, exponent - 1
  exponent += small;
  m += (F32s)((I32s)m & small);
  const F32s f = m - 1.0f;
  const F32s z = f * f;
  F32s y = f * 7.0376836292e-2f - 1.1514610310e-1f;
  y = y * f + 1.1676998740e-1f;
  y = y * f - 1.2420140846e-1f;
  y = y * f + 1.4249322787e-1f;
  y = y * f - 1.6668057665e-1f;
  y = y * f + 2.0000714765e-1f;
  y = y * f - 2.4999993993e-1f;
  y = y * f + 3.3333331174e-1f;
  y = y * f * z;
  const F32s e = __builtin_convertvector(exponent, F32s);
  y += -2.12194440e-4f * e - 0.5f * z;
  return f + y + 0.693359375f * e;
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

// sqrt(2) * erfinv(2u - 1) for u in (0, 1) (M. Giles, "Approximating the erfinv function",
// GPU Computing Gems, 2011). w = -log(1 - x^2) is computed as -log(4u(1 - u)), exact for our
// 23-bit grid of u, so the tails keep their precision.
inline F32s NormalQuantile(F32s u) {
  const F32s w = -Log(4.0f * u * (1.0f - u));
  const F32s a = w - 2.5f;
  F32s p = a * 2.81022636e-08f + 3.43273939e-07f;
  p = p * a - 3.5233877e-06f;
  p = p * a - 4.39150654e-06f;
  p = p * a + 0.00021858087f;
  p = p * a - 0.00125372503f;
  p = p * a - 0.00417768164f;
  p = p * a + 0.246640727f;
  p = p * a + 1.50140941f;
  // Tail (w >= 5, |z| > 2.9): 0.34% of lanes, so one 16-lane vector in 18 has one. Find those
  // lanes with one compare into a bit mask; the rare fix-up stays out of line so that p can
  // live in a register on the common path.
  if (const uint32_t mask = TailLanes(w)) p = FixTailLanes(p, w, mask);
  return 1.41421356f * p * (2.0f * u - 1.0f);
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
  U32s s0[kVectors], s1[kVectors], s2[kVectors], s3[kVectors];
  std::memcpy(s0, state_[0], sizeof(s0));
  std::memcpy(s1, state_[1], sizeof(s1));
  std::memcpy(s2, state_[2], sizeof(s2));
  std::memcpy(s3, state_[3], sizeof(s3));
  for (Eigen::Index i = 0; i < n; i += kGenerators) {
    // Every generator steps, also where the last step stores fewer than 16 draws.
    for (int v = 0; v < kVectors; ++v) {
      // u = (k + 1/2) / 2^23 for the top 23 bits k: strictly inside (0, 1), and 1 - u exact.
      // (24 bits do not fit: (2^24 - 1/2) / 2^24 rounds to exactly 1.0 in float.) Converted
      // as signed, exact below 2^23: AVX2 has no unsigned conversion instruction.
      const U32s bits = NextBits(s0[v], s1[v], s2[v], s3[v]) >> 9;
      const F32s u = (__builtin_convertvector((I32s)bits, F32s) + 0.5f) * (1.0f / 8388608);
      const F32s z = NormalQuantile(u) * std;
      const Eigen::Index first = i + v * kLanes;
      if (first + kLanes <= n) {
        std::memcpy(out + first, &z, sizeof(z));  // constant size: one vector store
      } else {
        for (Eigen::Index k = 0; k < n - first; ++k) out[first + k] = z[k];
      }
    }
  }
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
