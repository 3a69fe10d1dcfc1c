#include "plugins/softmax/softmax_attention.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "attention/field_error.h"
#include "attention/plugin_registry.h"
#include "attention/softmax.h"
#include "attention/status_macros.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<SoftmaxAttention<T>>> SoftmaxAttention<T>::Create(
    const Config& config) {
  const bool prompt = config.query() == Config::PROMPT;
  if (config.qk_dim() < 0) return FieldError("qk_dim", "must be >= 0");
  if (config.value_dim() < 0) return FieldError("value_dim", "must be >= 0");
  if (config.qk_dim() == 0 && (config.has_k() || config.has_q())) {
    return FieldError(config.has_k() ? "k" : "q", "k and q need qk_dim > 0 (else use w)");
  }
  if (config.qk_dim() > 0 && config.has_w()) {
    return FieldError("w", "w is the unfactored form; with qk_dim > 0 give k and q");
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
  value_dim_ = config_.value_dim() > 0 ? config_.value_dim() : (prompt() ? 1 : dim_);
  const int m = factored() ? config_.qk_dim() : dim_;
  scale_ = static_cast<T>(config_.has_scale() ? config_.scale()
                          : prompt()          ? 1.0
                                              : 1.0 / std::sqrt(static_cast<double>(m)));
  const DefaultInit normal{ParamSpec::NORMAL, 1.0 / std::sqrt(static_cast<double>(dim_))};
  p_.name = "p";
  w_.name = "w";
  k_.name = "k";
  q_.name = "q";
  v_.name = "v";
  if (prompt()) {
    RETURN_IF_ERROR(InitParameter(config_.p(), {ParamSpec::ZEROS}, dim_, 1, "p", ctx, &p_));
  }
  if (factored()) {
    RETURN_IF_ERROR(InitParameter(config_.k(), normal, m, dim_, "k", ctx, &k_));
    RETURN_IF_ERROR(InitParameter(config_.q(), normal, m, dim_, "q", ctx, &q_));
  } else {
    RETURN_IF_ERROR(InitParameter(config_.w(), {ParamSpec::IDENTITY}, dim_, dim_, "w", ctx, &w_));
  }
  RETURN_IF_ERROR(InitParameter(config_.v(), normal, dim_, value_dim_, "v", ctx, &v_));
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> SoftmaxAttention<T>::OutputShape(const Shape& input) const {
  if (input.rows < 1 || input.cols != dim_) {
    return absl::InvalidArgumentError(absl::StrCat("softmax attention was set up for tokens of ",
                                                   dim_, " entries, got ", input.ToString()));
  }
  return Shape{input.batch, prompt() ? 1 : input.rows, value_dim_};
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
  return params;
}

template <typename T>
Matrix<T> SoftmaxAttention<T>::QueryKeyMatrix(int /*head*/) const {
  // s(u, x) = x^T W u = u^T W^T x; factored: (Q u) . (K x) = u^T Q^T K x.
  if (factored()) return q_.value.transpose() * k_.value;
  return w_.value.transpose();
}

template <typename T>
void SoftmaxAttention<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& /*ctx*/) {
  input_ = &in;
  const int batch = in.batch(), seq_len = in.rows(), queries = prompt() ? 1 : seq_len;
  const Matrix<T>& x = in.flat();  // (B*T) x d
  if (factored()) key_map_t_ = k_.value.transpose();
  key_features_.noalias() = x * KeyMap();
  values_.noalias() = x * v_.value;
  if (prompt()) {
    // One query for every sample: p^T (unfactored) or (Q p)^T.
    query_features_ = factored() ? Matrix<T>((q_.value * p_.value).transpose())
                                 : Matrix<T>(p_.value.transpose());
  } else {
    query_features_ = factored() ? Matrix<T>(x * q_.value.transpose()) : x;
  }
  probs_.Resize({batch, queries, seq_len});
  out->Resize({batch, queries, value_dim_});
  for (int b = 0; b < batch; ++b) {
    auto keys = key_features_.middleRows(b * seq_len, seq_len);
    auto probs = probs_.sample(b);
    if (prompt()) {
      probs.noalias() = scale_ * query_features_ * keys.transpose();
    } else {
      probs.noalias() = scale_ * query_features_.middleRows(b * seq_len, seq_len) *
                        keys.transpose();
      if (config_.causal()) {
        for (int i = 0; i < seq_len; ++i) {
          probs.row(i).tail(seq_len - i - 1).setConstant(-std::numeric_limits<T>::infinity());
        }
      }
    }
    SoftmaxRows(probs, probs);
    out->sample(b).noalias() = probs * values_.middleRows(b * seq_len, seq_len);
  }
}

template <typename T>
void SoftmaxAttention<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in,
                                   ExecContext& /*ctx*/) {
  const int batch = input_->batch(), seq_len = input_->rows();
  const Matrix<T>& x = input_->flat();
  const int m = key_features_.cols();
  grad_values_.resize(batch * seq_len, value_dim_);
  grad_key_features_.resize(batch * seq_len, m);
  grad_query_features_.setZero(prompt() ? 1 : batch * seq_len, m);
  for (int b = 0; b < batch; ++b) {
    auto g = grad_out.sample(b);  // queries x value_dim
    auto probs = probs_.sample(b);
    auto values = values_.middleRows(b * seq_len, seq_len);
    auto keys = key_features_.middleRows(b * seq_len, seq_len);
    grad_values_.middleRows(b * seq_len, seq_len).noalias() = probs.transpose() * g;
    grad_scores_.noalias() = g * values.transpose();  // dL/dprobs, queries x T
    SoftmaxRowsBackward(probs, grad_scores_, grad_scores_);
    grad_scores_ *= scale_;
    if (prompt()) {
      grad_query_features_.noalias() += grad_scores_ * keys;
      grad_key_features_.middleRows(b * seq_len, seq_len).noalias() =
          grad_scores_.transpose() * query_features_;
    } else {
      auto queries = query_features_.middleRows(b * seq_len, seq_len);
      grad_query_features_.middleRows(b * seq_len, seq_len).noalias() = grad_scores_ * keys;
      grad_key_features_.middleRows(b * seq_len, seq_len).noalias() =
          grad_scores_.transpose() * queries;
    }
  }
  v_.grad.noalias() = x.transpose() * grad_values_;
  if (factored()) {
    k_.grad.noalias() = grad_key_features_.transpose() * x;  // key features = X K^T
  } else {
    w_.grad.noalias() = x.transpose() * grad_key_features_;  // key features = X W
  }
  if (prompt()) {
    if (factored()) {  // query features = (Q p)^T
      p_.grad.noalias() = (grad_query_features_ * q_.value).transpose();
      q_.grad.noalias() = grad_query_features_.transpose() * p_.value.transpose();
    } else {  // query features = p^T
      p_.grad = grad_query_features_.transpose();
    }
  } else if (factored()) {  // query features = X Q^T
    q_.grad.noalias() = grad_query_features_.transpose() * x;
  }
  if (grad_in == nullptr) return;
  grad_in->Resize(input_->shape());
  Matrix<T>& dx = grad_in->flat();
  dx.noalias() = grad_values_ * v_.value.transpose();
  dx.noalias() += grad_key_features_ * KeyMap().transpose();
  if (!prompt()) {
    if (factored()) {
      dx.noalias() += grad_query_features_ * q_.value;
    } else {
      dx += grad_query_features_;
    }
  }
}

template class SoftmaxAttention<float>;
template class SoftmaxAttention<double>;

ATTNLAB_REGISTER_LAYER("softmax", plugins::SoftmaxAttentionConfig, SoftmaxAttention,
                       "single-head softmax attention; query: PROMPT is paper 1's "
                       "f(X) = v^T X^T softmax(X W p)",
                       {"query: PROMPT p { init: NORMAL std: 0.5 }",
                        "query: PROMPT qk_dim: 2 value_dim: 2 p { init: NORMAL std: 0.5 }",
                        "query: SELF",
                        "query: SELF qk_dim: 3 value_dim: 2 causal: true",
                        "query: SELF w { init: NORMAL std: 0.4 } scale: 0.7"});

}  // namespace attnlab
