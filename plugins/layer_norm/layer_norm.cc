#include "plugins/layer_norm/layer_norm.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/kernels/layer_norm_rows.h"
#include "attention/kernels/parallel.h"
#include "attention/plugin_registry.h"
#include "attention/base/status_macros.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<LayerNorm<T>>> LayerNorm<T>::Create(const Config& config) {
  if (config.has_eps() && !(config.eps() > 0)) return FieldError("eps", "must be > 0");
  return std::unique_ptr<LayerNorm<T>>(new LayerNorm<T>(config));
}

template <typename T>
absl::StatusOr<Shape> LayerNorm<T>::Setup(const Shape& input, ExecContext& ctx) {
  dim_ = input.cols;
  gamma_.name = "gamma";
  beta_.name = "beta";
  RETURN_IF_ERROR(InitParameter(config_.gamma(), {ParamSpec::ONES}, 1, dim_, "gamma", ctx, &gamma_));
  RETURN_IF_ERROR(InitParameter(config_.beta(), {ParamSpec::ZEROS}, 1, dim_, "beta", ctx, &beta_));
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> LayerNorm<T>::OutputShape(const Shape& input) const {
  if (input.cols != dim_) {
    return absl::InvalidArgumentError(
        absl::StrCat("layer_norm was set up for ", dim_, " features, got ", input.ToString()));
  }
  return input;
}

template <typename T>
void LayerNorm<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  const Matrix<T>& x = in.flat();
  const T eps = static_cast<T>(config_.has_eps() ? config_.eps() : 1e-5);
  input_ = &in;
  mean_.resize(x.rows());
  inv_std_.resize(x.rows());
  out->Resize(in.shape());
  const T* gamma = gamma_.value.data();
  const T* beta = beta_.value.data();
  ParallelFor(ctx, static_cast<int>(x.rows()), [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      LayerNormRow(x.row(i).data(), dim_, eps, gamma, beta, out->flat().row(i).data(), &mean_[i],
                   &inv_std_[i]);
    }
  }, GrainFor(dim_));
}

template <typename T>
void LayerNorm<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) {
  BackwardWithResidual(grad_out, nullptr, grad_in, ctx);
}

template <typename T>
void LayerNorm<T>::BackwardAdd(const Tensor<T>& grad_out, const Tensor<T>& grad_residual,
                               Tensor<T>* grad_in, ExecContext& ctx) {
  BackwardWithResidual(grad_out, &grad_residual, grad_in, ctx);
}

template <typename T>
void LayerNorm<T>::BackwardWithResidual(const Tensor<T>& grad_out, const Tensor<T>* grad_residual,
                                        Tensor<T>* grad_in, ExecContext& ctx) {
  const Matrix<T>& g = grad_out.flat();
  const int rows = static_cast<int>(g.rows());
  // One pass over dL/dy: each block of rows adds its share of dgamma and dbeta to its own row
  // of partial sums while it writes dL/dx. The blocks are fixed (not per thread) and their
  // partials are added in block order, so the result is the same with any thread count.
  constexpr int kBlockRows = 256;
  const int blocks = (rows + kBlockRows - 1) / kBlockRows;
  gamma_partials_.resize(blocks, dim_);
  beta_partials_.resize(blocks, dim_);
  const Matrix<T>& x = input_->flat();
  if (grad_in != nullptr) grad_in->Resize(input_->shape());
  const T* gamma = gamma_.value.data();
  ParallelFor(ctx, blocks, [&](int begin, int end) {
    for (int block = begin; block < end; ++block) {
      T* gamma_sum = gamma_partials_.row(block).data();
      T* beta_sum = beta_partials_.row(block).data();
      std::fill(gamma_sum, gamma_sum + dim_, T(0));
      std::fill(beta_sum, beta_sum + dim_, T(0));
      const int last = std::min(rows, (block + 1) * kBlockRows);
      for (int i = block * kBlockRows; i < last; ++i) {
        const T* residual =
            grad_residual == nullptr ? nullptr : grad_residual->flat().row(i).data();
        T* dx = grad_in == nullptr ? nullptr : grad_in->flat().row(i).data();
        LayerNormRowBackward(x.row(i).data(), g.row(i).data(), dim_, mean_[i], inv_std_[i], gamma,
                             residual, gamma_sum, beta_sum, dx);
      }
    }
  });
  gamma_.grad = gamma_partials_.colwise().sum();
  beta_.grad = beta_partials_.colwise().sum();
}

template class LayerNorm<float>;
template class LayerNorm<double>;

ATTNLAB_REGISTER_LAYER("layer_norm", plugins::LayerNormConfig, LayerNorm,
                       "layer normalization per token, with learned gain and bias",
                       {"gamma { init: NORMAL std: 1 } beta { init: NORMAL std: 1 }"});

}  // namespace attnlab
