// Attention mechanisms: what one head does with its queries, keys and values. The multi-head
// layer (plugins/attention) computes Q, K and V for every sample and head and hands each head to
// a mechanism; the prompt layer (paper 1) and sparse_select (paper 3) hand theirs too. So a new
// mechanism, registered in its own plugin folder, runs in every paper's model.
//
// A mechanism is either
//   - a map from scores to weights (WeightsMap below): the head computes S = scale Q K^T, masks
//     it where causal, maps it to weights A row by row and outputs H = A V; the mechanism gives
//     the map and its backward (softmax, sigmoid, ReLU, sparsemax); or
//   - a whole per-head computation (Mechanism itself): RPC's Principal Attention Pursuit, linear
//     attention.
#ifndef ATTNLAB_ATTENTION_MECHANISM_H_
#define ATTNLAB_ATTENTION_MECHANISM_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "attention/base/field_error.h"
#include "attention/kernels/per_thread.h"
#include "attention/plugin_registry.h"
#include "attention/tensor.h"

namespace attnlab {

// A head's Q, K, V, H or their gradients: a block of the layer's batch matrices, in place.
template <typename T>
using ConstHeadBlock = Eigen::Ref<const Matrix<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using HeadBlock = Eigen::Ref<Matrix<T>, 0, Eigen::OuterStride<>>;

// The heads a mechanism will run.
struct HeadShape {
  int qk_dim = 0, value_dim = 0;
  // The layer's input width (RPC's mu depends on it).
  int width = 0;
  // Query i sees keys j <= i only (self-attention: as many queries as keys).
  bool causal = false;
  // The queries are the keys (paper 4's symmetric attention): Forward gets q and k the same.
  bool symmetric = false;
  // One query per sample (paper 1's prompt form).
  bool single_query = false;
};

template <typename T>
class Mechanism {
 public:
  virtual ~Mechanism() = default;

  // Whether the mechanism runs heads of this shape (PAP needs symmetric self-attention); an
  // error says why not.
  virtual absl::Status Setup(const HeadShape& shape) {
    shape_ = shape;
    return absl::OkStatus();
  }

  // Before the heads of a Forward (count = samples x heads, indices 0..count-1) and again
  // before those of the Backward, outside the parallel loop (per-thread scratch, traces).
  virtual void Prepare(int count) {}

  // Head `index`: writes H (queries x value_dim) and the weights A (queries x keys) the layer's
  // attention() shows and metrics read (rows need not sum to 1: metrics that need a
  // distribution normalize them). Heads run in parallel: a mechanism keeps per-head state by
  // index and scratch per thread.
  virtual void Forward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v,
                       T scale, HeadBlock<T> a, HeadBlock<T> h) = 0;

  // Given dL/dH for head `index`'s last Forward (whose A is `a`): writes dL/dQ, dL/dK, dL/dV.
  // With symmetric heads there is no dq (null): the queries' gradient is added into dk.
  virtual void Backward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v,
                        T scale, ConstHeadBlock<T> a, ConstHeadBlock<T> dh, HeadBlock<T>* dq,
                        HeadBlock<T> dk, HeadBlock<T> dv) = 0;

  // The weights are softmax(scores) row by row: analyses built on softmax's limits (paper 1's
  // ATT-SVM) ask this, not the name.
  virtual bool SoftmaxWeights() const { return false; }

  // The device path (--config=cuda, float), which the mechanism owns: whether it has kernels
  // for these heads (a layer asked to run on the GPU refuses a mechanism without them), and
  // all heads of a batch at once on host arrays packed one row-major block per head: Q, K
  // [count * n, qk_dim] and V [count * n, value_dim] give the weights [count, n, n] and H
  // [count * n, value_dim]; the backward takes dL/dH and overwrites Q, K, V with their
  // gradients.
  virtual bool CudaHeads() const { return false; }
  virtual void CudaForward(const float* /*q*/, const float* /*k*/, const float* /*v*/,
                           int /*count*/, int /*n*/, float /*scale*/, bool /*causal*/,
                           float* /*weights*/, float* /*h*/) {}
  virtual void CudaBackward(const float* /*dh*/, float* /*q*/, float* /*k*/, float* /*v*/) {}

 protected:
  HeadShape shape_;
};

