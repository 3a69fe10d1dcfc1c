// Numerically stable softmax over rows, and its backward. Masked scores are -infinity (their
// probability is exactly 0); every row needs at least one finite score.
#ifndef ATTNLAB_ATTENTION_KERNELS_SOFTMAX_H_
#define ATTNLAB_ATTENTION_KERNELS_SOFTMAX_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "Eigen/Core"
#include "attention/kernels/packet.h"

// As in packet.h: packets as template arguments lose attributes nothing here depends on.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace attnlab {
namespace softmax_internal {

// Whether D's rows are contiguous in memory, so that the row kernels below can take them as
// pointers. (Eigen's own loops over a row peel scalars until the row is aligned and finish
// with scalars: with rows of 50 floats about a third of the exponentials were scalar libm
// calls. The kernels below use unaligned packets throughout and one padded packet for the
// tail.)
template <typename D>
constexpr bool ContiguousRows() {
  return (int(Eigen::internal::traits<D>::Flags) & Eigen::DirectAccessBit) && D::IsRowMajor &&
         D::InnerStrideAtCompileTime == 1;
}

// y 2^n, n integral: one instruction with AVX-512 (vscalefps), Eigen's pldexp elsewhere (which
// is exact over the whole range, subnormal and zero results included).
template <typename P>
EIGEN_ALWAYS_INLINE P Scale2(const P& y, const P& n) {
  return Eigen::internal::pldexp(y, n);
}
#ifdef EIGEN_VECTORIZE_AVX512
EIGEN_ALWAYS_INLINE __m512 Scale2(__m512 y, __m512 n) { return _mm512_scalef_ps(y, n); }
EIGEN_ALWAYS_INLINE __m256 Scale2(__m256 y, __m256 n) { return _mm256_scalef_ps(y, n); }
EIGEN_ALWAYS_INLINE __m512d Scale2(__m512d y, __m512d n) { return _mm512_scalef_pd(y, n); }
EIGEN_ALWAYS_INLINE __m256d Scale2(__m256d y, __m256d n) { return _mm256_scalef_pd(y, n); }
#endif

// exp(x) for a SIMD packet P of T (a full one by default, or the half one that fused_softmax.cc
// uses for a row's last keys): exactly 0 for x = -infinity and wherever exp(x) is under half the
// smallest subnormal, infinite above exp's range, NaN for NaN, on every ISA (Eigen's pexp clamps
// its input, so that exp(-105.f) came out as 2.9e-39 and exp(-746.) as 5.6e-309 without AVX-512:
// a floor under every saturated probability, which paper 1's gradient is made of).
// Float: Eigen's pexp reduction (x = n ln 2 + r in two FMAs, Cephes' polynomial for exp(r)) with
// Scale2 for the 2^n. Double: the same reduction and exp(r)'s Taylor polynomial to degree 13 (the
// first term left out is under 5e-18 for |r| <= ln 2 / 2), with no division (Eigen's double
// pexp divides in a Pade form). The softmax's exponentials are most of its arithmetic.
//
// ExpInPlace takes N packets and runs each stage over all of them before the next, so that their
// dependency chains interleave: one packet's polynomial alone waits on the FMA latency where the
// reorder window is small (AVX2 on a first-generation EPYC); the same operations, so the same
// bits, as N = 1.
template <typename T, typename P, int N>
EIGEN_ALWAYS_INLINE void ExpInPlace(P (&x)[N]) {
  using namespace Eigen::internal;
  static_assert(!std::is_arithmetic_v<P>, "Exp takes SIMD packets");
  P n[N], r[N], y[N];
  if constexpr (std::is_same_v<T, double>) {
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) {
      // exp(-745.2) is under half the smallest denormal, so -infinity gives 0; above 709.79 the
      // result is infinite anyway.
      const P v = pmin(pmax(x[k], pset1<P>(-745.2)), pset1<P>(709.79));
      n[k] = print(pmul(v, pset1<P>(1.4426950408889634074)));
      r[k] = pmadd(n[k], pset1<P>(-0.693145751953125), v);  // ln 2 in two parts (Cody and Waite)
      r[k] = pmadd(n[k], pset1<P>(-1.42860682030941723212e-6), r[k]);
      y[k] = pset1<P>(1.0 / 6227020800.0);  // 1 / 13!
    }
    constexpr double kInverseFactorials[] = {1.0 / 479001600.0, 1.0 / 39916800.0,
                                             1.0 / 3628800.0,   1.0 / 362880.0,
                                             1.0 / 40320.0,     1.0 / 5040.0,
                                             1.0 / 720.0,       1.0 / 120.0,
                                             1.0 / 24.0,        1.0 / 6.0,
                                             0.5,               1.0,
                                             1.0};
#pragma GCC unroll 16
    for (double c : kInverseFactorials) {
#pragma GCC unroll 8
      for (int k = 0; k < N; ++k) y[k] = pmadd(y[k], r[k], pset1<P>(c));
    }
  } else {
    static_assert(std::is_same_v<T, float>, "Exp is for float and double");
    P r2[N], y1[N];
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) {
      // exp(-110) is under half the smallest denormal, so -infinity gives 0; above 88.8 the
      // result is infinite anyway. Eigen's pmax(x, c) and pmin(x, c) return x for a NaN x.
      const P v = pmin(pmax(x[k], pset1<P>(-110.0f)), pset1<P>(88.8f));
      n[k] = print(pmul(v, pset1<P>(1.44269504088896341f)));
      r[k] = pmadd(n[k], pset1<P>(-0.693359375f), v);  // ln 2 in two parts
      r[k] = pmadd(n[k], pset1<P>(2.12194440e-4f), r[k]);
    }
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) {
      r2[k] = pmul(r[k], r[k]);
      const P r3 = pmul(r2[k], r[k]);
      y[k] = pmadd(pset1<P>(1.9875691500e-4f), r[k], pset1<P>(1.3981999507e-3f));
      y1[k] = pmadd(pset1<P>(4.1665795894e-2f), r[k], pset1<P>(1.6666665459e-1f));
      y[k] = pmadd(y[k], r[k], pset1<P>(8.3334519073e-3f));
      y1[k] = pmadd(y1[k], r[k], pset1<P>(5.0000001201e-1f));
      y[k] = pmadd(y[k], r3, y1[k]);
    }
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) y[k] = pmadd(y[k], r2[k], padd(r[k], pset1<P>(1.0f)));
  }
