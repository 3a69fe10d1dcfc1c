// The `attention_entropy` metric (attention/analysis/metrics.h does the math).
#include "attention/analysis/metrics.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/attention_entropy/attention_entropy.pb.h"

namespace attnlab {
namespace {

template <typename T>
class AttentionEntropyMetric : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<AttentionEntropyMetric<T>>> Create(
      const plugins::AttentionEntropyConfig& config) {
    return std::unique_ptr<AttentionEntropyMetric<T>>(new AttentionEntropyMetric<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    return AttentionEntropy(layer_->attention());
  }

 private:
  explicit AttentionEntropyMetric(plugins::AttentionEntropyConfig config)
      : config_(std::move(config)) {}
  plugins::AttentionEntropyConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC(
    "attention_entropy", plugins::AttentionEntropyConfig, AttentionEntropyMetric,
    "mean entropy -sum_j a_j log a_j of an attention layer's rows (each row as a distribution)",
    {"layer: 'attn'"});

}  // namespace attnlab
