#include "plugins/layers/vision/classifier.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/product.h"
#include "attention/plugin_registry.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<Classifier<T>>> Classifier<T>::Create(const Config& config) {
  if (config.classes() <= 0) return FieldError("classes", "missing or not > 0");
  return std::unique_ptr<Classifier<T>>(new Classifier<T>(config));
}

template <typename T>
absl::StatusOr<Shape> Classifier<T>::Setup(const Shape& input, ExecContext& ctx) {
  dim_ = input.cols;
  w_.name = "w";
  b_.name = "b";
  RETURN_IF_ERROR(InitParameter(config_.w(), {ParamSpec::NORMAL, 1 / std::sqrt(double(dim_))}, dim_,
                                config_.classes(), "w", ctx, &w_));
  RETURN_IF_ERROR(
      InitParameter(ParamSpec(), {ParamSpec::ZEROS}, 1, config_.classes(), "", ctx, &b_));
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> Classifier<T>::OutputShape(const Shape& input) const {
  if (input.cols != dim_) {
    return absl::InvalidArgumentError(absl::StrCat("classifier was set up for tokens of ", dim_,
                                                   " entries, got ", input.ToString()));
  }
  return Shape{input.batch, 1, config_.classes()};
}

template <typename T>
void Classifier<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext&) {
  input_shape_ = in.shape();
  pooled_.resize(in.batch(), dim_);
  for (int b = 0; b < in.batch(); ++b) {
    if (config_.pooling() == Config::MEAN) {
      pooled_.row(b) = in.sample(b).colwise().mean();
    } else {
      pooled_.row(b) = in.sample(b).row(0);
    }
  }
  out->Resize({in.batch(), 1, config_.classes()});
  Product(pooled_, w_.value, out->flat(), /*accumulate=*/false, T(1), b_.value.data());
}

template <typename T>
void Classifier<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext&) {
  const Matrix<T>& g = grad_out.flat();
  Product(pooled_.transpose(), g, w_.grad, /*accumulate=*/false);
  b_.grad = g.colwise().sum();
  if (grad_in == nullptr) return;
  Matrix<T> grad_pooled(g.rows(), dim_);
  Product(g, w_.value.transpose(), grad_pooled, /*accumulate=*/false);
  grad_in->Resize(input_shape_);
  grad_in->SetZero();
  for (int b = 0; b < input_shape_.batch; ++b) {
    if (config_.pooling() == Config::MEAN) {
      grad_in->sample(b).rowwise() = grad_pooled.row(b) / static_cast<T>(input_shape_.rows);
    } else {
      grad_in->sample(b).row(0) = grad_pooled.row(b);
    }
  }
}

template class Classifier<float>;
template class Classifier<double>;

ATTNLAB_REGISTER_LAYER("classifier", plugins::ClassifierConfig, Classifier,
                       "class scores from the class token (or the mean token): a linear map",
                       {"classes: 3", "classes: 2 pooling: MEAN"});

}  // namespace attnlab
