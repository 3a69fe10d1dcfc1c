#include "plugins/softmax/softmax_attention.h"

#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/parallel_product.h"
#include "attention/plugin_registry.h"
#include "attention/kernels/softmax.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/token_passes.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<SoftmaxAttention<T>>> SoftmaxAttention<T>::Create(
    const Config& config) {
  const bool prompt = config.query() == Config::PROMPT;
  for (auto [name, value] : {std::pair{"qk_dim", config.qk_dim()},
                             std::pair{"value_dim", config.value_dim()},
                             std::pair{"heads", config.heads()},
                             std::pair{"output_dim", config.output_dim()}}) {
    if (value < 0) return FieldError(name, "must be >= 0");
  }
  if (config.qk_dim() == 0 && (config.has_k() || config.has_q())) {
    return FieldError(config.has_k() ? "k" : "q", "k and q need qk_dim > 0 (else use w)");
  }
  if (config.qk_dim() > 0 && config.has_w()) {
    return FieldError("w", "w is the unfactored form; with qk_dim > 0 give k and q");
  }
  if (config.heads() > 1 && config.qk_dim() == 0) {
    return FieldError("heads", "several heads need qk_dim (the query/key size per head)");
  }
  if (config.bias() && config.qk_dim() == 0) {
    return FieldError("bias", "query and key biases need the factored form (qk_dim > 0)");
  }
  if (config.has_o() && config.output_dim() == 0) {
    return FieldError("o", "the output map needs output_dim > 0");
  }
  if (!prompt && config.has_p()) return FieldError("p", "p is only used with query: PROMPT");
  if (prompt && config.causal()) return FieldError("causal", "needs query: SELF");
  if (config.has_scale() && !std::isfinite(config.scale())) {
    return FieldError("scale", "must be finite");
  }
  return std::unique_ptr<SoftmaxAttention<T>>(new SoftmaxAttention<T>(config));
}

template <typename T>
absl::StatusOr<Shape> SoftmaxAttention<T>::Setup(const Shape& input, ExecContext& ctx) {
  if (input.rows < 1 || input.cols < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("softmax attention needs [batch, T >= 1, d >= 1] inputs, got ",
                     input.ToString()));
  }
  dim_ = input.cols;
  heads_ = std::max(1, config_.heads());
  qk_dim_ = factored() ? config_.qk_dim() : dim_;
  if (config_.value_dim() > 0) {
    value_dim_ = config_.value_dim();
  } else if (prompt()) {
    value_dim_ = 1;
  } else if (dim_ % heads_ == 0) {
    value_dim_ = dim_ / heads_;
  } else {
    return FieldError("value_dim", absl::StrCat("give it: d = ", dim_, " does not split into ",
                                                heads_, " heads"));
  }
  scale_ = static_cast<T>(config_.has_scale() ? config_.scale()
                          : prompt()          ? 1.0
                                              : 1.0 / std::sqrt(static_cast<double>(qk_dim_)));
  const DefaultInit normal{ParamSpec::NORMAL, 1.0 / std::sqrt(static_cast<double>(dim_))};
  const int qk = heads_ * qk_dim_;
  p_.name = "p";
  w_.name = "w";
  k_.name = "k";
  q_.name = "q";
  v_.name = "v";
  o_.name = "o";
  bq_.name = "bq";
  bk_.name = "bk";
  bv_.name = "bv";
  bo_.name = "bo";
  if (prompt()) {
    RETURN_IF_ERROR(InitParameter(config_.p(), {ParamSpec::ZEROS}, dim_, 1, "p", ctx, &p_));
  }
  if (factored()) {
    RETURN_IF_ERROR(InitParameter(config_.k(), normal, qk, dim_, "k", ctx, &k_));
    RETURN_IF_ERROR(InitParameter(config_.q(), normal, qk, dim_, "q", ctx, &q_));
  } else {
    RETURN_IF_ERROR(InitParameter(config_.w(), {ParamSpec::IDENTITY}, dim_, dim_, "w", ctx, &w_));
  }
  RETURN_IF_ERROR(InitParameter(config_.v(), normal, dim_, concat_dim(), "v", ctx, &v_));
  if (projected_out()) {
    const DefaultInit normal_o{ParamSpec::NORMAL, 1.0 / std::sqrt(double(concat_dim()))};
    RETURN_IF_ERROR(
        InitParameter(config_.o(), normal_o, concat_dim(), config_.output_dim(), "o", ctx, &o_));
  }
  if (config_.bias()) {
    const ParamSpec zeros;
    RETURN_IF_ERROR(InitParameter(zeros, {ParamSpec::ZEROS}, 1, qk, "bq", ctx, &bq_));
    RETURN_IF_ERROR(InitParameter(zeros, {ParamSpec::ZEROS}, 1, qk, "bk", ctx, &bk_));
    RETURN_IF_ERROR(InitParameter(zeros, {ParamSpec::ZEROS}, 1, concat_dim(), "bv", ctx, &bv_));
    if (projected_out()) {
      RETURN_IF_ERROR(
          InitParameter(zeros, {ParamSpec::ZEROS}, 1, config_.output_dim(), "bo", ctx, &bo_));
    }
  }
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> SoftmaxAttention<T>::OutputShape(const Shape& input) const {
  if (input.rows < 1 || input.cols != dim_) {
    return absl::InvalidArgumentError(absl::StrCat("softmax attention was set up for tokens of ",
                                                   dim_, " entries, got ", input.ToString()));
  }
  return Shape{input.batch, prompt() ? 1 : input.rows,
               projected_out() ? config_.output_dim() : concat_dim()};
}

