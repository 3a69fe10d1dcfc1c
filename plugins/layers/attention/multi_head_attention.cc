#include "plugins/layers/attention/multi_head_attention.h"

#include <cmath>
#include <optional>
#include <tuple>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/parallel_product.h"
#include "attention/kernels/product.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<MultiHeadAttention<T>>> MultiHeadAttention<T>::Create(
    const Config& config) {
  for (auto [name, value] :
       {std::pair{"heads", config.heads()}, std::pair{"qk_dim", config.qk_dim()},
        std::pair{"value_dim", config.value_dim()}, std::pair{"output_dim", config.output_dim()}}) {
    if (value < 0) return FieldError(name, "must be >= 0");
  }
  if (config.symmetric() && config.has_q()) {
    return FieldError("q", "symmetric attention has no query map (the queries are the keys)");
  }
  if (config.has_o() && config.output_dim() == 0) {
    return FieldError("o", "the output map needs output_dim > 0");
  }
  if (config.has_scale() && !std::isfinite(config.scale())) {
    return FieldError("scale", "must be finite");
  }
  const std::string name = MechanismName(config.mechanism());
  ASSIGN_OR_RETURN(std::unique_ptr<Mechanism<T>> mechanism,
                   CreateMechanism<T>(name, config.mechanism_config()));
  return std::unique_ptr<MultiHeadAttention<T>>(
      new MultiHeadAttention<T>(config, name, std::move(mechanism)));
}

template <typename T>
absl::StatusOr<Shape> MultiHeadAttention<T>::Setup(const Shape& input, ExecContext& ctx) {
  if (input.rows < 1 || input.cols < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("attention needs [batch, T >= 1, d >= 1] inputs, got ", input.ToString()));
  }
  dim_ = input.cols;
  heads_ = std::max(1, config_.heads());
  for (auto [field, given, width] : {std::tuple{"qk_dim", config_.qk_dim(), &qk_dim_},
                                     std::tuple{"value_dim", config_.value_dim(), &value_dim_}}) {
    if (given > 0) {
      *width = given;
    } else if (dim_ % heads_ == 0) {
      *width = dim_ / heads_;
    } else {
      return FieldError(
          field, absl::StrCat("give it: d = ", dim_, " does not split into ", heads_, " heads"));
    }
  }
  scale_ = static_cast<T>(config_.has_scale() ? config_.scale() : 1 / std::sqrt(double(qk_dim_)));
  if (ctx.cuda() && !mechanism_->CudaHeads()) {
    return FieldError("mechanism", absl::StrCat("device: CUDA has no kernels for '",
                                                mechanism_name_, "' heads (softmax has)"));
  }
  HeadShape shape;
  shape.qk_dim = qk_dim_;
  shape.value_dim = value_dim_;
  shape.width = dim_;
  shape.causal = config_.causal();
  shape.symmetric = symmetric();
  if (absl::Status s = mechanism_->Setup(shape); !s.ok()) return FieldError("mechanism", s);

  const DefaultInit normal{ParamSpec::NORMAL, 1 / std::sqrt(double(dim_))};
  const ParamSpec zeros;
  q_.name = "q";
  k_.name = "k";
  v_.name = "v";
  o_.name = "o";
  bq_.name = "bq";
  bk_.name = "bk";
  bv_.name = "bv";
  bo_.name = "bo";
  if (!symmetric()) {
    RETURN_IF_ERROR(InitParameter(config_.q(), normal, qk_width(), dim_, "q", ctx, &q_));
  }
  RETURN_IF_ERROR(InitParameter(config_.k(), normal, qk_width(), dim_, "k", ctx, &k_));
  RETURN_IF_ERROR(InitParameter(config_.v(), normal, dim_, value_width(), "v", ctx, &v_));
  if (projected_out()) {
    RETURN_IF_ERROR(InitParameter(config_.o(),
                                  {ParamSpec::NORMAL, 1 / std::sqrt(double(value_width()))},
                                  value_width(), config_.output_dim(), "o", ctx, &o_));
  }
  if (config_.bias()) {
    if (!symmetric()) {
      RETURN_IF_ERROR(InitParameter(zeros, {ParamSpec::ZEROS}, 1, qk_width(), "bq", ctx, &bq_));
    }
    RETURN_IF_ERROR(InitParameter(zeros, {ParamSpec::ZEROS}, 1, qk_width(), "bk", ctx, &bk_));
    RETURN_IF_ERROR(InitParameter(zeros, {ParamSpec::ZEROS}, 1, value_width(), "bv", ctx, &bv_));
    if (projected_out()) {
      RETURN_IF_ERROR(
          InitParameter(zeros, {ParamSpec::ZEROS}, 1, config_.output_dim(), "bo", ctx, &bo_));
    }
  }
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> MultiHeadAttention<T>::OutputShape(const Shape& input) const {
  if (input.rows < 1 || input.cols != dim_) {
    return absl::InvalidArgumentError(absl::StrCat("attention was set up for tokens of ", dim_,
                                                   " entries, got ", input.ToString()));
  }
  return Shape{input.batch, input.rows, projected_out() ? config_.output_dim() : value_width()};
}

