#include "plugins/layers/prompt/prompt_attention.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/parallel_product.h"
#include "attention/kernels/product.h"
#include "attention/kernels/token_passes.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<PromptAttention<T>>> PromptAttention<T>::Create(
    const Config& config) {
  if (config.value_dim() < 0) return FieldError("value_dim", "must be >= 0");
  if (config.has_scale() && !std::isfinite(config.scale())) {
    return FieldError("scale", "must be finite");
  }
  const std::string name = MechanismName(config.mechanism());
  ASSIGN_OR_RETURN(std::unique_ptr<Mechanism<T>> mechanism,
                   CreateMechanism<T>(name, config.mechanism_config()));
  return std::unique_ptr<PromptAttention<T>>(
      new PromptAttention<T>(config, name, std::move(mechanism)));
}

template <typename T>
absl::StatusOr<Shape> PromptAttention<T>::Setup(const Shape& input, ExecContext& ctx) {
  if (input.rows < 1 + first_token() || input.cols < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("prompt attention needs [batch, T >= 1, d >= 1] inputs",
                     query_row() ? " after each sample's query row (query: FIRST_ROW)" : "",
                     ", got ", input.ToString()));
  }
  dim_ = input.cols;
  value_dim_ = config_.value_dim() > 0 ? config_.value_dim() : 1;
  scale_ = static_cast<T>(config_.has_scale() ? config_.scale() : 1.0);
  HeadShape shape;
  shape.qk_dim = dim_;
  shape.value_dim = value_dim_;
  shape.width = dim_;
  shape.single_query = true;
  if (absl::Status s = mechanism_->Setup(shape); !s.ok()) return FieldError("mechanism", s);
  p_.name = "p";
  w_.name = "w";
  v_.name = "v";
  RETURN_IF_ERROR(InitParameter(config_.p(), {ParamSpec::ZEROS}, dim_, 1, "p", ctx, &p_));
  RETURN_IF_ERROR(InitParameter(config_.w(), {ParamSpec::IDENTITY}, dim_, dim_, "w", ctx, &w_));
  RETURN_IF_ERROR(InitParameter(config_.v(), {ParamSpec::NORMAL, 1 / std::sqrt(double(dim_))}, dim_,
                                value_dim_, "v", ctx, &v_));
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> PromptAttention<T>::OutputShape(const Shape& input) const {
  if (input.rows < 1 + first_token() || input.cols != dim_) {
    return absl::InvalidArgumentError(absl::StrCat("prompt attention was set up for tokens of ",
                                                   dim_, " entries, got ", input.ToString()));
  }
  return Shape{input.batch, 1, value_dim_};
}

template <typename T>
void PromptAttention<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  input_ = &in;
  const int batch = in.batch(), seq_len = in.rows() - first_token();
  probs_.Resize({batch, 1, seq_len});
  out->Resize({batch, 1, value_dim_});
  if (query_row()) {  // row b: (W z_b)^T, z_b the sample's first row
    queries_.resize(batch, dim_);
    for (int b = 0; b < batch; ++b) {
      TokenDots(w_.value.data(), dim_, dim_, in.sample(b).row(0).data(), 1, &queries_(b, 0));
    }
    ForwardHeads(in.flat(), batch, seq_len, out->flat(), ctx);
    return;
  }
  query_.resize(1, dim_);  // the score of x is x^T (W p)
  TokenDots(w_.value.data(), dim_, dim_, p_.value.data(), 1, query_.data());
  if (map_ == nullptr) {
    ForwardHeads(in.flat(), batch, seq_len, out->flat(), ctx);
    return;
  }
  ForwardWithMap(in.flat(), batch, seq_len, out->flat(), ctx);
}