// A mechanism given by a map from scores to weights, applied row by row.
//
// The backward's contract: MapBackward gets the weights Map produced and the row state Map
// wrote, RowStateSize() values per row that the host keeps from the forward to the backward.
// Maps whose Jacobian the weights alone determine (softmax, sigmoid, sparsemax) keep none; a
// normalized map keeps what normalizing loses (normalized_softplus: each row's sum).
template <typename T>
class WeightsMap : public Mechanism<T> {
 public:
  // How many values Map keeps per row for MapBackward.
  virtual int RowStateSize() const { return 0; }

  // In place: scores -> weights, and `state` (rows x RowStateSize()). Masked (causal) scores
  // are -infinity and must map to 0.
  virtual void Map(HeadBlock<T> scores, HeadBlock<T> state) const = 0;

  // In place: dL/dweights -> dL/dscores, given the weights and state Map produced.
  virtual void MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T> state,
                           HeadBlock<T> grad) const = 0;

  // True when MapBackward is softmax's Jacobian, dL/ds = w .* (g - <w, g>) row by row: a layer
  // may then back-propagate from projections of the weights alone (sparse_select's FULL
  // sampler keeps P^T [w .* X, w], not the encodings P).
  virtual bool SoftmaxJacobian() const { return false; }

  // The Forward before a Backward had the same count: the heads' row states stay.
  void Prepare(int count) override;

  void Forward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
               HeadBlock<T> a, HeadBlock<T> h) override;

  void Backward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
                ConstHeadBlock<T> a, ConstHeadBlock<T> dh, HeadBlock<T>* dq, HeadBlock<T> dk,
                HeadBlock<T> dv) override;

  // Head `index`'s row state (rows x RowStateSize()), after Prepare: a host that applies Map
  // itself, not through Forward, passes it, so that Backward(index, ...) finds it.
  HeadBlock<T> RowState(int index, Eigen::Index rows);

  // Key j is masked for query i when j > i (queries and keys are the same tokens).
  static void MaskFuture(HeadBlock<T> scores);

  // From dL/dS for S = scale Q K^T: dQ = scale dS K, dK = scale dS^T Q; symmetric (dq null,
  // Q = K): dK = scale (dS + dS^T) K, one product. grad_scores is scaled in place first: the
  // products then take alpha = 1, which the libraries' kernels do.
  static void ScoresBackward(ConstHeadBlock<T> q, ConstHeadBlock<T> k, T scale,
                             Matrix<T>& grad_scores, HeadBlock<T>* dq, HeadBlock<T> dk);

 protected:
  // This thread's matrix for dL/dA of the head being differentiated (after Prepare).
  Matrix<T>& Scratch() { return scratch_.Local(); }

 private:
  PerThread<Matrix<T>> scratch_;
  std::vector<Matrix<T>> row_states_;  // per head index, from its Forward
};

// Compiled once, in mechanism.cc: a plugin's file does not instantiate the products again.
extern template class Mechanism<float>;
extern template class Mechanism<double>;
extern template class WeightsMap<float>;
extern template class WeightsMap<double>;

template <typename T>
Registry<Mechanism<T>>& MechanismRegistry() {
  return Registry<Mechanism<T>>::Global("mechanism");
}

// The mechanism a layer's config names in its fields `mechanism` (empty: softmax) and
// `mechanism_config`: an unknown name is the `mechanism` field's error, a bad config its
// config's.
inline std::string MechanismName(const std::string& field) {
  return field.empty() ? "softmax" : field;
}

template <typename T>
absl::StatusOr<std::unique_ptr<Mechanism<T>>> CreateMechanism(
    const std::string& name, const google::protobuf::Any& config) {
  return MechanismRegistry<T>().CreateAt(name, config, "mechanism", "mechanism_config");
}

}  // namespace attnlab

// At the end of a mechanism plugin's .cc:
//   ATTNLAB_REGISTER_MECHANISM("sigmoid", SigmoidConfig, Sigmoid, "one-line summary",
//                              {"example config", ...});
// Plugin<T> derives from Mechanism<T> (or WeightsMap<T>) and has a static
//   absl::StatusOr<std::unique_ptr<Plugin<T>>> Create(const Config&).
#define ATTNLAB_REGISTER_MECHANISM(name, Config, Plugin, summary, ...)                             \
  static const bool ATTNLAB_CONCAT(attnlab_registered_mechanism_, __LINE__) =                      \
      ::attnlab::RegisterTyped<Config, Plugin, ::attnlab::Mechanism>(                              \
          __FILE__, ::attnlab::MechanismRegistry<float>(), ::attnlab::MechanismRegistry<double>(), \
          name, summary, __VA_ARGS__)

#endif  // ATTNLAB_ATTENTION_MECHANISM_H_
