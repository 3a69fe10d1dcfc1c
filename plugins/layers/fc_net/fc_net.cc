#include "plugins/layers/fc_net/fc_net.h"

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/activations.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/parallel_product.h"
#include "attention/plugin_registry.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<FcNet<T>>> FcNet<T>::Create(const Config& config) {
  if (config.output_dim() <= 0) return FieldError("output_dim", "missing or not > 0");
  for (int width : config.hidden()) {
    if (width <= 0) return FieldError("hidden", "widths must be > 0");
  }
  return std::unique_ptr<FcNet<T>>(new FcNet<T>(config));
}

template <typename T>
absl::StatusOr<Shape> FcNet<T>::Setup(const Shape& input, ExecContext& ctx) {
  inputs_ = config_.per_token() ? input.cols : input.rows * input.cols;
  std::vector<int> widths = {inputs_};
  widths.insert(widths.end(), config_.hidden().begin(), config_.hidden().end());
  widths.push_back(config_.output_dim());
  const int layers = static_cast<int>(widths.size()) - 1;
  weights_.resize(layers);
  biases_.resize(layers);
  for (int k = 0; k < layers; ++k) {
    weights_[k].name = absl::StrCat("w", k);
    biases_[k].name = absl::StrCat("b", k);
    const DefaultInit he{ParamSpec::NORMAL, std::sqrt(2.0 / widths[k])};
    const bool torch = config_.init() == Config::TORCH_LINEAR;
    RETURN_IF_ERROR(InitParameter(ParamSpec(), torch ? DefaultInit{ParamSpec::ZEROS} : he,
                                  widths[k], widths[k + 1], "", ctx, &weights_[k]));
    RETURN_IF_ERROR(
        InitParameter(ParamSpec(), {ParamSpec::ZEROS}, 1, widths[k + 1], "", ctx, &biases_[k]));
    if (torch) {
      std::uniform_real_distribution<double> uniform(-1 / std::sqrt(double(widths[k])),
                                                     1 / std::sqrt(double(widths[k])));
      for (Parameter<T>* p : {&weights_[k], &biases_[k]}) {
        for (Eigen::Index i = 0; i < p->value.size(); ++i) {
          p->value.data()[i] = static_cast<T>(uniform(ctx.rng()));
        }
      }
    }
  }
  derivative_.resize(layers - 1);
  post_.resize(layers - 1);
  grad_.resize(layers - 1);
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> FcNet<T>::OutputShape(const Shape& input) const {
  if (config_.per_token()) {
    if (input.cols != inputs_) {
      return absl::InvalidArgumentError(absl::StrCat("fc_net was set up for tokens of ", inputs_,
                                                     " entries, got ", input.ToString()));
    }
    return Shape{input.batch, input.rows, config_.output_dim()};
  }
  if (input.rows * input.cols != inputs_) {
    return absl::InvalidArgumentError(
        absl::StrCat("fc_net was set up for inputs of ", inputs_, " entries per sample, got ",
                     input.ToString(), " (a fully-connected net has a fixed input length)"));
  }
  return Shape{input.batch, 1, config_.output_dim()};
}

template <typename T>
std::vector<Parameter<T>*> FcNet<T>::parameters() {
  std::vector<Parameter<T>*> params;
  for (size_t k = 0; k < weights_.size(); ++k) {
    params.push_back(&weights_[k]);
    params.push_back(&biases_[k]);
  }
  return params;
}

template <typename T>
void FcNet<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  ForwardWithResidual(in, nullptr, out, ctx);
}

template <typename T>
void FcNet<T>::ForwardAdd(const Tensor<T>& in, const Tensor<T>& residual, Tensor<T>* out,
                          ExecContext& ctx) {
  ForwardWithResidual(in, &residual, out, ctx);
}

