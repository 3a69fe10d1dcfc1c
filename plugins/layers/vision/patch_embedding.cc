#include "plugins/layers/vision/patch_embedding.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/parallel_product.h"
#include "attention/plugin_registry.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<PatchEmbedding<T>>> PatchEmbedding<T>::Create(const Config& config) {
  if (config.channels() <= 0) return FieldError("channels", "missing or not > 0");
  if (config.patch() <= 0) return FieldError("patch", "missing or not > 0");
  if (config.dim() <= 0) return FieldError("dim", "missing or not > 0");
  return std::unique_ptr<PatchEmbedding<T>>(new PatchEmbedding<T>(config));
}

template <typename T>
absl::StatusOr<Shape> PatchEmbedding<T>::Setup(const Shape& input, ExecContext& ctx) {
  const int c = config_.channels(), p = config_.patch();
  if (input.cols % c != 0) {
    return FieldError("channels", absl::StrCat("images [batch, H, W * channels] of ", input.cols,
                                               " columns do not hold ", c, " channels"));
  }
  height_ = input.rows;
  width_ = input.cols / c;
  if (height_ % p != 0 || width_ % p != 0) {
    return FieldError("patch", absl::StrCat(height_, " x ", width_, " images do not split into ", p,
                                            " x ", p, " patches"));
  }
  patches_ = (height_ / p) * (width_ / p);
  first_ = config_.class_token() ? 1 : 0;
  const int fan_in = p * p * c, d = config_.dim();
  w_.name = "w";
  b_.name = "b";
  class_token_.name = "class_token";
  positions_.name = "positions";
  RETURN_IF_ERROR(InitParameter(config_.w(), {ParamSpec::NORMAL, 1 / std::sqrt(double(fan_in))},
                                fan_in, d, "w", ctx, &w_));
  RETURN_IF_ERROR(InitParameter(ParamSpec(), {ParamSpec::ZEROS}, 1, d, "", ctx, &b_));
  if (config_.class_token()) {
    RETURN_IF_ERROR(
        InitParameter(ParamSpec(), {ParamSpec::NORMAL, 0.02}, 1, d, "", ctx, &class_token_));
  }
  if (config_.positions()) {
    RETURN_IF_ERROR(InitParameter(ParamSpec(), {ParamSpec::NORMAL, 0.02}, first_ + patches_, d, "",
                                  ctx, &positions_));
  }
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> PatchEmbedding<T>::OutputShape(const Shape& input) const {
  if (input.rows != height_ || input.cols != width_ * config_.channels()) {
    return absl::InvalidArgumentError(absl::StrCat("patch_embedding was set up for ", height_,
                                                   " x ", width_, " images, got ",
                                                   input.ToString()));
  }
  return Shape{input.batch, first_ + patches_, config_.dim()};
}

template <typename T>
std::vector<Parameter<T>*> PatchEmbedding<T>::parameters() {
  std::vector<Parameter<T>*> params = {&w_, &b_};
  if (config_.class_token()) params.push_back(&class_token_);
  if (config_.positions()) params.push_back(&positions_);
  return params;
}

template <typename T>
void PatchEmbedding<T>::Gather(const Tensor<T>& in, Matrix<T>* patches, ExecContext& ctx) const {
  const int p = config_.patch(), c = config_.channels(), across = width_ / p;
  patches->resize(int64_t(in.batch()) * patches_, p * p * c);
  ParallelFor(
      ctx, in.batch(),
      [&](int begin, int end) {
        for (int b = begin; b < end; ++b) {
          const auto image = in.sample(b);
          for (int k = 0; k < patches_; ++k) {
            const int row0 = (k / across) * p, col0 = (k % across) * p * c;
            auto patch = patches->row(int64_t(b) * patches_ + k);
            for (int r = 0; r < p; ++r) {
              patch.segment(r * p * c, p * c) = image.row(row0 + r).segment(col0, p * c);
            }
          }
        }
      },
      GrainFor(int64_t(patches_) * p * p * c));
}

template <typename T>
void PatchEmbedding<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  input_shape_ = in.shape();
  Gather(in, &patch_rows_, ctx);
  projected_.resize(patch_rows_.rows(), config_.dim());
  ParallelAffine(ctx, patch_rows_, w_.value, b_.value, projected_);
  out->Resize(*OutputShape(in.shape()));
  ParallelFor(
      ctx, in.batch(),
      [&](int begin, int end) {
        for (int b = begin; b < end; ++b) {
          auto tokens = out->sample(b);
          if (first_) tokens.row(0) = class_token_.value.row(0);
          tokens.bottomRows(patches_) = projected_.middleRows(int64_t(b) * patches_, patches_);
          if (config_.positions()) tokens += positions_.value;
        }
      },
      GrainFor(int64_t(first_ + patches_) * config_.dim()));
}

template <typename T>
void PatchEmbedding<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) {
  const int batch = grad_out.batch();
  grad_projected_.resize(int64_t(batch) * patches_, config_.dim());
  if (first_) class_token_.grad.setZero();
  if (config_.positions()) positions_.grad.setZero();
  for (int b = 0; b < batch; ++b) {
    const auto g = grad_out.sample(b);
    grad_projected_.middleRows(int64_t(b) * patches_, patches_) = g.bottomRows(patches_);
    if (first_) class_token_.grad += g.row(0);
    if (config_.positions()) positions_.grad += g;
  }
  TokenProducts(ctx, patch_rows_, grad_projected_, w_.grad, nullptr, &b_.grad);
  if (grad_in == nullptr) return;
  // Scatter the patch gradients back to pixels (every pixel is in exactly one patch).
  Matrix<T> grad_patches(grad_projected_.rows(), w_.value.rows());
  ParallelProduct(ctx, grad_projected_, w_.value.transpose(), grad_patches);
  const int p = config_.patch(), c = config_.channels(), across = width_ / p;
  grad_in->Resize(input_shape_);
  for (int b = 0; b < batch; ++b) {
    auto image = grad_in->sample(b);
    for (int k = 0; k < patches_; ++k) {
      const int row0 = (k / across) * p, col0 = (k % across) * p * c;
      const auto patch = grad_patches.row(int64_t(b) * patches_ + k);
      for (int r = 0; r < p; ++r)
        image.row(row0 + r).segment(col0, p * c) = patch.segment(r * p * c, p * c);
    }
  }
  (void)ctx;
}

template class PatchEmbedding<float>;
template class PatchEmbedding<double>;

ATTNLAB_REGISTER_LAYER("patch_embedding", plugins::PatchEmbeddingConfig, PatchEmbedding,
                       "a vision transformer's patch embedding, class token and positions",
                       {"channels: 2 patch: 1 dim: 3 class_token: true positions: true",
                        "channels: 4 patch: 1 dim: 2"});

}  // namespace attnlab
