// The `max_softmax` metric (attention/analysis/metrics.h does the math).
#include "attention/analysis/metrics.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/max_softmax/max_softmax.pb.h"

namespace attnlab {
namespace {

template <typename T>
class MaxSoftmaxMetric : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<MaxSoftmaxMetric<T>>> Create(
      const plugins::MaxSoftmaxConfig& config) {
    return std::unique_ptr<MaxSoftmaxMetric<T>>(new MaxSoftmaxMetric<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    return MaxSoftmax(layer_->attention());
  }

 private:
  explicit MaxSoftmaxMetric(plugins::MaxSoftmaxConfig config) : config_(std::move(config)) {}
  plugins::MaxSoftmaxConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC(
    "max_softmax", plugins::MaxSoftmaxConfig, MaxSoftmaxMetric,
    "mean largest weight max_j a_j of an attention layer's rows (each row as a distribution)",
    {"layer: 'attn'"});

}  // namespace attnlab