template <typename T>
std::vector<Parameter<T>*> MultiHeadAttention<T>::parameters() {
  std::vector<Parameter<T>*> params;
  if (!symmetric()) params.push_back(&q_);
  params.push_back(&k_);
  params.push_back(&v_);
  if (projected_out()) params.push_back(&o_);
  if (config_.bias()) {
    if (!symmetric()) params.push_back(&bq_);
    params.push_back(&bk_);
    params.push_back(&bv_);
    if (projected_out()) params.push_back(&bo_);
  }
  return params;
}

template <typename T>
Matrix<T> MultiHeadAttention<T>::QueryKeyMatrix(int head) const {
  const auto k = k_.value.middleRows(head * qk_dim_, qk_dim_);
  const auto q = (symmetric() ? k_ : q_).value.middleRows(head * qk_dim_, qk_dim_);
  Matrix<T> m(k.cols(), k.cols());
  Product(q.transpose(), k, m, /*accumulate=*/false);
  return m;
}

template <typename T>
void MultiHeadAttention<T>::AddQueryKeyGradient(int head, const Matrix<T>& grad) {
  // M = Q_h^T K_h: dQ_h = K_h G^T, dK_h = Q_h G; symmetric (Q = K): dK_h = K_h (G + G^T).
  const auto k = k_.value.middleRows(head * qk_dim_, qk_dim_);
  auto dk = k_.grad.middleRows(head * qk_dim_, qk_dim_);
  if (symmetric()) {
    const Matrix<T> symmetrized = grad + grad.transpose();
    Product(k, symmetrized, dk, /*accumulate=*/true);
    return;
  }
  const auto q = q_.value.middleRows(head * qk_dim_, qk_dim_);
  Product(k, grad.transpose(), q_.grad.middleRows(head * qk_dim_, qk_dim_), /*accumulate=*/true);
  Product(q, grad, dk, /*accumulate=*/true);
}

template <typename T>
void MultiHeadAttention<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  ForwardWithResidual(in, nullptr, out, ctx);
}

template <typename T>
void MultiHeadAttention<T>::ForwardAdd(const Tensor<T>& in, const Tensor<T>& residual,
                                       Tensor<T>* out, ExecContext& ctx) {
  ForwardWithResidual(in, &residual, out, ctx);
}

