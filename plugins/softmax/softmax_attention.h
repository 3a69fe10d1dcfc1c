// The `softmax` attention plugin (config: softmax_attention.proto).
#ifndef ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_ATTENTION_H_
#define ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_ATTENTION_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "plugins/softmax/softmax_attention.pb.h"

namespace attnlab {

template <typename T>
class SoftmaxAttention : public AttentionLayer<T> {
 public:
  using Config = plugins::SoftmaxAttentionConfig;

  static absl::StatusOr<std::unique_ptr<SoftmaxAttention<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;

  const Tensor<T>& attention() const override { return probs_; }
  Matrix<T> QueryKeyMatrix(int head) const override;

 private:
  explicit SoftmaxAttention(const Config& config) : config_(config) {}

  bool prompt() const { return config_.query() == Config::PROMPT; }
  bool factored() const { return config_.qk_dim() > 0; }
  // The d x m map from tokens to key features: W, or K^T when factored.
  const Matrix<T>& KeyMap() const { return factored() ? key_map_t_ : w_.value; }

  Config config_;
  int dim_ = 0, value_dim_ = 0;
  T scale_ = 1;

  Parameter<T> p_, w_, k_, q_, v_;
  Matrix<T> key_map_t_;  // K^T, refreshed each Forward

  // Caches of the last Forward. Row blocks of batch*T (or batch*queries) rows.
  const Tensor<T>* input_ = nullptr;
  Matrix<T> key_features_;    // X * KeyMap()            (B*T) x m
  Matrix<T> query_features_;  // queries' features        (B*queries) x m, or 1 x m for PROMPT
  Matrix<T> values_;          // X * V                   (B*T) x value_dim
  Tensor<T> probs_;           // [B, queries, T]

  // Backward scratch, kept to avoid allocating in the training loop.
  Matrix<T> grad_scores_, grad_key_features_, grad_query_features_, grad_values_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_ATTENTION_H_