template <typename T>
void FcNet<T>::ForwardWithResidual(const Tensor<T>& in, const Tensor<T>* residual, Tensor<T>* out,
                                   ExecContext& ctx) {
  input_ = &in;
  const int batch = Rows(in);
  // The flat row-major tensor is already [batch, T * C] (or [batch * T, C]).
  const Eigen::Map<const Matrix<T>> x(in.data(), batch, inputs_);
  const size_t hidden = derivative_.size();
  for (size_t k = 0; k < hidden; ++k) {
    derivative_[k].resize(batch, weights_[k].value.cols());
    if (k == 0) {
      ParallelAffine(ctx, x, weights_[k].value, biases_[k].value, derivative_[k]);
    } else {
      ParallelAffine(ctx, post_[k - 1], weights_[k].value, biases_[k].value, derivative_[k]);
    }
    ActivateKeepingDerivative(ctx, activation(), &derivative_[k], &post_[k]);
  }
  out->Resize(*OutputShape(in.shape()));
  Eigen::Map<Matrix<T>> y(out->data(), batch, config_.output_dim());
  const Matrix<T>& w = weights_[hidden].value;
  const Matrix<T>& bias = biases_[hidden].value;
  auto affine = [&](const auto& features) {
    if (residual == nullptr) {
      ParallelAffine(ctx, features, w, bias, y);
    } else {
      eigen_assert(residual->size() == int64_t(batch) * config_.output_dim());
      const Eigen::Map<const Matrix<T>> r(residual->data(), batch, config_.output_dim());
      ParallelAffineAdd(ctx, features, w, bias.data(), r, y);
    }
  };
  if (hidden == 0) {
    affine(x);
  } else {
    affine(post_[hidden - 1]);
  }
}

template <typename T>
void FcNet<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) {
  const int batch = Rows(*input_);
  const Eigen::Map<const Matrix<T>> x(input_->data(), batch, inputs_);
  // dL/d(output of affine map k): the incoming gradient, then each hidden layer's own buffer
  // (sizes stay fixed from step to step, so nothing is reallocated).
  for (size_t k = weights_.size(); k-- > 0;) {
    const bool top = k + 1 == weights_.size();
    const Eigen::Map<const Matrix<T>> grad(top ? grad_out.data() : grad_[k].data(), batch,
                                           weights_[k].value.cols());
    if (k == 0) {
      TokenProducts(ctx, x, grad, weights_[k].grad, nullptr, &biases_[k].grad);
      if (grad_in == nullptr) return;
      grad_in->Resize(input_->shape());
      Eigen::Map<Matrix<T>> dx(grad_in->data(), batch, inputs_);
      ParallelProduct(ctx, grad, weights_[0].value.transpose(), dx);
      return;
    }
    TokenProducts(ctx, post_[k - 1], grad, weights_[k].grad, nullptr, &biases_[k].grad);
    Matrix<T>& below = grad_[k - 1];
    below.resize(batch, weights_[k].value.rows());
    ParallelProduct(ctx, grad, weights_[k].value.transpose(), below);
    const Matrix<T>& derivative = derivative_[k - 1];
    ParallelFor(
        ctx, batch,
        [&](int begin, int end) {  // dL/d(pre-activation)
          below.middleRows(begin, end - begin).array() *=
              derivative.middleRows(begin, end - begin).array();
        },
        GrainFor(below.cols()));
  }
}

template class FcNet<float>;
template class FcNet<double>;

ATTNLAB_REGISTER_LAYER("fc_net", plugins::FcNetConfig, FcNet,
                       "fully-connected net on the flattened input (paper 3's baselines)",
                       {"output_dim: 3 hidden: [ 7 ]",
                        "output_dim: 2 hidden: [ 6, 5 ] activation: GELU",
                        "output_dim: 1 activation: TANH hidden: [ 4 ]", "output_dim: 2",
                        "output_dim: 4 hidden: [ 5 ] activation: GELU per_token: true"});

}  // namespace attnlab