template <typename T>
void MultiHeadAttention<T>::ForwardWithResidual(const Tensor<T>& in, const Tensor<T>* residual,
                                                Tensor<T>* out, ExecContext& ctx) {
  input_ = &in;
  const int batch = in.batch(), n = in.rows(), m = qk_dim_, dv = value_dim_;
  const Matrix<T>& x = in.flat();
  auto affine = [&](const auto& weights, const Parameter<T>& bias, Matrix<T>& features) {
    features.resize(x.rows(), weights.cols());
    if (config_.bias()) {
      ParallelAffine(ctx, x, weights, bias.value, features);
    } else {
      ParallelProduct(ctx, x, weights, features);
    }
  };
  affine(k_.value.transpose(), bk_, keys_);
  if (!symmetric()) affine(q_.value.transpose(), bq_, queries_);
  affine(v_.value, bv_, values_);
  const Matrix<T>& queries = symmetric() ? keys_ : queries_;
  probs_.Resize({batch * heads_, n, n});
  concat_.resize(x.rows(), value_width());
  if (OnGpu(ctx)) {
    ForwardOnGpu(batch, n);
  } else {
    mechanism_->Prepare(batch * heads_);
    ParallelFor(ctx, batch, [&](int begin, int end) {
      for (int b = begin; b < end; ++b) {
        for (int h = 0; h < heads_; ++h) {
          mechanism_->Forward(b * heads_ + h, queries.block(int64_t(b) * n, h * m, n, m),
                              keys_.block(int64_t(b) * n, h * m, n, m),
                              values_.block(int64_t(b) * n, h * dv, n, dv), scale_,
                              probs_.sample(b * heads_ + h),
                              concat_.block(int64_t(b) * n, h * dv, n, dv));
        }
      }
    });
  }
  out->Resize(*OutputShape(in.shape()));
  if (!projected_out()) {
    out->flat() = concat_;
    if (residual != nullptr) out->flat() += residual->flat();
    return;
  }
  const T* bias = config_.bias() ? bo_.value.data() : nullptr;
  if (residual != nullptr) {
    ParallelAffineAdd(ctx, concat_, o_.value, bias, residual->flat(), out->flat());
  } else if (bias != nullptr) {
    ParallelAffine(ctx, concat_, o_.value, bo_.value, out->flat());
  } else {
    ParallelProduct(ctx, concat_, o_.value, out->flat());
  }
}

template <typename T>
void MultiHeadAttention<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in,
                                     ExecContext& ctx) {
  const int batch = input_->batch(), n = input_->rows(), m = qk_dim_, dv = value_dim_;
  const Matrix<T>& x = input_->flat();
  const bool bias = config_.bias();
  const Matrix<T>* grad_concat = &grad_out.flat();
  if (projected_out()) {
    const Matrix<T>& g = grad_out.flat();
    TokenProducts(ctx, concat_, g, o_.grad, nullptr, bias ? &bo_.grad : nullptr);
    grad_concat_.resize(concat_.rows(), concat_.cols());
    ParallelProduct(ctx, g, o_.value.transpose(), grad_concat_);
    grad_concat = &grad_concat_;
  }
  grad_keys_.resize(x.rows(), qk_width());
  if (!symmetric()) grad_queries_.resize(x.rows(), qk_width());
  grad_values_.resize(x.rows(), value_width());
  const Matrix<T>& queries = symmetric() ? keys_ : queries_;
  if (OnGpu(ctx)) {
    BackwardOnGpu(*grad_concat, batch, n);
  } else {
    mechanism_->Prepare(batch * heads_);
    ParallelFor(ctx, batch, [&](int begin, int end) {
      for (int b = begin; b < end; ++b) {
        for (int h = 0; h < heads_; ++h) {
          std::optional<HeadBlock<T>> dq;  // symmetric: the keys take the queries' gradient
          if (!symmetric()) dq.emplace(grad_queries_.block(int64_t(b) * n, h * m, n, m));
          mechanism_->Backward(b * heads_ + h, queries.block(int64_t(b) * n, h * m, n, m),
                               keys_.block(int64_t(b) * n, h * m, n, m),
                               values_.block(int64_t(b) * n, h * dv, n, dv), scale_,
                               probs_.sample(b * heads_ + h),
                               grad_concat->block(int64_t(b) * n, h * dv, n, dv),
                               dq ? &*dq : nullptr, grad_keys_.block(int64_t(b) * n, h * m, n, m),
                               grad_values_.block(int64_t(b) * n, h * dv, n, dv));
        }
      }
    });
  }
  // The maps' weight and bias gradients, each from one pass over its features' gradient.
  TokenProducts(ctx, grad_keys_, x, k_.grad, bias ? &bk_.grad : nullptr, nullptr);
  if (!symmetric()) {
    TokenProducts(ctx, grad_queries_, x, q_.grad, bias ? &bq_.grad : nullptr, nullptr);
  }
  TokenProducts(ctx, x, grad_values_, v_.grad, nullptr, bias ? &bv_.grad : nullptr);
  if (grad_in == nullptr) return;
  grad_in->Resize(input_->shape());
  ParallelProduct(ctx, grad_keys_, k_.value, grad_in->flat());
  if (!symmetric()) {
    ParallelProduct(ctx, grad_queries_, q_.value, grad_in->flat(), /*accumulate=*/true);
  }
  ParallelProduct(ctx, grad_values_, v_.value.transpose(), grad_in->flat(), /*accumulate=*/true);
}

