// The `rpc` mechanism (config: rpc.proto): RPC-Attention by Principal Attention Pursuit.
#ifndef ATTNLAB_PLUGINS_RPC_RPC_MECHANISM_H_
#define ATTNLAB_PLUGINS_RPC_RPC_MECHANISM_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/kernels/per_thread.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/rpc/rpc.pb.h"

namespace attnlab {

// Principal Attention Pursuit on one head's K and V (N x D), with what its backward pass
// needs. Exposed for the direct-transcription test. The trace is kept from step to step, so
// that the iterations reuse its matrices instead of allocating.
template <typename T>
struct PapTrace {
  T mu = 0, key_l1 = 0;
  // S_t for each iteration t = 1..n, the attention A_t and output L_t for t < n (the last
  // iteration's are the mechanism's own outputs), and Y_{n-1}, the dual before the last
  // iteration. The backward recovers the earlier Y_{t-1} = Y_t - mu (K - L_t - S_t) from the
  // L_t and S_t it reads anyway (Y_0 = 0 exactly), and recomputes K2 = K - S - Y / mu; the
  // shrink's input R is not needed (S != 0 exactly where R passed the threshold). A layer's
  // traces outgrow the cache, and the backward reads them back from memory: each matrix not
  // kept is bytes not moved.
  std::vector<Matrix<T>> s, a, l;
  Matrix<T> y_last;
};

// Working matrices (the dual Y and K2, the backward's adjoints), one set per thread, reused for
// every head: they stay in cache, where a head's own would not.
template <typename T>
struct PapScratch {
  Matrix<T> y, k2, dk, dl, dy, dk2, grad_scores;
};

// Runs PAP (n >= 1 iterations, scores scale K2 K2^T): the last iteration's attention into `a`
// (N x N) and its output L_n into `h` (N x D), the rest into `trace`.
template <typename T>
void PrincipalAttentionPursuit(ConstHeadBlock<T> k, ConstHeadBlock<T> v, int iterations, T lambda,
                               bool threshold_over_mu, T embed_width, T scale, PapTrace<T>* trace,
                               PapScratch<T>* scratch, HeadBlock<T> a, HeadBlock<T> h);

// Given dL/dH for H = PAP(K, V), with the forward's trace and last attention `a`, adds dL/dK and
// dL/dV.
template <typename T>
void PrincipalAttentionPursuitBackward(ConstHeadBlock<T> k, ConstHeadBlock<T> v, T lambda,
                                       bool threshold_over_mu, T embed_width, T scale,
                                       const PapTrace<T>& trace, ConstHeadBlock<T> a,
                                       ConstHeadBlock<T> grad_h, PapScratch<T>* scratch,
                                       HeadBlock<T> grad_k, HeadBlock<T> grad_v);

// The `rpc` mechanism (config: rpc.proto): PAP on each symmetric head, its trace kept per head
// for the backward.
template <typename T>
class RpcMechanism : public Mechanism<T> {
 public:
  using Config = plugins::RpcConfig;

  static absl::StatusOr<std::unique_ptr<RpcMechanism<T>>> Create(const Config& config);

  absl::Status Setup(const HeadShape& shape) override;
  void Prepare(int count) override;
  void Forward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
               HeadBlock<T> a, HeadBlock<T> h) override;
  void Backward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
                ConstHeadBlock<T> a, ConstHeadBlock<T> dh, HeadBlock<T>* dq, HeadBlock<T> dk,
                HeadBlock<T> dv) override;

 private:
  explicit RpcMechanism(const Config& config) : config_(config) {}
  int iterations() const { return config_.has_iterations() ? config_.iterations() : 4; }
  T lambda() const { return static_cast<T>(config_.has_lambda() ? config_.lambda() : 4.0); }
  bool over_mu() const { return config_.threshold() == Config::LAMBDA_OVER_MU; }

  Config config_;
  std::vector<PapTrace<T>> traces_;  // per head of the last Forward
  PerThread<PapScratch<T>> scratch_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_RPC_RPC_MECHANISM_H_
