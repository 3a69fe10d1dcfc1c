// The `rpc` attention plugin (config: rpc_attention.proto).
#ifndef ATTNLAB_PLUGINS_RPC_RPC_ATTENTION_H_
#define ATTNLAB_PLUGINS_RPC_RPC_ATTENTION_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "plugins/rpc/rpc_attention.pb.h"

namespace attnlab {

// Principal Attention Pursuit on one head's K and V (N x D), with everything its backward pass
// needs. Exposed for the direct-transcription test.
template <typename T>
struct PapTrace {
  T mu = 0, key_l1 = 0;
  // Per iteration t = 1..n: the shrink input R, S, K2, the attention A and the output L, and
  // Y before the iteration.
  std::vector<Matrix<T>> r, s, k2, a, l, y_before;
};

// Runs PAP (n >= 1 iterations) and returns L_n; `trace` receives the intermediates.
template <typename T>
Matrix<T> PrincipalAttentionPursuit(const Matrix<T>& k, const Matrix<T>& v, int iterations,
                                    T lambda, bool threshold_over_mu, T embed_width,
                                    PapTrace<T>* trace);

// Given dL/dH for H = PAP(K, V), adds dL/dK and dL/dV.
template <typename T>
void PrincipalAttentionPursuitBackward(const Matrix<T>& k, const Matrix<T>& v, T lambda,
                                       bool threshold_over_mu, T embed_width,
                                       const PapTrace<T>& trace, const Matrix<T>& grad_h,
                                       Matrix<T>* grad_k, Matrix<T>* grad_v);

template <typename T>
class RpcAttention : public AttentionLayer<T> {
 public:
  using Config = plugins::RpcAttentionConfig;

  static absl::StatusOr<std::unique_ptr<RpcAttention<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;

  // The last iteration's attention (or the symmetric attention), [batch * heads, N, N].
  const Tensor<T>& attention() const override { return probs_; }
  int heads() const override { return heads_; }
  // Symmetric scores x_i^T K_h^T K_h x_j: M_h = K_h^T K_h.
  Matrix<T> QueryKeyMatrix(int head) const override;
  void AddQueryKeyGradient(int head, const Matrix<T>& grad) override;

 private:
  explicit RpcAttention(const Config& config) : config_(config) {}

  T lambda() const { return static_cast<T>(config_.has_lambda() ? config_.lambda() : 4.0); }
  bool over_mu() const { return config_.threshold() == Config::LAMBDA_OVER_MU; }

  Config config_;
  int dim_ = 0, heads_ = 1, head_dim_ = 0;
  Parameter<T> k_, v_, o_, bk_, bv_, bo_;

  const Tensor<T>* input_ = nullptr;
  Matrix<T> keys_, values_, concat_;  // (B*N) x (heads*D)
  Tensor<T> probs_;
  std::vector<PapTrace<T>> traces_;   // per (sample, head), with pap_iterations > 0
  Matrix<T> grad_keys_, grad_values_, grad_concat_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_RPC_RPC_ATTENTION_H_
