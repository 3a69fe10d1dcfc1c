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

template <typename T, int R>
void NormalizeGroup(int n, const T* x, int64_t ldx, T eps, const T* gamma, const T* beta, T* out,
                    int64_t ldo, T* mean, T* inv_std) {
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  const RowPackets<T> row(n);
  P sum[R], mp[R], squares[R], sp[R];
  for (int r = 0; r < R; ++r) sum[r] = pset1<P>(T(0));
  for (int i = 0; i < n; i += L) {
    for (int r = 0; r < R; ++r) sum[r] = padd(sum[r], row.Load(x + r * ldx, i, T(0)));
  }
  for (int r = 0; r < R; ++r) {
    mean[r] = predux(sum[r]) / T(n);
    mp[r] = pset1<P>(mean[r]);
    squares[r] = pset1<P>(T(0));
  }
  for (int i = 0; i < n; i += L) {
    for (int r = 0; r < R; ++r) {
      const P d = psub(row.Load(x + r * ldx, i, mean[r]), mp[r]);  // 0 past the row
      squares[r] = pmadd(d, d, squares[r]);
    }
  }
  for (int r = 0; r < R; ++r) {
    inv_std[r] = T(1) / std::sqrt(predux(squares[r]) / T(n) + eps);
    sp[r] = pset1<P>(inv_std[r]);
  }
  for (int i = 0; i < n; i += L) {
    const P g = row.Load(gamma, i, T(0)), b = row.Load(beta, i, T(0));
    for (int r = 0; r < R; ++r) {
      const P xhat = pmul(psub(row.Load(x + r * ldx, i, mean[r]), mp[r]), sp[r]);
      row.Store(out + r * ldo, i, pmadd(xhat, g, b));
    }
  }
}

template <typename T, int R>
void BackwardGroup(int n, const T* x, int64_t ldx, const T* dy, int64_t ldy, const T* mean,
                   const T* inv_std, const T* gamma, const T* residual, int64_t ldr, T* gamma_sum,
                   T* beta_sum, T* dx, int64_t lddx) {
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  const RowPackets<T> row(n);
  P mp[R], sp[R], sum_dn[R], sum_dn_xhat[R];
  for (int r = 0; r < R; ++r) {
    mp[r] = pset1<P>(mean[r]);
    sp[r] = pset1<P>(inv_std[r]);
    sum_dn[r] = sum_dn_xhat[r] = pset1<P>(T(0));
  }
  for (int i = 0; i < n; i += L) {
    const P gm = row.Load(gamma, i, T(0));
    P gs = row.Load(gamma_sum, i, T(0)), bs = row.Load(beta_sum, i, T(0));
    for (int r = 0; r < R; ++r) {  // in row order, as one row at a time would add them
      const P xhat = pmul(psub(row.Load(x + r * ldx, i, mean[r]), mp[r]), sp[r]);
      const P g = row.Load(dy + r * ldy, i, T(0));
      const P dn = pmul(g, gm);
      gs = pmadd(g, xhat, gs);
      bs = padd(g, bs);
      sum_dn[r] = padd(sum_dn[r], dn);
      sum_dn_xhat[r] = pmadd(dn, xhat, sum_dn_xhat[r]);
    }
    row.Store(gamma_sum, i, gs);
    row.Store(beta_sum, i, bs);
  }
  if (dx == nullptr) return;
  P mean_dn[R], mean_dn_xhat[R];
  for (int r = 0; r < R; ++r) {
    mean_dn[r] = pset1<P>(predux(sum_dn[r]) / T(n));
    mean_dn_xhat[r] = pset1<P>(predux(sum_dn_xhat[r]) / T(n));
  }
  for (int i = 0; i < n; i += L) {
    const P gm = row.Load(gamma, i, T(0));
    for (int r = 0; r < R; ++r) {
      // xhat and dn again (two multiplies a packet) instead of a row-sized buffer.
      const P xhat = pmul(psub(row.Load(x + r * ldx, i, mean[r]), mp[r]), sp[r]);
      const P dn = pmul(row.Load(dy + r * ldy, i, T(0)), gm);
      P v = pmul(sp[r], psub(psub(dn, mean_dn[r]), pmul(xhat, mean_dn_xhat[r])));
      if (residual != nullptr) v = padd(v, row.Load(residual + r * ldr, i, T(0)));
      row.Store(dx + r * lddx, i, v);
    }
  }
}

}  // namespace

template <typename T>
void LayerNormRows(int rows, int n, const T* x, int64_t ldx, T eps, const T* gamma, const T* beta,
                   T* out, int64_t ldo, T* mean, T* inv_std) {
  int r = 0;
  for (; r + kLayerNormGroupRows <= rows; r += kLayerNormGroupRows) {
    NormalizeGroup<T, kLayerNormGroupRows>(n, x + r * ldx, ldx, eps, gamma, beta, out + r * ldo,
                                           ldo, mean + r, inv_std + r);
  }
  for (; r < rows; ++r) {
    NormalizeGroup<T, 1>(n, x + r * ldx, ldx, eps, gamma, beta, out + r * ldo, ldo, mean + r,
                         inv_std + r);
  }
}

template <typename T>
void LayerNormRowsBackward(int rows, int n, const T* x, int64_t ldx, const T* dy, int64_t ldy,
                           const T* mean, const T* inv_std, const T* gamma, const T* residual,
                           int64_t ldr, T* gamma_sum, T* beta_sum, T* dx, int64_t lddx) {
  auto at = [](auto* rows_start, int64_t ld, int r) {
    return rows_start == nullptr ? rows_start : rows_start + r * ld;
  };
  int r = 0;
  for (; r + kLayerNormGroupRows <= rows; r += kLayerNormGroupRows) {
    BackwardGroup<T, kLayerNormGroupRows>(n, x + r * ldx, ldx, dy + r * ldy, ldy, mean + r,
                                          inv_std + r, gamma, at(residual, ldr, r), ldr, gamma_sum,
                                          beta_sum, at(dx, lddx, r), lddx);
  }
  for (; r < rows; ++r) {
    BackwardGroup<T, 1>(n, x + r * ldx, ldx, dy + r * ldy, ldy, mean + r, inv_std + r, gamma,
                        at(residual, ldr, r), ldr, gamma_sum, beta_sum, at(dx, lddx, r), lddx);
  }
}

template void LayerNormRows<float>(int, int, const float*, int64_t, float, const float*,
                                   const float*, float*, int64_t, float*, float*);
template void LayerNormRows<double>(int, int, const double*, int64_t, double, const double*,
                                    const double*, double*, int64_t, double*, double*);
template void LayerNormRowsBackward<float>(int, int, const float*, int64_t, const float*, int64_t,
                                           const float*, const float*, const float*, const float*,
                                           int64_t, float*, float*, float*, int64_t);
template void LayerNormRowsBackward<double>(int, int, const double*, int64_t, const double*,
                                            int64_t, const double*, const double*, const double*,
                                            const double*, int64_t, double*, double*, double*,
                                            int64_t);

}  // namespace attnlab