template <typename T>
std::vector<Parameter<T>*> SoftmaxAttention<T>::parameters() {
  std::vector<Parameter<T>*> params;
  if (prompt()) params.push_back(&p_);
  if (factored()) {
    params.push_back(&k_);
    params.push_back(&q_);
  } else {
    params.push_back(&w_);
  }
  params.push_back(&v_);
  if (projected_out()) params.push_back(&o_);
  if (config_.bias()) {
    params.push_back(&bq_);
    params.push_back(&bk_);
    params.push_back(&bv_);
    if (projected_out()) params.push_back(&bo_);
  }
  return params;
}

template <typename T>
Matrix<T> SoftmaxAttention<T>::QueryKeyMatrix(int head) const {
  // s(u, x) = x^T W u = u^T W^T x; factored: (Q_h u) . (K_h x) = u^T Q_h^T K_h x.
  if (!factored()) return w_.value.transpose();
  return q_.value.middleRows(head * qk_dim_, qk_dim_).transpose() *
         k_.value.middleRows(head * qk_dim_, qk_dim_);
}

template <typename T>
void SoftmaxAttention<T>::AddQueryKeyGradient(int head, const Matrix<T>& grad) {
  if (!factored()) {  // M = W^T
    w_.grad += grad.transpose();
    return;
  }
  // M = Q_h^T K_h: dQ_h = K_h G^T, dK_h = Q_h G.
  const auto q = q_.value.middleRows(head * qk_dim_, qk_dim_);
  const auto k = k_.value.middleRows(head * qk_dim_, qk_dim_);
  q_.grad.middleRows(head * qk_dim_, qk_dim_).noalias() += k * grad.transpose();
  k_.grad.middleRows(head * qk_dim_, qk_dim_).noalias() += q * grad;
}

