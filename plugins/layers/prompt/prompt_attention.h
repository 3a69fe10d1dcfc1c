// The `prompt` layer (config: prompt.proto): paper 1's f(X) = v^T X^T weights(X W p), with any
// mechanism that takes one query per sample.
#ifndef ATTNLAB_PLUGINS_PROMPT_PROMPT_ATTENTION_H_
#define ATTNLAB_PLUGINS_PROMPT_PROMPT_ATTENTION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "attention/kernels/per_thread.h"
#include "attention/mechanism.h"
#include "plugins/layers/prompt/prompt.pb.h"

namespace attnlab {

template <typename T>
class PromptAttention : public AttentionLayer<T>, public PromptForm<T> {
 public:
  using Config = plugins::PromptAttentionConfig;

  static absl::StatusOr<std::unique_ptr<PromptAttention<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override {
    if (query_row()) return {&w_, &v_};
    return {&p_, &w_, &v_};
  }

  // [batch, 1, T]: each sample's weights over its tokens.
  const Tensor<T>& attention() const override { return probs_; }
  // Scores x^T W p = p^T W^T x: the query-key form is W^T.
  Matrix<T> QueryKeyMatrix(int) const override { return w_.value.transpose(); }
  void AddQueryKeyGradient(int, const Matrix<T>& grad) override { w_.grad += grad.transpose(); }
  PromptForm<T>* AsPromptForm() override { return this; }

  // The prompt form.
  bool query_row() const override { return config_.query() == Config::FIRST_ROW; }
  Parameter<T>* query() override { return query_row() ? nullptr : &p_; }
  Parameter<T>& value() override { return v_; }
  bool softmax_weights() const override { return mechanism_->SoftmaxWeights(); }
  const std::string& mechanism() const override { return mechanism_name_; }

 private:
  PromptAttention(const Config& config, std::string mechanism_name,
                  std::unique_ptr<Mechanism<T>> mechanism)
      : config_(config),
        mechanism_name_(std::move(mechanism_name)),
        mechanism_(std::move(mechanism)),
        map_(dynamic_cast<WeightsMap<T>*>(mechanism_.get())) {}

  // A score-to-weights map: per sample two passes over X_b (kernels/token_passes.h), the second
  // taking the moments Backward needs while X_b is in cache.
  void ForwardWithMap(const Matrix<T>& x, int batch, int seq_len, Matrix<T>& out, ExecContext& ctx);
  // Any mechanism (and any map when dL/dX is asked for): per sample, head by head.
  void ForwardHeads(const Matrix<T>& x, int batch, int seq_len, Matrix<T>& out, ExecContext& ctx);
  void BackwardHeads(const Matrix<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx);
  // The query is (W p)^T: from dL/d(query) (1 x d), dL/dp = W^T dL/dq^T and dL/dW = dL/dq^T p^T.
  void SetPromptGradients(const Matrix<T>& grad_query);
  void ComputeValues(const Matrix<T>& x, ExecContext& ctx);  // values_ = X V
  // The query of sample b: (W p)^T, or (W z_b)^T with query: FIRST_ROW.
  ConstHeadBlock<T> QueryOf(int b) const {
    return query_row() ? ConstHeadBlock<T>(queries_.middleRows(b, 1)) : ConstHeadBlock<T>(query_);
  }
  int first_token() const { return query_row() ? 1 : 0; }  // the row of x_1 in a sample

  Config config_;
  std::string mechanism_name_;
  std::unique_ptr<Mechanism<T>> mechanism_;
  WeightsMap<T>* map_;  // mechanism_ when it is a score-to-weights map, else null
  int dim_ = 0, value_dim_ = 1;
  T scale_ = 1;
  Parameter<T> p_, w_, v_;

  // Caches of the last Forward.
  const Tensor<T>* input_ = nullptr;
  Matrix<T> query_;    // 1 x d: (W p)^T
  Matrix<T> queries_;  // query: FIRST_ROW: B x d, row b (W z_b)^T
  Matrix<T> values_;   // (B*T) x value_dim: X V (ForwardWithMap leaves it to BackwardHeads)
  bool values_computed_ = false;  // values_ belongs to the last Forward
  Tensor<T> probs_;               // [B, 1, T]
  // ForwardWithMap: per sample, the dots with (W p) and V's columns, then the moments' weights
  // (row 0: the weights a_b; row 1 + j: dL/dscores for dL/da = V_b[:, j]), in a scratch of
  // each thread's that stays in cache, and the moments X_b^T (those rows): dL/dV and
  // dL/d(W p) for any dL/dout, without reading X again. With V frozen, row 0's moment (it
  // serves dL/dV only) is skipped.
  Matrix<T> prompt_vectors_;          // (1 + value_dim) x d: (W p)^T and V^T
  PerThread<Matrix<T>> prompt_dots_;  // (1 + value_dim) x T
  bool value_moments_ = true;         // row 0's moment is kept
  Matrix<T> token_moments_;           // B x ((value_moments_ + value_dim) d)
  Matrix<T> moment_partials_;         // Backward: per block of samples, its sums of moments
  // BackwardHeads: per sample dL/d(query) (summed in sample order: the same bits at any thread
  // count), dL/dkeys (keys = X) and dL/dvalues.
  Matrix<T> grad_query_rows_, grad_keys_, grad_values_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_PROMPT_PROMPT_ATTENTION_H_
