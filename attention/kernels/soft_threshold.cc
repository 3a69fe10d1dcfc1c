#include "attention/kernels/soft_threshold.h"

#include <algorithm>

#include "attention/kernels/packet.h"

namespace attnlab {

using namespace Eigen::internal;

template <typename T>
void SoftThreshold(const T* r, int64_t n, T threshold, T* s) {
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  // r - clamp(r, -t, t): exactly r -+ t outside, exactly 0 inside.
  const P high = pset1<P>(threshold), low = pset1<P>(-threshold);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const P x = ploadu<P>(r + i);
    pstoreu(s + i, psub(x, pmin(pmax(x, low), high)));
  }
  for (; i < n; ++i) s[i] = r[i] - std::min(std::max(r[i], -threshold), threshold);
}

template <typename T>
T SoftThresholdBackward(const T* s, const T* ds, int64_t n, T* dr) {
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  const P zero = pset1<P>(T(0)), sign_bit = pset1<P>(T(-0.0));
  P sum = zero;  // of ds sign(s) where s != 0
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const P x = ploadu<P>(s + i);
    const P passed = pandnot(ploadu<P>(ds + i), pcmp_eq(x, zero));
    pstoreu(dr + i, passed);
    sum = padd(sum, pxor(passed, pand(x, sign_bit)));  // flipped where s < 0
  }
  T total = predux(sum);
  for (; i < n; ++i) {
    dr[i] = s[i] != 0 ? ds[i] : T(0);
    if (s[i] != 0) total += s[i] > 0 ? ds[i] : -ds[i];
  }
  return -total;
}

template void SoftThreshold(const float*, int64_t, float, float*);
template void SoftThreshold(const double*, int64_t, double, double*);
template float SoftThresholdBackward(const float*, const float*, int64_t, float*);
template double SoftThresholdBackward(const double*, const double*, int64_t, double*);

}  // namespace attnlab