template <typename T>
void SoftmaxAttention<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  input_ = &in;
  const int batch = in.batch(), seq_len = in.rows(), queries = prompt() ? 1 : seq_len;
  const int m = qk_dim_, dv = value_dim_;
  const Matrix<T>& x = in.flat();  // (B*T) x d
  values_.resize(x.rows(), concat_dim());
  // The key features: X K^T, X W, or X itself (read in place).
  const Matrix<T>& key_features = prompt_through_w() ? x : key_features_;
  if (!prompt_through_w()) key_features_.resize(x.rows(), heads_ * m);
  if (factored()) {
    ParallelProduct(ctx, x, k_.value.transpose(), key_features_);
  } else if (!prompt_through_w()) {
    ParallelProduct(ctx, x, w_.value, key_features_);
  }
  // Paper 1's form computes each sample's values next to its scores (ForwardPromptThroughW).
  if (!prompt_through_w()) ParallelProduct(ctx, x, v_.value, values_);
  if (prompt_through_w()) {
    query_features_ = (w_.value * p_.value).transpose();  // s_i = x_i^T (W p)
  } else if (prompt()) {
    // One query for every sample: p^T (unfactored) or (Q p)^T.
    query_features_ = factored() ? Matrix<T>((q_.value * p_.value).transpose())
                                 : Matrix<T>(p_.value.transpose());
  } else if (factored()) {
    query_features_.resize(x.rows(), heads_ * m);
    ParallelProduct(ctx, x, q_.value.transpose(), query_features_);
  } else {
    query_features_ = x;
  }
  if (config_.bias()) {
    key_features_.rowwise() += bk_.value.row(0);
    query_features_.rowwise() += bq_.value.row(0);
    values_.rowwise() += bv_.value.row(0);
  }
  probs_.Resize({batch * heads_, queries, seq_len});
  concat_.resize(int64_t(batch) * queries, concat_dim());
  if (OnGpu(ctx)) {
    ForwardOnGpu(key_features, batch, seq_len, queries);
    FinishForward(in, out, ctx);
    return;
  }
  if (prompt_through_w()) {
    ForwardPromptThroughW(x, batch, seq_len, ctx);
    FinishForward(in, out, ctx);
    return;
  }
  ParallelFor(ctx, batch, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      for (int h = 0; h < heads_; ++h) {
        const auto keys = key_features.block(int64_t(b) * seq_len, h * m, seq_len, m);
        const auto query = prompt() ? query_features_.block(0, h * m, 1, m)
                                    : query_features_.block(int64_t(b) * seq_len, h * m, seq_len, m);
        auto a = probs_.sample(b * heads_ + h);
        a.noalias() = scale_ * query * keys.transpose();
        if (config_.causal()) {
          for (int i = 0; i + 1 < seq_len; ++i) {
            a.row(i).tail(seq_len - i - 1).setConstant(-std::numeric_limits<T>::infinity());
          }
        }
        SoftmaxRows(a, a);
        concat_.block(int64_t(b) * queries, h * dv, queries, dv).noalias() =
            a * values_.block(int64_t(b) * seq_len, h * dv, seq_len, dv);
      }
    }
  });
  FinishForward(in, out, ctx);
}

// Sample by sample, two passes over its tokens X_b (token_passes.h): the dots of X_b with
// (W p) and the value maps, then, after the softmax, the token moments X_b^T a_b and
// X_b^T (a_b * (V_b[:, j] - out_bj)) that Backward needs, while X_b is in cache.
template <typename T>
void SoftmaxAttention<T>::ForwardPromptThroughW(const Matrix<T>& x, int batch, int seq_len,
                                                ExecContext& ctx) {
  const int dv = value_dim_, count = 1 + dv;
  prompt_vectors_.resize(count, dim_);
  prompt_vectors_.row(0) = query_features_;
  prompt_vectors_.bottomRows(dv) = v_.value.transpose();
  prompt_dots_.resize(batch, int64_t(count) * seq_len);
  token_moments_.resize(batch, int64_t(count) * dim_);
  ParallelFor(ctx, batch, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      const T* tokens = x.data() + int64_t(b) * seq_len * dim_;
      const T* next = b + 1 < end ? tokens + int64_t(seq_len) * dim_ : nullptr;
      // Row 0: X_b (W p); row 1 + j: X_b V[:, j].
      Eigen::Map<Matrix<T>> dots(prompt_dots_.row(b).data(), count, seq_len);
      TokenDots(tokens, seq_len, dim_, prompt_vectors_.data(), count, dots.data(), next);
      auto values = values_.middleRows(int64_t(b) * seq_len, seq_len);
      values = dots.bottomRows(dv).transpose();
      auto a = probs_.sample(b);  // 1 x T
      dots.row(0) *= scale_;
      SoftmaxRows(dots.row(0), a);
      concat_.row(b).noalias() = a * values;
      // In place, the moments' weights: a_b, and the softmax backward of each V_b[:, j]
      // (a_b * (V_b[:, j] - out_bj) in its stable form).
      dots.row(0) = a;
      for (int j = 1; j < count; ++j) SoftmaxRowsBackward(a, dots.row(j), dots.row(j));
      WeightedTokenSums(tokens, seq_len, dim_, dots.data(), count, token_moments_.row(b).data(),
                        next);
    }
  });
}

