#include "attention/kernels/layer_norm_rows.h"

#include <cmath>

#include "Eigen/Core"
#include "attention/kernels/packet.h"

namespace attnlab {
namespace {

using namespace Eigen::internal;

// Packets of a row of n values: whole ones, then the last part with the other lanes `fill`.
template <typename T>
class RowPackets {
 public:
  explicit RowPackets(int n) : n_(n), full_(n - n % kPacketSize<T>) {}
  Packet<T> Load(const T* row, int i, T fill) const {
    return i < full_ ? ploadu<Packet<T>>(row + i) : LoadTail(row + i, n_ - full_, fill);
  }
  void Store(T* row, int i, const Packet<T>& v) const {
    if (i < full_) {
      pstoreu(row + i, v);
    } else {
      StoreTail(row + i, v, n_ - full_);
    }
  }

 private:
  int n_, full_;
};

}  // namespace

template <typename T>
void LayerNormRow(const T* x, int n, T eps, const T* gamma, const T* beta, T* out, T* mean,
                  T* inv_std) {
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  const RowPackets<T> row(n);
  P sum = pset1<P>(T(0));
  for (int i = 0; i < n; i += L) sum = padd(sum, row.Load(x, i, T(0)));
  const T m = predux(sum) / T(n);
  const P mp = pset1<P>(m);
  P squares = pset1<P>(T(0));
  for (int i = 0; i < n; i += L) {
    const P d = psub(row.Load(x, i, m), mp);  // 0 past the row
    squares = pmadd(d, d, squares);
  }
  const T s = T(1) / std::sqrt(predux(squares) / T(n) + eps);
  const P sp = pset1<P>(s);
  for (int i = 0; i < n; i += L) {
    const P xhat = pmul(psub(row.Load(x, i, m), mp), sp);
    row.Store(out, i, pmadd(xhat, row.Load(gamma, i, T(0)), row.Load(beta, i, T(0))));
  }
  *mean = m;
  *inv_std = s;
}

template <typename T>
void LayerNormRowBackward(const T* x, const T* dy, int n, T mean, T inv_std, const T* gamma,
                          const T* residual, T* gamma_sum, T* beta_sum, T* dx) {
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  const RowPackets<T> row(n);
  const P mp = pset1<P>(mean), sp = pset1<P>(inv_std);
  P sum_dn = pset1<P>(T(0)), sum_dn_xhat = pset1<P>(T(0));
  for (int i = 0; i < n; i += L) {
    const P xhat = pmul(psub(row.Load(x, i, mean), mp), sp);
    const P g = row.Load(dy, i, T(0));
    const P dn = pmul(g, row.Load(gamma, i, T(0)));
    row.Store(gamma_sum, i, pmadd(g, xhat, row.Load(gamma_sum, i, T(0))));
    row.Store(beta_sum, i, padd(g, row.Load(beta_sum, i, T(0))));
    sum_dn = padd(sum_dn, dn);
    sum_dn_xhat = pmadd(dn, xhat, sum_dn_xhat);
  }
  if (dx == nullptr) return;
  const P mean_dn = pset1<P>(predux(sum_dn) / T(n));
  const P mean_dn_xhat = pset1<P>(predux(sum_dn_xhat) / T(n));
  for (int i = 0; i < n; i += L) {
    // xhat and dn again (two multiplies a packet) instead of a row-sized buffer.
    const P xhat = pmul(psub(row.Load(x, i, mean), mp), sp);
    const P dn = pmul(row.Load(dy, i, T(0)), row.Load(gamma, i, T(0)));
    P v = pmul(sp, psub(psub(dn, mean_dn), pmul(xhat, mean_dn_xhat)));
    if (residual != nullptr) v = padd(v, row.Load(residual, i, T(0)));
    row.Store(dx, i, v);
  }
}

template void LayerNormRow<float>(const float*, int, float, const float*, const float*, float*,
                                  float*, float*);
template void LayerNormRow<double>(const double*, int, double, const double*, const double*,
                                   double*, double*, double*);
template void LayerNormRowBackward<float>(const float*, const float*, int, float, float,
                                          const float*, const float*, float*, float*, float*);
template void LayerNormRowBackward<double>(const double*, const double*, int, double, double,
                                           const double*, const double*, double*, double*,
                                           double*);

}  // namespace attnlab
