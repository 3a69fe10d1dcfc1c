// The `sparse_select` attention plugin (config: sparse_select.proto).
#ifndef ATTNLAB_PLUGINS_SPARSE_SELECT_SPARSE_SELECT_ATTENTION_H_
#define ATTNLAB_PLUGINS_SPARSE_SELECT_SPARSE_SELECT_ATTENTION_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "attention/mechanism.h"
#include "plugins/layers/sparse_select/sparse_select.pb.h"

namespace attnlab {

template <typename T>
class SparseSelectAttention : public AttentionLayer<T> {
 public:
  using Config = plugins::SparseSelectConfig;

  static absl::StatusOr<std::unique_ptr<SparseSelectAttention<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;

  // [batch, 1, T]: the softmax over positions.
  const Tensor<T>& attention() const override { return probs_; }
  // Scores are q^T W^T p_i: the form in encoding space is W^T.
  Matrix<T> QueryKeyMatrix(int) const override { return w_.value.transpose(); }
  void AddQueryKeyGradient(int, const Matrix<T>& grad) override { w_.grad += grad.transpose(); }

 private:
  SparseSelectAttention(const Config& config, std::unique_ptr<Mechanism<T>> mechanism)
      : config_(config),
        mechanism_(std::move(mechanism)),
        map_(static_cast<WeightsMap<T>*>(mechanism_.get())) {}

  bool stochastic() const { return config_.positional() == Config::STOCHASTIC; }
  bool projected() const { return stochastic() && config_.sampler() == Config::PROJECTED; }
  void ForwardProjected(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx);
  // FIXED, LEARNED and SINUSOIDAL: the encodings are shared by all samples, so the batch is a
  // few GEMMs.
  void ForwardShared(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx);
  void BackwardShared(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx);
  void BackwardProjected(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx);
  // `count` rows of d_e i.i.d. N(0, 1/d_e) draws, made into draws of config's distribution.
  void ReshapeNormalDraws(T* rows, int count) const;
  void SinusoidalEncodings(Matrix<T>* positions) const;

  Config config_;
  std::unique_ptr<Mechanism<T>> mechanism_;
  WeightsMap<T>* map_;  // mechanism_ (Create checked it is a map)
  int dim_ = 0, encoding_dim_ = 0, max_len_ = 0;
  Parameter<T> w_, positions_;

  // Caches of the last Forward.
  const Tensor<T>* input_ = nullptr;
  int seq_len_ = 0;
  // STOCHASTIC: the backward pass needs r = P^T ds. With softmax's Jacobian, ds = a .* (X g -
  // (f . g)), so it needs P only through [a .* X, a]^T P ((d + 1) x d_e per sample), computed
  // while P is in cache. Keeping that instead of P (T x d_e per sample, 35 MB a batch in paper
  // 3) saves the memory traffic; the encodings themselves live in a per-thread scratch. Other
  // maps redraw P in the backward pass from the forward's seed.
  Matrix<T> projected_;  // (batch * (d + 1)) x d_e
  uint64_t seed_ = 0;
  // PROJECTED sampler: the marked rows of every sample (sample b's start at marked_start_[b]),
  // the raw scores, and each sample's d_e-dimensional normal orthogonal to u.
  std::vector<int> marked_start_;
  Matrix<T> marked_rows_;  // (number of marks in the batch) x d_e
  Matrix<T> scores_;       // batch x T
  Matrix<T> noise_;        // batch x d_e
  Matrix<T> queries_;      // batch x d_e: q_b
  Matrix<T> keys_dir_;     // batch x d_e: (W q_b)^T, the direction scores project on
  Matrix<T> marks_;        // batch x T: 1 for positions in y
  Tensor<T> probs_;        // [batch, 1, T]
  Matrix<T> map_state_;    // batch x map_->RowStateSize(): each sample's row state

  // Backward scratch.
  Matrix<T> grad_scores_;  // batch x T
  Matrix<T> r_;            // batch x d_e: sum_i ds_bi p_bi
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SPARSE_SELECT_SPARSE_SELECT_ATTENTION_H_
