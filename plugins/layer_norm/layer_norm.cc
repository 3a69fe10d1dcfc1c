#include "plugins/layer_norm/layer_norm.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/field_error.h"
#include "attention/parallel.h"
#include "attention/plugin_registry.h"
#include "attention/status_macros.h"

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
  input_shape_ = in.shape();
  normalized_.resize(x.rows(), dim_);
  inv_std_.resize(x.rows());
  out->Resize(in.shape());
  ParallelFor(ctx, static_cast<int>(x.rows()), [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const T mean = x.row(i).mean();
      const T var = (x.row(i).array() - mean).square().mean();
      inv_std_[i] = 1 / std::sqrt(var + eps);
      normalized_.row(i) = (x.row(i).array() - mean) * inv_std_[i];
      out->flat().row(i) = normalized_.row(i).cwiseProduct(gamma_.value.row(0)) + beta_.value.row(0);
    }
  });
}

template <typename T>
void LayerNorm<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) {
  const Matrix<T>& g = grad_out.flat();
  gamma_.grad = g.cwiseProduct(normalized_).colwise().sum();
  beta_.grad = g.colwise().sum();
  if (grad_in == nullptr) return;
  grad_in->Resize(input_shape_);
  // dx = inv_std * (dn - mean(dn) - n * mean(dn .* n)), dn = dy .* gamma.
  ParallelFor(ctx, static_cast<int>(g.rows()), [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const auto dn = (g.row(i).array() * gamma_.value.row(0).array()).matrix();
      const T mean_dn = dn.mean();
      const T mean_dn_n = dn.cwiseProduct(normalized_.row(i)).mean();
      grad_in->flat().row(i) =
          inv_std_[i] * (dn.array() - mean_dn - normalized_.row(i).array() * mean_dn_n).matrix();
    }
  });
}

template class LayerNorm<float>;
template class LayerNorm<double>;

ATTNLAB_REGISTER_LAYER("layer_norm", plugins::LayerNormConfig, LayerNorm,
                       "layer normalization per token, with learned gain and bias",
                       {"gamma { init: NORMAL std: 1 } beta { init: NORMAL std: 1 }"});

}  // namespace attnlab