#pragma GCC unroll 8
  for (int k = 0; k < N; ++k) x[k] = Scale2(y[k], n[k]);
}

template <typename T, typename P = Packet<T>>
EIGEN_ALWAYS_INLINE P Exp(const P& x) {
  P packets[1] = {x};
  ExpInPlace<T, P, 1>(packets);
  return packets[0];
}

}  // namespace softmax_internal

// The max of a row and the sum of exp(x - max) over it: its softmax's normalizer.
template <typename T>
struct RowNormalizer {
  T max, sum;
};

// y = exp(z - max(z)) over n contiguous entries for z = x, or z = x + bias (y may be x); returns
// max(z) and the sum of y: the part of a softmax that a row split in blocks (the LM head's
// vocabulary) computes block by block, before the blocks' normalizers are joined.
template <typename T>
RowNormalizer<T> ShiftedExpRow(const T* x, int n, T* y, const T* bias = nullptr) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  constexpr T kMinusInf = -std::numeric_limits<T>::infinity();
  const int full = n - n % L, tail = n - full;
  auto load = [&](int k) {
    return bias == nullptr ? ploadu<P>(x + k) : padd(ploadu<P>(x + k), ploadu<P>(bias + k));
  };
  auto load_tail = [&](T fill) {  // `fill` past the row
    const P z = LoadTail(x + full, tail, fill);
    return bias == nullptr ? z : padd(z, LoadTail(bias + full, tail, T(0)));
  };
  P packet_max = pset1<P>(kMinusInf);
  for (int k = 0; k < full; k += L) packet_max = pmax(packet_max, load(k));
  if (tail > 0) packet_max = pmax(packet_max, load_tail(kMinusInf));
  const P shift = pset1<P>(predux_max(packet_max));
  P packet_sum = pset1<P>(T(0));
  int k = 0;
  // 4 packets' exponentials at a time (their chains interleave), summed in the same order.
  for (; k + 4 * L <= full; k += 4 * L) {
    P e[4];
    for (int j = 0; j < 4; ++j) e[j] = psub(load(k + j * L), shift);
    softmax_internal::ExpInPlace<T>(e);
    for (int j = 0; j < 4; ++j) {
      pstoreu(y + k + j * L, e[j]);
      packet_sum = padd(packet_sum, e[j]);
    }
  }
  for (; k < full; k += L) {
    const P e = softmax_internal::Exp<T>(psub(load(k), shift));
    pstoreu(y + k, e);
    packet_sum = padd(packet_sum, e);
  }
  if (tail > 0) {
    const P e = softmax_internal::Exp<T>(psub(load_tail(kMinusInf), shift));  // 0 past the row
    StoreTail(y + full, e, tail);
    packet_sum = padd(packet_sum, e);
  }
  return {predux_max(shift), predux(packet_sum)};
}

namespace softmax_internal {

// y *= factor over n entries.
template <typename T>
void ScaleRow(T* y, int n, T factor) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  const int full = n - n % L, tail = n - full;
  const P scale = pset1<P>(factor);
  for (int k = 0; k < full; k += L) pstoreu(y + k, pmul(ploadu<P>(y + k), scale));
  if (tail > 0) StoreTail(y + full, pmul(LoadTail(y + full, tail, T(0)), scale), tail);
}

// y = softmax(x) over n entries; y may be x. One division, then multiplications.
template <typename T>
void SoftmaxRow(const T* x, int n, T* y) {
  ScaleRow(y, n, T(1) / ShiftedExpRow(x, n, y).sum);
}

