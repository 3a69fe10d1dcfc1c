// Elementwise activations that keep their derivative for the backward pass.
#ifndef ATTNLAB_ATTENTION_KERNELS_ACTIVATIONS_H_
#define ATTNLAB_ATTENTION_KERNELS_ACTIVATIONS_H_

#include "attention/exec_context.h"
#include "attention/tensor.h"

namespace attnlab {

enum class Activation { kRelu, kGelu, kTanh };

// *out = f(x) and, in x's place, f'(x): what a backward pass multiplies by, so that it
// evaluates no erf, exp or tanh of its own. Rows in parallel; GELU (x Phi(x), the exact erf
// form) in SIMD packets for float.
template <typename T>
void ActivateKeepingDerivative(ExecContext& ctx, Activation f, Matrix<T>* x, Matrix<T>* out);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_ACTIVATIONS_H_