template <typename T>
void SoftmaxAttention<T>::FinishForward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  out->Resize(*OutputShape(in.shape()));
  if (projected_out()) {
    if (config_.bias()) {
      ParallelAffine(ctx, concat_, o_.value, bo_.value, out->flat());
    } else {
      ParallelProduct(ctx, concat_, o_.value, out->flat());
    }
  } else {
    out->flat() = concat_;
  }
}

template <typename T>
void SoftmaxAttention<T>::ForwardOnGpu(const Matrix<T>& key_features, int batch, int seq_len,
                                       int queries) {
  const int m = qk_dim_, dv = value_dim_, heads = heads_;
  // One contiguous block per (sample, head), as the kernels take them.
  gpu_q_.resize(int64_t(batch) * heads * queries, m);
  gpu_k_.resize(int64_t(batch) * heads * seq_len, m);
  gpu_v_.resize(int64_t(batch) * heads * seq_len, dv);
  gpu_out_.resize(int64_t(batch) * heads * queries, dv);
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      const int64_t e = int64_t(b) * heads + h;
      gpu_q_.middleRows(e * queries, queries) =
          prompt() ? query_features_.block(0, h * m, 1, m)
                   : query_features_.block(int64_t(b) * seq_len, h * m, seq_len, m);
      gpu_k_.middleRows(e * seq_len, seq_len) =
          key_features.block(int64_t(b) * seq_len, h * m, seq_len, m);
      gpu_v_.middleRows(e * seq_len, seq_len) =
          values_.block(int64_t(b) * seq_len, h * dv, seq_len, dv);
    }
  }
  if (gpu_ == nullptr) gpu_ = std::make_unique<GpuAttention>();
  if constexpr (std::is_same_v<T, float>) {
    gpu_->Forward(gpu_q_.data(), gpu_k_.data(), gpu_v_.data(), batch * heads, queries, seq_len,
                  m, dv, scale_, config_.causal(), probs_.data(), gpu_out_.data());
  }
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      concat_.block(int64_t(b) * queries, h * dv, queries, dv) =
          gpu_out_.middleRows((int64_t(b) * heads + h) * queries, queries);
    }
  }
}

template <typename T>
void SoftmaxAttention<T>::BackwardOnGpu(const Matrix<T>& grad_concat, int batch, int seq_len,
                                        int queries) {
  const int m = qk_dim_, dv = value_dim_, heads = heads_;
  for (int b = 0; b < batch; ++b) {  // dL/dO into the layout of the forward's output
    for (int h = 0; h < heads; ++h) {
      gpu_out_.middleRows((int64_t(b) * heads + h) * queries, queries) =
          grad_concat.block(int64_t(b) * queries, h * dv, queries, dv);
    }
  }
  if constexpr (std::is_same_v<T, float>) {  // the gradients overwrite the packed Q, K, V
    gpu_->Backward(gpu_out_.data(), gpu_q_.data(), gpu_k_.data(), gpu_v_.data());
  }
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      const int64_t e = int64_t(b) * heads + h;
      grad_query_features_.block(int64_t(b) * queries, h * m, queries, m) =
          gpu_q_.middleRows(e * queries, queries);
      grad_key_features_.block(int64_t(b) * seq_len, h * m, seq_len, m) =
          gpu_k_.middleRows(e * seq_len, seq_len);
      grad_values_.block(int64_t(b) * seq_len, h * dv, seq_len, dv) =
          gpu_v_.middleRows(e * seq_len, seq_len);
    }
  }
}

