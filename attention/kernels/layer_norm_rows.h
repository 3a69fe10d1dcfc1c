// Layer normalization of one row and its backward, in packets: the rows of a transformer's
// activations are short (64 values in the ViT), where Eigen's expressions spend more on
// their setup and on recomputing the normalized row than on the arithmetic.
#ifndef ATTNLAB_ATTENTION_KERNELS_LAYER_NORM_ROWS_H_
#define ATTNLAB_ATTENTION_KERNELS_LAYER_NORM_ROWS_H_

namespace attnlab {

// out = (x - mean) inv_std .* gamma + beta over n values, inv_std = 1 / sqrt(var + eps) with
// var the mean squared deviation; writes mean and inv_std. out must not overlap x.
template <typename T>
void LayerNormRow(const T* x, int n, T eps, const T* gamma, const T* beta, T* out, T* mean,
                  T* inv_std);

// The backward of LayerNormRow for dL/dout = dy: gamma_sum += dy .* xhat and beta_sum += dy
// (xhat = (x - mean) inv_std), and, unless dx is null,
// dx = inv_std (dn - mean(dn) - xhat mean(dn .* xhat)) with dn = dy .* gamma, plus residual
// when it is not null.
template <typename T>
void LayerNormRowBackward(const T* x, const T* dy, int n, T mean, T inv_std, const T* gamma,
                          const T* residual, T* gamma_sum, T* beta_sum, T* dx);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_LAYER_NORM_ROWS_H_
