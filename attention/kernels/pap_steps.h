// Principal Attention Pursuit's element-wise steps (RPC-Attention, plugins/rpc), each one pass
// over a head's N x D entries in SIMD packets (K a row-major block with row stride ldk, every
// other matrix row-major and contiguous): an iteration's dual, shrink and decomposed keys
// in the forward, and every adjoint of an iteration but the attention's in the backward. As
// separate Eigen expressions they were seven passes each, with the shrink's select and sign
// unvectorized.
#ifndef ATTNLAB_ATTENTION_KERNELS_PAP_STEPS_H_
#define ATTNLAB_ATTENTION_KERNELS_PAP_STEPS_H_

#include <cstdint>

namespace attnlab {

// One PAP iteration before its attention, with 1/mu given as inv_mu:
//   Y = Y_prev + mu (K - L_prev - S_prev),  R = K - L_prev + Y / mu,  S = shrink(R, threshold),
//   K2 = K - S - Y / mu.
// The first iteration passes y_prev = l_prev = s_prev = null: Y = 0 and R = K. y may be y_prev
// (updated in place).
template <typename T>
void PapForwardStep(int rows, int cols, const T* k, int64_t ldk, const T* l_prev, const T* s_prev, const T* y_prev,
                    T mu, T inv_mu, T threshold, T* y, T* s, T* k2);

// The sums an iteration's backward adds to dL/dmu (before their factors).
template <typename T>
struct PapMuSums {
  T y = 0;          // sum of (dK2 - dR) Y_prev
  T threshold = 0;  // dL/dthreshold: -sum of dS sign(S) where S != 0
  T residual = 0;   // sum of dY (K - L - S); 0 when l is null
};

// One PAP iteration's backward, after the attention's dK2 = dL/dK2:
//   dS = -(mu dY + dK2),  dR = dS where S != 0 else 0,  dK += mu dY + dK2 + dR,
//   dY_prev = dY + (dR - dK2) / mu,  dL_prev = -dR - mu dY_prev (the earlier iteration's dL,
//   with its own Y update's term).
// dy is read and overwritten with dY_prev. l is the iteration's output L (null for the last
// iteration, whose dY is 0).
template <typename T>
PapMuSums<T> PapBackwardStep(int rows, int cols, const T* k, int64_t ldk, const T* l, const T* s, const T* y_prev,
                             const T* dk2, T mu, T inv_mu, T* dy, T* dk, T* dl_prev);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PAP_STEPS_H_
