// The `softmax` attention plugin (config: softmax_attention.proto).
#ifndef ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_ATTENTION_H_
#define ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_ATTENTION_H_

#include <memory>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "attention/kernels/cuda/gpu_attention.h"
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
  int heads() const override { return heads_; }
  Matrix<T> QueryKeyMatrix(int head) const override;
  void AddQueryKeyGradient(int head, const Matrix<T>& grad) override;

 private:
  explicit SoftmaxAttention(const Config& config) : config_(config) {}

  bool prompt() const { return config_.query() == Config::PROMPT; }
  bool factored() const { return config_.qk_dim() > 0; }
  bool projected_out() const { return config_.output_dim() > 0; }
  // The output map after the attention core (shared by the CPU and GPU paths).
  void FinishForward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx);
  // Paper 1's form (prompt_through_w) on the CPU.
  void ForwardPromptThroughW(const Matrix<T>& x, int batch, int seq_len, ExecContext& ctx);
  // device: CUDA (float; Model::Create refuses it for double): the core on the GPU, heads
  // packed into contiguous blocks. Paper 1's form stays on the CPU.
  bool OnGpu(const ExecContext& ctx) const {
    return std::is_same_v<T, float> && ctx.cuda() && !prompt_through_w();
  }
  void ForwardOnGpu(const Matrix<T>& key_features, int batch, int seq_len, int queries);
  void BackwardOnGpu(const Matrix<T>& grad_concat, int batch, int seq_len, int queries);
  // The per-sample, per-head backward of the core (writes grad_values_, grad_query_features_,
  // grad_key_features_ when key_gradient, and paper 1's grad_v_parts_).
  void BackwardOnCpu(const Matrix<T>& grad_concat, bool key_gradient, int batch, int seq_len,
                     int queries, ExecContext& ctx);
  // Paper 1's form: one prompt, one unfactored W, no biases. Then the scores X W p are taken as
  // X (W p), with the tokens themselves as key features: n T d work instead of n T d^2.
  bool prompt_through_w() const { return prompt() && !factored() && !config_.bias(); }
  int concat_dim() const { return heads_ * value_dim_; }

  Config config_;
  int dim_ = 0, heads_ = 1, qk_dim_ = 0, value_dim_ = 0;  // qk_dim_: per head (d unfactored)
  T scale_ = 1;

  Parameter<T> p_, w_, k_, q_, v_, o_, bq_, bk_, bv_, bo_;

  // Caches of the last Forward. Row blocks of batch*T (or batch*queries) rows; head h owns
  // columns [h * qk_dim, (h + 1) * qk_dim) (or value_dim).
  const Tensor<T>* input_ = nullptr;
  Matrix<T> key_features_;    // (B*T) x (heads*qk_dim)
  Matrix<T> query_features_;  // (B*T) x (heads*qk_dim), or 1 x qk_dim for PROMPT
  Matrix<T> values_;          // (B*T) x (heads*value_dim)
  Matrix<T> concat_;          // (B*queries) x (heads*value_dim), before the output map
  Tensor<T> probs_;           // [B * heads, queries, T]

  // Backward scratch, kept to avoid allocating in the training loop.
  Matrix<T> grad_concat_, grad_key_features_, grad_query_features_, grad_values_;
  Matrix<T> grad_v_parts_;  // paper 1's form: row b is sample b's part of dL/dV, row-major
  // device: CUDA: the packed per-head blocks (reused for the gradients) and the GPU side.
  Matrix<T> gpu_q_, gpu_k_, gpu_v_, gpu_out_;
  std::unique_ptr<GpuAttention> gpu_;
  // Paper 1's form without dL/dX: its parameter gradients need X_b only through X_b^T a_b and
  // X_b^T (a_b * (V_b - out_b)), taken in Forward while X_b is in cache, so that Backward does
  // not read the whole token tensor a second time.
  Matrix<T> token_moments_;   // B x ((1 + value_dim) d): row b is those, row-major
  Matrix<T> prompt_vectors_;  // (1 + value_dim) x d: (W p)^T and V^T
  Matrix<T> prompt_dots_;     // B x ((1 + value_dim) T): sample b's dots, then the moments' weights
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_ATTENTION_H_