template <typename T>
void SoftmaxAttention<T>::BackwardOnCpu(const Matrix<T>& grad_concat, bool key_gradient,
                                        int batch, int seq_len, int queries, ExecContext& ctx) {
  const int m = qk_dim_, dv = value_dim_;
  const Matrix<T>& x = input_->flat();
  const Matrix<T>& key_features = prompt_through_w() ? x : key_features_;
  ParallelFor(ctx, batch, [&](int begin, int end) {
    Matrix<T> grad_scores;  // this thread's scratch
    for (int b = begin; b < end; ++b) {
      for (int h = 0; h < heads_; ++h) {
        const auto a = probs_.sample(b * heads_ + h);
        const auto dc = grad_concat.block(int64_t(b) * queries, h * dv, queries, dv);
        const auto values = values_.block(int64_t(b) * seq_len, h * dv, seq_len, dv);
        grad_values_.block(int64_t(b) * seq_len, h * dv, seq_len, dv).noalias() =
            a.transpose() * dc;
        grad_scores.noalias() = dc * values.transpose();  // dL/dA, queries x T
        SoftmaxRowsBackward(a, grad_scores, grad_scores);
        grad_scores *= scale_;
        const auto keys = key_features.block(int64_t(b) * seq_len, h * m, seq_len, m);
        const auto query = prompt() ? query_features_.block(0, h * m, 1, m)
                                    : query_features_.block(int64_t(b) * seq_len, h * m, seq_len, m);
        grad_query_features_.block(int64_t(b) * queries, h * m, queries, m).noalias() =
            grad_scores * keys;
        if (key_gradient) {
          grad_key_features_.block(int64_t(b) * seq_len, h * m, seq_len, m).noalias() =
              grad_scores.transpose() * query;
        }
      }
      if (prompt_through_w()) {  // this sample's X_b^T dL/dValues_b, while X_b is in cache
        Eigen::Map<Matrix<T>>(grad_v_parts_.row(b).data(), v_.value.rows(), v_.value.cols())
            .noalias() = x.middleRows(int64_t(b) * seq_len, seq_len).transpose() *
                         grad_values_.middleRows(int64_t(b) * seq_len, seq_len);
      }
    }
  });
}

