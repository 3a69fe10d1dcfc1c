#include "plugins/layer_norm/layer_norm.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
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
  const auto gamma = gamma_.value.row(0).array(), beta = beta_.value.row(0).array();
  ParallelFor(ctx, static_cast<int>(x.rows()), [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const T mean = mean_[i] = x.row(i).mean();
      const T var = (x.row(i).array() - mean).square().mean();
      inv_std_[i] = 1 / std::sqrt(var + eps);
      out->flat().row(i) = ((x.row(i).array() - mean) * inv_std_[i]) * gamma + beta;
    }
  });
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
  const auto gamma = gamma_.value.row(0).array();
  ParallelFor(ctx, blocks, [&](int begin, int end) {
    for (int block = begin; block < end; ++block) {
      auto gamma_sum = gamma_partials_.row(block);
      auto beta_sum = beta_partials_.row(block);
      gamma_sum.setZero();
      beta_sum.setZero();
      const int last = std::min(rows, (block + 1) * kBlockRows);
      for (int i = block * kBlockRows; i < last; ++i) {
        const auto gi = g.row(i);
        const auto ni = ((x.row(i).array() - mean_[i]) * inv_std_[i]).matrix();  // as Forward
        gamma_sum += gi.cwiseProduct(ni);
        beta_sum += gi;
        if (grad_in == nullptr) continue;
        // dx = inv_std * (dn - mean(dn) - n * mean(dn .* n)), dn = dy .* gamma.
        const auto dn = (gi.array() * gamma).matrix();
        const T mean_dn = dn.mean();
        const T mean_dn_n = dn.cwiseProduct(ni).mean();
        auto dx = grad_in->flat().row(i);
        if (grad_residual == nullptr) {
          dx = inv_std_[i] * (dn.array() - mean_dn - ni.array() * mean_dn_n).matrix();
        } else {
          dx = grad_residual->flat().row(i) +
               inv_std_[i] * (dn.array() - mean_dn - ni.array() * mean_dn_n).matrix();
        }
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