// out = p .* ((g - g_m) - sum_k p_k (g_k - g_m)) over n entries, m the first largest p (see
// SoftmaxRowsBackward); out may be g.
template <typename T>
void SoftmaxBackwardRow(const T* p, const T* g, int n, T* out) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  const int full = n - n % L;
  P packet_max = pset1<P>(T(0));
  for (int k = 0; k < full; k += L) packet_max = pmax(packet_max, ploadu<P>(p + k));
  T largest = predux_max(packet_max);
  for (int k = full; k < n; ++k) largest = std::max(largest, p[k]);
  const int m = int(std::find(p, p + n, largest) - p);  // the first: a predictable branch
  const P gm = pset1<P>(g[m]);
  P packet_tail = pset1<P>(T(0));
  for (int k = 0; k < full; k += L) {
    packet_tail = pmadd(ploadu<P>(p + k), psub(ploadu<P>(g + k), gm), packet_tail);
  }
  T tail = predux(packet_tail);
  for (int k = full; k < n; ++k) tail += p[k] * (g[k] - g[m]);
  const T g_m = g[m];
  const P shift = pset1<P>(tail);
  for (int k = 0; k < full; k += L) {
    pstoreu(out + k, pmul(ploadu<P>(p + k), psub(psub(ploadu<P>(g + k), gm), shift)));
  }
  for (int k = full; k < n; ++k) out[k] = p[k] * ((g[k] - g_m) - tail);
}

}  // namespace softmax_internal

// probs(i, :) = softmax(scores(i, :)). Subtracting the row max keeps exp() in range in float.
template <typename In, typename Out>
void SoftmaxRows(const Eigen::MatrixBase<In>& scores, const Eigen::MatrixBase<Out>& probs_out) {
  auto& probs = const_cast<Eigen::MatrixBase<Out>&>(probs_out);
  if constexpr (softmax_internal::ContiguousRows<In>() && softmax_internal::ContiguousRows<Out>()) {
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
      softmax_internal::SoftmaxRow(scores.derived().row(i).data(), int(scores.cols()),
                                   probs.derived().row(i).data());
    }
    return;
  }
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const auto max = scores.row(i).maxCoeff();
    probs.row(i) = (scores.row(i).array() - max).exp().matrix();
    probs.row(i) /= probs.row(i).sum();
  }
}

// Given probs = softmax(scores) and dL/dprobs g, writes dL/dscores = probs .* (g - <g, probs>)
// row by row. grad_scores may alias grad_probs.
//
// The textbook form cancels catastrophically once the softmax saturates: for the dominant
// token, g_m - <g, probs> is a difference of nearly equal numbers whose true value can be far
// below 1e-16 |g_m|, so the gradient becomes rounding noise (paper 1 trains far into that
// regime). Measuring g relative to the dominant token, with sum(probs) = 1,
//   g_j - <g, probs> = (g_j - g_m) - sum_{k != m} probs_k (g_k - g_m),
// has no such cancellation: every term is computed to full relative precision.
template <typename P, typename G, typename Out>
void SoftmaxRowsBackward(const Eigen::MatrixBase<P>& probs, const Eigen::MatrixBase<G>& grad_probs,
                         const Eigen::MatrixBase<Out>& grad_scores_out) {
  using Scalar = typename P::Scalar;
  auto& grad_scores = const_cast<Eigen::MatrixBase<Out>&>(grad_scores_out);
  if constexpr (softmax_internal::ContiguousRows<P>() && softmax_internal::ContiguousRows<G>() &&
                softmax_internal::ContiguousRows<Out>()) {
    for (Eigen::Index i = 0; i < probs.rows(); ++i) {
      softmax_internal::SoftmaxBackwardRow(probs.derived().row(i).data(),
                                           grad_probs.derived().row(i).data(), int(probs.cols()),
                                           grad_scores.derived().row(i).data());
    }
    return;
  }
  for (Eigen::Index i = 0; i < probs.rows(); ++i) {
    Eigen::Index m;
    probs.row(i).maxCoeff(&m);
    const Scalar gm = grad_probs(i, m);
    // sum_{k != m} p_k (g_k - g_m); the k = m term is zero anyway.
    const Scalar tail = (probs.row(i).array() * (grad_probs.row(i).array() - gm)).sum();
    grad_scores.row(i) =
        (probs.row(i).array() * ((grad_probs.row(i).array() - gm) - tail)).matrix();
  }
}

// log(sum(exp(x))) without overflow.
template <typename V>
typename V::Scalar LogSumExp(const Eigen::MatrixBase<V>& x) {
  const auto max = x.maxCoeff();
  if (!std::isfinite(max)) return max;
  return max + std::log((x.array() - max).exp().sum());
}

}  // namespace attnlab

#pragma GCC diagnostic pop

#endif  // ATTNLAB_ATTENTION_KERNELS_SOFTMAX_H_
