// The `lm_cross_entropy` loss plugin (config: lm_head.proto).
#ifndef ATTNLAB_PLUGINS_LM_HEAD_LM_CROSS_ENTROPY_H_
#define ATTNLAB_PLUGINS_LM_HEAD_LM_CROSS_ENTROPY_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/loss.h"
#include "plugins/losses/lm_head/lm_head.pb.h"

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
  // Copied once per step: W by vocabulary blocks (row b: d x 128, row-major) and, for the
  // gradient, W^T (vocab x d, row-major), so that a block of either is contiguous.
  Matrix<T> w_blocks_, w_transposed_;
  // One chunk of n tokens: row b holds the logits of vocabulary block b (n x 128, row-major),
  // then their exponentials, then dL/dlogits.
  Matrix<T> logit_blocks_;
  Matrix<T> block_max_, block_sum_;  // blocks x n: each row's max and sum of exp in each block
  std::vector<int> labels_;
  Vector<T> label_logits_, token_loss_;
  Matrix<T> grad_partials_;  // kGradGroups x (n x d): the groups' partial sums of dL/dh
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_LM_HEAD_LM_CROSS_ENTROPY_H_
