#include "attention/kernels/soft_threshold.h"

#include <cmath>

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
T SoftThresholdBackward(const T* r, const T* ds, int64_t n, T threshold, T* dr) {
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  const P limit = pset1<P>(threshold), sign_bit = pset1<P>(T(-0.0));
  P sum = pset1<P>(T(0));  // of ds sign(r) where r passes
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const P x = ploadu<P>(r + i);
    const P passed = pand(pcmp_lt(limit, pabs(x)), ploadu<P>(ds + i));
    pstoreu(dr + i, passed);
    sum = padd(sum, pxor(passed, pand(x, sign_bit)));  // a passing r is not 0: flip by its sign
  }
  T total = predux(sum);
  for (; i < n; ++i) {
    const bool passes = std::abs(r[i]) > threshold;
    dr[i] = passes ? ds[i] : T(0);
    if (passes) total += r[i] > 0 ? ds[i] : -ds[i];
  }
  return -total;
}

template void SoftThreshold(const float*, int64_t, float, float*);
template void SoftThreshold(const double*, int64_t, double, double*);
template float SoftThresholdBackward(const float*, const float*, int64_t, float, float*);
template double SoftThresholdBackward(const double*, const double*, int64_t, double, double*);

}  // namespace attnlab
