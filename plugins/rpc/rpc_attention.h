// The `rpc` attention plugin (config: rpc_attention.proto).
#ifndef ATTNLAB_PLUGINS_RPC_RPC_ATTENTION_H_
#define ATTNLAB_PLUGINS_RPC_RPC_ATTENTION_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "attention/kernels/per_thread.h"
#include "plugins/rpc/rpc_attention.pb.h"

namespace attnlab {

// A head's K, V or dL/dH: a block of the layer's (B*N) x (heads*D) matrices, taken in place.
template <typename T>
using HeadBlock = Eigen::Ref<const Matrix<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using MutableHeadBlock = Eigen::Ref<Matrix<T>, 0, Eigen::OuterStride<>>;

// Principal Attention Pursuit on one head's K and V (N x D), with everything its backward pass
// needs. Exposed for the direct-transcription test. The trace is kept from step to step, so
// that the iterations reuse its matrices instead of allocating.
template <typename T>
struct PapTrace {
  T mu = 0, key_l1 = 0;
  // Per iteration t = 1..n: Y before the iteration, the shrink input R, S, K2, the attention A
  // and the output L.
  std::vector<Matrix<T>> y_before, r, s, k2, a, l;
};

// The backward pass's working matrices, one set per thread, reused for every head.
template <typename T>
struct PapScratch {
  Matrix<T> dk, dl, dy, ds, dy_before, dk2, dr, grad_scores;
};

// Runs PAP (n >= 1 iterations) and returns L_n, which lives in `trace`.
template <typename T>
const Matrix<T>& PrincipalAttentionPursuit(HeadBlock<T> k, HeadBlock<T> v, int iterations,
                                           T lambda, bool threshold_over_mu, T embed_width,
                                           PapTrace<T>* trace);

// Given dL/dH for H = PAP(K, V), adds dL/dK and dL/dV.
template <typename T>
void PrincipalAttentionPursuitBackward(HeadBlock<T> k, HeadBlock<T> v, T lambda,
                                       bool threshold_over_mu, T embed_width,
                                       const PapTrace<T>& trace, HeadBlock<T> grad_h,
                                       PapScratch<T>* scratch, MutableHeadBlock<T> grad_k,
                                       MutableHeadBlock<T> grad_v);

template <typename T>
class RpcAttention : public AttentionLayer<T> {
 public:
  using Config = plugins::RpcAttentionConfig;

  static absl::StatusOr<std::unique_ptr<RpcAttention<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void ForwardAdd(const Tensor<T>& in, const Tensor<T>& residual, Tensor<T>* out,
                  ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;

  // The last iteration's attention (or the symmetric attention), [batch * heads, N, N].
  const Tensor<T>& attention() const override { return probs_; }
  int heads() const override { return heads_; }
  // Symmetric scores x_i^T K_h^T K_h x_j: M_h = K_h^T K_h.
  Matrix<T> QueryKeyMatrix(int head) const override;
  void AddQueryKeyGradient(int head, const Matrix<T>& grad) override;

 private:
  // Forward, with `residual` (unless null) added by the output projection.
  void ForwardWithResidual(const Tensor<T>& in, const Tensor<T>* residual, Tensor<T>* out,
                           ExecContext& ctx);
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
  PerThread<PapScratch<T>> scratch_;  // the backward's, per thread
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_RPC_RPC_ATTENTION_H_
