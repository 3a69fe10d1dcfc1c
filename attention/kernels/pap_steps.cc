#include "attention/kernels/pap_steps.h"

#include <algorithm>

#include "attention/kernels/packet.h"

namespace attnlab {
namespace {

using namespace Eigen::internal;

// Packet `lanes` entries at x (fewer only at the end: the rest 0).
template <typename T>
EIGEN_ALWAYS_INLINE Packet<T> Load(const T* x, int lanes) {
  return lanes == kPacketSize<T> ? ploadu<Packet<T>>(x) : LoadTail<T>(x, lanes, T(0));
}

template <typename T>
EIGEN_ALWAYS_INLINE void Store(T* y, const Packet<T>& v, int lanes) {
  if (lanes == kPacketSize<T>) {
    pstoreu(y, v);
  } else {
    StoreTail(y, v, lanes);
  }
}

// Calls step(key_at, at, lanes) for each packet of a rows x cols matrix: its offset in K (row
// stride ldk) and in the contiguous matrices, and its lanes (fewer only at a row's end).
template <typename T, typename Step>
EIGEN_ALWAYS_INLINE void ForEachPacket(int rows, int cols, int64_t ldk, const Step& step) {
  constexpr int L = kPacketSize<T>;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; c += L) {
      step(r * ldk + c, int64_t{r} * cols + c, std::min(L, cols - c));
    }
  }
}

}  // namespace

template <typename T>
void PapForwardStep(int rows, int cols, const T* k, int64_t ldk, const T* l_prev,
                    const T* s_prev, const T* y_prev, T mu, T inv_mu, T threshold, T* y, T* s,
                    T* k2) {
  using P = Packet<T>;
  const P mu_p = pset1<P>(mu), inv_mu_p = pset1<P>(inv_mu);
  const P high = pset1<P>(threshold), low = pset1<P>(-threshold), zero = pset1<P>(T(0));
  const bool first = y_prev == nullptr;
  ForEachPacket<T>(rows, cols, ldk, [&](int64_t key_at, int64_t i, int lanes) {
    const P key = Load(k + key_at, lanes);
    P dual = zero, r = key;
    if (!first) {
      const P kept = psub(key, Load(l_prev + i, lanes));  // K - L_prev
      dual = pmadd(mu_p, psub(kept, Load(s_prev + i, lanes)), Load(y_prev + i, lanes));
      r = pmadd(dual, inv_mu_p, kept);
    }
    // The shrink as r - clamp(r, -t, t): exactly r -+ t outside, exactly 0 inside.
    const P sparse = psub(r, pmin(pmax(r, low), high));
    Store(y + i, dual, lanes);
    Store(s + i, sparse, lanes);
    Store(k2 + i, psub(psub(key, sparse), pmul(dual, inv_mu_p)), lanes);
  });
}

template <typename T>
PapMuSums<T> PapBackwardStep(int rows, int cols, const T* k, int64_t ldk, const T* l,
                             const T* s, const T* y_prev, const T* dk2, T mu, T inv_mu, T* dy,
                             T* dk, T* dl_prev) {
  using P = Packet<T>;
  const P mu_p = pset1<P>(mu), inv_mu_p = pset1<P>(inv_mu);
  const P zero = pset1<P>(T(0)), sign_bit = pset1<P>(T(-0.0));
  P sum_y = zero, sum_threshold = zero, sum_residual = zero;
  ForEachPacket<T>(rows, cols, ldk, [&](int64_t key_at, int64_t i, int lanes) {
    const P sparse = Load(s + i, lanes), d_key2 = Load(dk2 + i, lanes);
    const P d_dual = Load(dy + i, lanes);
    const P mu_dy = pmul(mu_p, d_dual);
    const P d_sparse = pnegate(padd(mu_dy, d_key2));
    // dR = dS where S != 0; -dS sign(S) summed for dL/dthreshold (the sign bit flipped).
    const P d_r = pandnot(d_sparse, pcmp_eq(sparse, zero));
    sum_threshold = psub(sum_threshold, pxor(d_r, pand(sparse, sign_bit)));
    Store(dk + i, padd(Load(dk + i, lanes), padd(padd(mu_dy, d_key2), d_r)), lanes);
    sum_y = pmadd(psub(d_key2, d_r), Load(y_prev + i, lanes), sum_y);
    if (l != nullptr) {
      const P residual = psub(psub(Load(k + key_at, lanes), Load(l + i, lanes)), sparse);
      sum_residual = pmadd(d_dual, residual, sum_residual);
    }
    const P d_dual_prev = pmadd(psub(d_r, d_key2), inv_mu_p, d_dual);
    Store(dy + i, d_dual_prev, lanes);
    Store(dl_prev + i, psub(pnegate(d_r), pmul(mu_p, d_dual_prev)), lanes);
  });
  return {predux(sum_y), predux(sum_threshold), predux(sum_residual)};
}

template void PapForwardStep(int, int, const float*, int64_t, const float*, const float*,
                             const float*, float, float, float, float*, float*, float*);
template void PapForwardStep(int, int, const double*, int64_t, const double*, const double*,
                             const double*, double, double, double, double*, double*, double*);
template PapMuSums<float> PapBackwardStep(int, int, const float*, int64_t, const float*,
                                          const float*, const float*, const float*, float, float,
                                          float*, float*, float*);
template PapMuSums<double> PapBackwardStep(int, int, const double*, int64_t, const double*,
                                           const double*, const double*, const double*, double,
                                           double, double*, double*, double*);

}  // namespace attnlab
