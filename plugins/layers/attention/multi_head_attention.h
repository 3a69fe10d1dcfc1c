// The `attention` layer (config: attention.proto): the multi-head core every mechanism runs in.
// It owns the query, key, value and output maps, their biases and gradients, and hands each
// (sample, head) to the mechanism (attention/mechanism.h).
#ifndef ATTNLAB_PLUGINS_ATTENTION_MULTI_HEAD_ATTENTION_H_
#define ATTNLAB_PLUGINS_ATTENTION_MULTI_HEAD_ATTENTION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "attention/mechanism.h"
#include "plugins/layers/attention/attention.pb.h"

namespace attnlab {

template <typename T>
class MultiHeadAttention : public AttentionLayer<T> {
 public:
  using Config = plugins::AttentionConfig;

  static absl::StatusOr<std::unique_ptr<MultiHeadAttention<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void ForwardAdd(const Tensor<T>& in, const Tensor<T>& residual, Tensor<T>* out,
                  ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;

  // [batch * heads, T, T]: each head's weights, as its mechanism wrote them.
  const Tensor<T>& attention() const override { return probs_; }
  int heads() const override { return heads_; }
  // M_h = Q_h^T K_h (symmetric: K_h^T K_h): the score of x_i against x_j is x_i^T M_h x_j.
  Matrix<T> QueryKeyMatrix(int head) const override;
  void AddQueryKeyGradient(int head, const Matrix<T>& grad) override;
  std::optional<typename AttentionLayer<T>::HeadProjections> head_projections() const override {
    return typename AttentionLayer<T>::HeadProjections{
        symmetric() ? &keys_ : &queries_, &keys_, &values_, qk_dim_, value_dim_, scale_};
  }

  const std::string& mechanism_name() const { return mechanism_name_; }

 private:
  MultiHeadAttention(const Config& config, std::string mechanism_name,
                     std::unique_ptr<Mechanism<T>> mechanism)
      : config_(config),
        mechanism_name_(std::move(mechanism_name)),
        mechanism_(std::move(mechanism)) {}

  bool symmetric() const { return config_.symmetric(); }
  bool projected_out() const { return config_.output_dim() > 0; }
  int qk_width() const { return heads_ * qk_dim_; }
  int value_width() const { return heads_ * value_dim_; }
  // Forward, with `residual` (unless null) added by the output map.
  void ForwardWithResidual(const Tensor<T>& in, const Tensor<T>* residual, Tensor<T>* out,
                           ExecContext& ctx);
  // device: CUDA (float, softmax): the heads on the GPU, packed into contiguous blocks.
  bool OnGpu(const ExecContext& ctx) const;
  void ForwardOnGpu(int batch, int seq_len);
  void BackwardOnGpu(const Matrix<T>& grad_concat, int batch, int seq_len);

  Config config_;
  std::string mechanism_name_;
  std::unique_ptr<Mechanism<T>> mechanism_;
  int dim_ = 0, heads_ = 1, qk_dim_ = 0, value_dim_ = 0;
  T scale_ = 1;
  Parameter<T> q_, k_, v_, o_, bq_, bk_, bv_, bo_;

  // Caches of the last Forward: (B*T) x (heads * width) blocks, head h in its columns.
  const Tensor<T>* input_ = nullptr;
  Matrix<T> queries_, keys_, values_, concat_;  // queries_ unused when symmetric
  Tensor<T> probs_;
  Matrix<T> grad_queries_, grad_keys_, grad_values_, grad_concat_;
  // device: CUDA: the packed heads (reused for their gradients) and the GPU side.
  Matrix<T> gpu_q_, gpu_k_, gpu_v_, gpu_out_;  // the mechanism's device path's packed heads
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_ATTENTION_MULTI_HEAD_ATTENTION_H_
