// The `lm_cross_entropy` loss plugin (config: lm_head.proto).
#ifndef ATTNLAB_PLUGINS_LM_HEAD_LM_CROSS_ENTROPY_H_
#define ATTNLAB_PLUGINS_LM_HEAD_LM_CROSS_ENTROPY_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/loss.h"
#include "plugins/lm_head/lm_head.pb.h"

namespace attnlab {

template <typename T>
class LmCrossEntropy : public Loss<T> {
 public:
  using Config = plugins::LmHeadConfig;

  static absl::StatusOr<std::unique_ptr<LmCrossEntropy<T>>> Create(const Config& config);

  absl::Status Check(const Shape& prediction, const Shape& target) const override;
  absl::Status Setup(const Shape& prediction, const Shape& target, ExecContext& ctx) override;
  T Compute(const Tensor<T>& prediction, const Tensor<T>& target, Tensor<T>* grad,
            ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;
  absl::Status CheckTargetValues(const Tensor<T>& target) const override;

 private:
  explicit LmCrossEntropy(const Config& config) : config_(config) {}

  Config config_;
  int dim_ = 0;
  Parameter<T> w_, b_;
  Matrix<T> logits_;  // one chunk: tokens x vocab
  // W^T row-major (vocab x d), copied once per step: the input gradient logits W^T is then a
  // product with a row-major rhs (Product's fast paths) instead of Eigen's GEMM.
  Matrix<T> w_transposed_;
  Matrix<T> bias_partials_;  // one chunk: dL/db summed over each group of its tokens
  Vector<T> token_loss_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_LM_HEAD_LM_CROSS_ENTROPY_H_