// Sample by sample, two passes over its tokens X_b: the dots of X_b with (W p) and the value
// maps, then, after the weights, the token moments X_b^T (weights rows) that Backward needs.
template <typename T>
void PromptAttention<T>::ForwardWithMap(const Matrix<T>& x, int batch, int seq_len, Matrix<T>& out,
                                        ExecContext& ctx) {
  const int dv = value_dim_, count = 1 + dv;
  map_->Prepare(batch);  // BackwardHeads, for dL/dX, runs its heads from these weights
  prompt_vectors_.resize(count, dim_);
  prompt_vectors_.row(0) = query_;
  prompt_vectors_.bottomRows(dv) = v_.value.transpose();
  prompt_dots_.Prepare();
  values_computed_ = false;
  value_moments_ = !v_.frozen;
  const int first_moment = value_moments_ ? 0 : 1, moments = count - first_moment;
  token_moments_.resize(batch, int64_t(moments) * dim_);
  ParallelForGuided(
      ctx, batch,
      [&](int begin, int end) {
        for (int b = begin; b < end; ++b) {
          const T* tokens = x.data() + int64_t(b) * seq_len * dim_;
          NextSamplePrefetch prefetch(b + 1 < end ? tokens + int64_t(seq_len) * dim_ : nullptr,
                                      int64_t(seq_len) * dim_ * sizeof(T), /*steps_between=*/3);
          // Row 0: X_b (W p); row 1 + j: X_b V[:, j].
          Matrix<T>& dots = prompt_dots_.Local();
          dots.resize(count, seq_len);
          TokenDots(tokens, seq_len, dim_, prompt_vectors_.data(), count, dots.data(),
                    prefetch.first_pass());
          auto a = probs_.sample(b);  // 1 x T
          a = scale_ * dots.row(0);
          prefetch.BetweenPasses();
          const HeadBlock<T> state = map_->RowState(b, 1);
          map_->Map(a, state);
          prefetch.BetweenPasses();
          for (int j = 0; j < dv; ++j) {  // out_b = a_b V_b
            out(b, j) = (a.array() * dots.row(1 + j).array()).sum();
          }
          // In place, the moments' weights: a_b, and dL/dscores for dL/da = V_b[:, j].
          dots.row(0) = a;
          for (int j = 1; j < count; ++j) map_->MapBackward(a, state, dots.row(j));
          prefetch.BetweenPasses();
          WeightedTokenSums(tokens, seq_len, dim_, dots.row(first_moment).data(), moments,
                            token_moments_.row(b).data(), prefetch.second_pass());
        }
      },
      GrainFor(int64_t(seq_len) * dim_));
}

template <typename T>
void PromptAttention<T>::ComputeValues(const Matrix<T>& x, ExecContext& ctx) {
  values_.resize(x.rows(), value_dim_);
  ParallelProduct(ctx, x, v_.value, values_);
  values_computed_ = true;
}

template <typename T>
void PromptAttention<T>::ForwardHeads(const Matrix<T>& x, int batch, int seq_len, Matrix<T>& out,
                                      ExecContext& ctx) {
  ComputeValues(x, ctx);
  mechanism_->Prepare(batch);
  const int rows = seq_len + first_token();  // a sample's rows
  ParallelFor(
      ctx, batch,
      [&](int begin, int end) {
        for (int b = begin; b < end; ++b) {
          const int64_t tokens = int64_t(b) * rows + first_token();
          mechanism_->Forward(b, QueryOf(b), x.middleRows(tokens, seq_len),
                              values_.middleRows(tokens, seq_len), scale_, probs_.sample(b),
                              out.row(b));
        }
      },
      GrainFor(int64_t(seq_len) * dim_));
}

template <typename T>
void PromptAttention<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) {
  const Matrix<T>& c = grad_out.flat();  // B x value_dim: dL/dout_b
  if (map_ == nullptr || grad_in != nullptr || query_row()) {
    BackwardHeads(c, grad_in, ctx);
    return;
  }
  // dL/dV = sum_b (X_b^T a_b^T) c_b and dL/d(W p) = scale sum_b sum_j c_bj (the moment j of
  // sample b), from what Forward kept. One pass over the moments on the threads, in blocks of
  // consecutive samples (each a stretch of memory read in order), each block summed into its own
  // partial; the partials are then summed in block order, so the bits do not depend on the
  // thread count.
  constexpr int kSamplesPerBlock = 64;
  const int batch = static_cast<int>(c.rows()), dv = value_dim_;
  const int blocks = (batch + kSamplesPerBlock - 1) / kSamplesPerBlock;
  // A block's partial: dL/d(W p) (before the scale), then dL/dV's columns (unless V is frozen).
  const int64_t grad_v_size = value_moments_ ? int64_t(dv) * dim_ : 0;
  const int64_t query_moments = value_moments_ ? dim_ : 0;  // where the query's moments start
  moment_partials_.resize(blocks, dim_ + grad_v_size);
  ParallelForGuided(ctx, blocks, [&](int begin, int end) {
    for (int block = begin; block < end; ++block) {
      auto partial = moment_partials_.row(block);
      partial.setZero();
      for (int b = block * kSamplesPerBlock; b < std::min(batch, (block + 1) * kSamplesPerBlock);
           ++b) {
        const auto moments = token_moments_.row(b);
        for (int j = 0; j < dv; ++j) {
          partial.head(dim_) += c(b, j) * moments.segment(query_moments + int64_t(j) * dim_, dim_);
          if (value_moments_) {
            partial.segment(dim_ + int64_t(j) * dim_, dim_) += c(b, j) * moments.head(dim_);
          }
        }
      }
    }
  });
  const Matrix<T> sum = moment_partials_.colwise().sum();
  v_.grad.setZero(dim_, dv);  // a frozen V's stays zero
  if (value_moments_) {
    for (int j = 0; j < dv; ++j) {
      v_.grad.col(j) = sum.middleCols(dim_ + int64_t(j) * dim_, dim_).transpose();
    }
  }
  Matrix<T> grad_query = sum.leftCols(dim_);
  grad_query *= scale_;
  SetPromptGradients(grad_query);
}