template <typename T>
bool MultiHeadAttention<T>::OnGpu(const ExecContext& ctx) const {
  return std::is_same_v<T, float> && ctx.cuda();  // Setup refused other mechanisms
}

template <typename T>
void MultiHeadAttention<T>::ForwardOnGpu(int batch, int n) {
  const int m = qk_dim_, dv = value_dim_, heads = heads_;
  const Matrix<T>& queries = symmetric() ? keys_ : queries_;
  // One contiguous block per (sample, head), as the kernels take them.
  gpu_q_.resize(int64_t(batch) * heads * n, m);
  gpu_k_.resize(int64_t(batch) * heads * n, m);
  gpu_v_.resize(int64_t(batch) * heads * n, dv);
  gpu_out_.resize(int64_t(batch) * heads * n, dv);
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      const int64_t e = int64_t(b) * heads + h;
      gpu_q_.middleRows(e * n, n) = queries.block(int64_t(b) * n, h * m, n, m);
      gpu_k_.middleRows(e * n, n) = keys_.block(int64_t(b) * n, h * m, n, m);
      gpu_v_.middleRows(e * n, n) = values_.block(int64_t(b) * n, h * dv, n, dv);
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    mechanism_->CudaForward(gpu_q_.data(), gpu_k_.data(), gpu_v_.data(), batch * heads, n, scale_,
                            config_.causal(), probs_.data(), gpu_out_.data());
  }
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      concat_.block(int64_t(b) * n, h * dv, n, dv) =
          gpu_out_.middleRows((int64_t(b) * heads + h) * n, n);
    }
  }
}

template <typename T>
void MultiHeadAttention<T>::BackwardOnGpu(const Matrix<T>& grad_concat, int batch, int n) {
  const int m = qk_dim_, dv = value_dim_, heads = heads_;
  for (int b = 0; b < batch; ++b) {  // dL/dH into the layout of the forward's output
    for (int h = 0; h < heads; ++h) {
      gpu_out_.middleRows((int64_t(b) * heads + h) * n, n) =
          grad_concat.block(int64_t(b) * n, h * dv, n, dv);
    }
  }
  if constexpr (std::is_same_v<T, float>) {  // the gradients overwrite the packed Q, K, V
    mechanism_->CudaBackward(gpu_out_.data(), gpu_q_.data(), gpu_k_.data(), gpu_v_.data());
  }
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      const int64_t e = int64_t(b) * heads + h;
      auto dk = grad_keys_.block(int64_t(b) * n, h * m, n, m);
      dk = gpu_k_.middleRows(e * n, n);
      if (symmetric()) {
        dk += gpu_q_.middleRows(e * n, n);
      } else {
        grad_queries_.block(int64_t(b) * n, h * m, n, m) = gpu_q_.middleRows(e * n, n);
      }
      grad_values_.block(int64_t(b) * n, h * dv, n, dv) = gpu_v_.middleRows(e * n, n);
    }
  }
}

template class MultiHeadAttention<float>;
template class MultiHeadAttention<double>;

ATTNLAB_REGISTER_LAYER("attention", plugins::AttentionConfig, MultiHeadAttention,
                       "multi-head attention around a registered mechanism (softmax, rpc, "
                       "sigmoid, ...): query/key/value maps, heads, biases, output map, causal "
                       "or symmetric",
                       // Every form a mechanism is checked in (attention/mechanism_check.h).
                       {"heads: 2 qk_dim: 3 value_dim: 2 bias: true output_dim: 5 causal: true",
                        "symmetric: true heads: 2 qk_dim: 3 bias: true output_dim: 4",
                        "qk_dim: 3 value_dim: 2 scale: 0.7",
                        "causal: true qk_dim: 2 value_dim: 3",
                        "heads: 2 qk_dim: 2 value_dim: 2 bias: true output_dim: 4",
                        // Value width = key width: PAP subtracts its output from the keys.
                        "symmetric: true heads: 2 qk_dim: 2 value_dim: 2 bias: true output_dim: 4",
                        "symmetric: true causal: true qk_dim: 3 value_dim: 3 scale: 0.8"});
ATTNLAB_PLUGIN_USES("layer", "attention", "mechanism/softmax");  // its default mechanism

}  // namespace attnlab
