// Layer normalization of rows and its backward, in packets: the rows of a transformer's
// activations are short (64 values in the ViT), where Eigen's expressions spend more on
// their setup and on recomputing the normalized row than on the arithmetic. A row's
// reductions are serial chains, so rows go several at a time and their chains overlap.
#ifndef ATTNLAB_ATTENTION_KERNELS_LAYER_NORM_ROWS_H_
#define ATTNLAB_ATTENTION_KERNELS_LAYER_NORM_ROWS_H_

#include <cstdint>

namespace attnlab {

// Rows go in groups of this many from the first row of a call, and then one at a time: the
// compiler may fuse a multiply and an add differently in the two, so a row's last bits can
// depend on where a call starts. Callers that split rows among threads split them at multiples
// of it, so the results do not depend on the thread count.
constexpr int kLayerNormGroupRows = 4;

// For each of `rows` rows of n values (x's rows ldx apart, out's ldo):
// out = (x - mean) inv_std .* gamma + beta, inv_std = 1 / sqrt(var + eps) with var the mean
// squared deviation; writes each row's mean and inv_std. out must not overlap x.
template <typename T>
void LayerNormRows(int rows, int n, const T* x, int64_t ldx, T eps, const T* gamma, const T* beta,
                   T* out, int64_t ldo, T* mean, T* inv_std);

// The backward of LayerNormRows for dL/dout = dy (rows ldy apart): gamma_sum += dy .* xhat and
// beta_sum += dy over the rows in order (xhat = (x - mean) inv_std), and, unless dx is null,
// dx = inv_std (dn - mean(dn) - xhat mean(dn .* xhat)) with dn = dy .* gamma, plus residual
// (rows ldr apart) when it is not null.
template <typename T>
void LayerNormRowsBackward(int rows, int n, const T* x, int64_t ldx, const T* dy, int64_t ldy,
                           const T* mean, const T* inv_std, const T* gamma, const T* residual,
                           int64_t ldr, T* gamma_sum, T* beta_sum, T* dx, int64_t lddx);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_LAYER_NORM_ROWS_H_