template <typename T>
void SoftmaxAttention<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in,
                                   ExecContext& ctx) {
  const int batch = input_->batch(), seq_len = input_->rows(), queries = prompt() ? 1 : seq_len;
  const int m = qk_dim_, dv = value_dim_;
  const Matrix<T>& x = input_->flat();
  const Matrix<T>& g = grad_out.flat();
  if (projected_out()) {
    o_.grad.noalias() = concat_.transpose() * g;
    if (config_.bias()) bo_.grad = g.colwise().sum();
    grad_concat_.resize(concat_.rows(), concat_dim());
    ParallelProduct(ctx, g, o_.value.transpose(), grad_concat_);
  }
  const Matrix<T>& grad_concat = projected_out() ? grad_concat_ : g;
  if (prompt_through_w() && grad_in == nullptr) {
    // With out_b = a_b V_b and dL/dout_b = c_b (1 x value_dim): dL/dV = sum_b (X_b^T a_b^T) c_b
    // and dL/d(W p) = scale * sum_b sum_j c_bj X_b^T (a_b * (V_b[:, j] - out_bj)), from the
    // products Forward kept; the sums over b run in sample order (any thread count, same bits).
    v_.grad.noalias() = token_moments_.leftCols(dim_).transpose() * grad_concat;
    Matrix<T>& grad_query = grad_query_features_;  // 1 x d
    grad_query.setZero(1, dim_);
    for (int j = 0; j < dv; ++j) {
      grad_query.noalias() += grad_concat.col(j).transpose() *
                              token_moments_.middleCols(int64_t(1 + j) * dim_, dim_);
    }
    grad_query *= scale_;
    p_.grad.noalias() = w_.value.transpose() * grad_query.transpose();
    w_.grad.noalias() = grad_query.transpose() * p_.value.transpose();
    return;
  }
  grad_values_.resize(x.rows(), concat_dim());
  // With keys = X, their gradient only feeds dL/dX.
  const bool key_gradient = !prompt_through_w() || grad_in != nullptr;
  if (key_gradient) grad_key_features_.resize(x.rows(), heads_ * m);
  // PROMPT: one row per sample (the shared query's gradient is their sum, taken in order).
  grad_query_features_.resize(int64_t(batch) * queries, heads_ * m);
  if (prompt_through_w()) grad_v_parts_.resize(batch, v_.value.size());
  if (OnGpu(ctx)) {
    BackwardOnGpu(grad_concat, batch, seq_len, queries);
  } else {
    BackwardOnCpu(grad_concat, key_gradient, batch, seq_len, queries, ctx);
  }
  if (prompt_through_w()) {  // summed in sample order: the same bits for any thread count
    v_.grad.setZero(v_.value.rows(), v_.value.cols());
    for (int b = 0; b < batch; ++b) {
      v_.grad += Eigen::Map<const Matrix<T>>(grad_v_parts_.row(b).data(), v_.value.rows(),
                                             v_.value.cols());
    }
  } else {
    v_.grad.noalias() = x.transpose() * grad_values_;
  }
  if (factored()) {
    k_.grad.noalias() = grad_key_features_.transpose() * x;  // key features = X K^T
  } else if (!prompt_through_w()) {
    w_.grad.noalias() = x.transpose() * grad_key_features_;  // key features = X W
  }
  if (config_.bias()) {
    bv_.grad = grad_values_.colwise().sum();
    bk_.grad = grad_key_features_.colwise().sum();
    bq_.grad = grad_query_features_.colwise().sum();
  }
  if (prompt()) {
    const Matrix<T> grad_query = grad_query_features_.colwise().sum();  // 1 x (heads * m)
    if (factored()) {  // query features = (Q p)^T
      p_.grad.noalias() = (grad_query * q_.value).transpose();
      q_.grad.noalias() = grad_query.transpose() * p_.value.transpose();
    } else if (prompt_through_w()) {  // query features = (W p)^T
      p_.grad.noalias() = w_.value.transpose() * grad_query.transpose();
      w_.grad.noalias() = grad_query.transpose() * p_.value.transpose();
    } else {  // query features = p^T
      p_.grad = grad_query.transpose();
    }
  } else if (factored()) {  // query features = X Q^T
    q_.grad.noalias() = grad_query_features_.transpose() * x;
  }
  if (grad_in == nullptr) return;
  grad_in->Resize(input_->shape());
  Matrix<T>& dx = grad_in->flat();
  ParallelProduct(ctx, grad_values_, v_.value.transpose(), dx);
  if (factored()) {
    dx.noalias() += grad_key_features_ * k_.value;
    if (!prompt()) dx.noalias() += grad_query_features_ * q_.value;
  } else if (prompt_through_w()) {
    dx += grad_key_features_;  // key features = X
  } else {
    dx.noalias() += grad_key_features_ * w_.value.transpose();
    if (!prompt()) dx += grad_query_features_;
  }
}

template class SoftmaxAttention<float>;
template class SoftmaxAttention<double>;

ATTNLAB_REGISTER_LAYER("softmax", plugins::SoftmaxAttentionConfig, SoftmaxAttention,
                       "softmax attention: query: PROMPT is paper 1's f(X) = v^T X^T "
                       "softmax(X W p); query: SELF with heads, bias and output_dim is a "
                       "transformer's multi-head attention",
                       {"query: PROMPT p { init: NORMAL std: 0.5 }",
                        "query: PROMPT qk_dim: 2 value_dim: 2 p { init: NORMAL std: 0.5 }",
                        "query: SELF",
                        "query: SELF qk_dim: 3 value_dim: 2 causal: true",
                        "query: SELF w { init: NORMAL std: 0.4 } scale: 0.7",
                        "query: SELF heads: 2 qk_dim: 3 value_dim: 2 bias: true output_dim: 5 "
                        "causal: true"});

}  // namespace attnlab