template <typename T>
void PromptAttention<T>::SetPromptGradients(const Matrix<T>& grad_query) {
  Product(w_.value.transpose(), grad_query.transpose(), p_.grad, /*accumulate=*/false);
  Product(grad_query.transpose(), p_.value.transpose(), w_.grad, /*accumulate=*/false);
}

template <typename T>
void PromptAttention<T>::BackwardHeads(const Matrix<T>& c, Tensor<T>* grad_in, ExecContext& ctx) {
  const Matrix<T>& x = input_->flat();
  const int batch = input_->batch(), rows = input_->rows(), seq_len = rows - first_token();
  grad_query_rows_.resize(batch, dim_);
  grad_keys_.resize(x.rows(), dim_);
  grad_values_.resize(x.rows(), value_dim_);
  if (query_row()) {  // the query rows are neither keys nor values
    for (int b = 0; b < batch; ++b) {
      grad_keys_.row(int64_t(b) * rows).setZero();
      grad_values_.row(int64_t(b) * rows).setZero();
    }
  }
  if (!values_computed_) ComputeValues(x, ctx);
  mechanism_->Prepare(batch);
  ParallelFor(
      ctx, batch,
      [&](int begin, int end) {
        for (int b = begin; b < end; ++b) {
          HeadBlock<T> dq = grad_query_rows_.row(b);
          const int64_t tokens = int64_t(b) * rows + first_token();
          mechanism_->Backward(b, QueryOf(b), x.middleRows(tokens, seq_len),
                               values_.middleRows(tokens, seq_len), scale_, probs_.sample(b),
                               c.row(b), &dq, grad_keys_.middleRows(tokens, seq_len),
                               grad_values_.middleRows(tokens, seq_len));
        }
      },
      GrainFor(int64_t(seq_len) * dim_));
  Product(x.transpose(), grad_values_, v_.grad, /*accumulate=*/false);
  if (query_row()) {
    // Row b of the queries is (W z_b)^T: dL/dW = sum_b dq_b^T z_b^T, dL/dz_b = dq_b W.
    Matrix<T> z(batch, dim_);
    for (int b = 0; b < batch; ++b) z.row(b) = input_->sample(b).row(0);
    Product(grad_query_rows_.transpose(), z, w_.grad, /*accumulate=*/false);
  } else {
    Matrix<T> grad_query = Matrix<T>::Zero(1, dim_);
    for (int b = 0; b < batch; ++b) grad_query += grad_query_rows_.row(b);
    SetPromptGradients(grad_query);
  }
  if (grad_in == nullptr) return;
  // The keys are the tokens themselves; the values are X V.
  grad_in->Resize(input_->shape());
  grad_in->flat() = grad_keys_;
  if (query_row()) {
    for (int b = 0; b < batch; ++b) {
      WeightedTokenSums(w_.value.data(), dim_, dim_, &grad_query_rows_(b, 0), 1,
                        &grad_in->flat()(int64_t(b) * rows, 0));
    }
  }
  ParallelProduct(ctx, grad_values_, v_.value.transpose(), grad_in->flat(), /*accumulate=*/true);
}

template class PromptAttention<float>;
template class PromptAttention<double>;

ATTNLAB_REGISTER_LAYER("prompt", plugins::PromptAttentionConfig, PromptAttention,
                       "paper 1's prompt attention f(X) = v^T X^T weights(X W p) (softmax by "
                       "default, any mechanism taking one query)",
                       // Every form a mechanism is checked in (attention/mechanism_check.h).
                       {"p { init: NORMAL std: 0.5 }",
                        "value_dim: 3 w { init: NORMAL std: 1 } p { init: NORMAL std: 0.5 }",
                        "scale: 0.5 p { init: NORMAL std: 0.5 }",
                        "query: FIRST_ROW value_dim: 2 w { init: NORMAL std: 1 }",
                        "value_dim: 2 p { init: NORMAL std: 1 }",
                        "w { init: NORMAL std: 1 } p { init: NORMAL std: 1 } scale: 0.5"});
ATTNLAB_PLUGIN_USES("layer", "prompt", "mechanism/softmax");  // its default mechanism

}  // namespace attnlab
