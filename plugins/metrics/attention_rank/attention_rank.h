// The `attention_rank` metric: the effective rank of an attention layer's weight matrices
// (paper 2's rank collapse).
#ifndef ATTNLAB_PLUGINS_METRICS_ATTENTION_RANK_ATTENTION_RANK_H_
#define ATTNLAB_PLUGINS_METRICS_ATTENTION_RANK_ATTENTION_RANK_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "attention/metric.h"
#include "plugins/metrics/attention_rank/attention_rank.pb.h"

namespace attnlab {

// exp(-sum_i p_i ln p_i) with p the singular values of `a` over their sum; 0 for a zero matrix.
double EffectiveRank(const Eigen::MatrixXd& a);

template <typename T>
class AttentionRank : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<AttentionRank<T>>> Create(
      const plugins::AttentionRankConfig& config);

  absl::Status Setup(const MetricContext<T>& context) override;
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>& batch) override;

 private:
  explicit AttentionRank(plugins::AttentionRankConfig config) : config_(std::move(config)) {}

  plugins::AttentionRankConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_METRICS_ATTENTION_RANK_ATTENTION_RANK_H_
