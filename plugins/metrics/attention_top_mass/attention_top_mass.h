// The `attention_top_mass` metric: how much of each attention row its k largest weights hold.
// The template for a new metric: a config message, a class with Create, Setup and Evaluate,
// and one ATTNLAB_REGISTER_METRIC line in the .cc.
#ifndef ATTNLAB_PLUGINS_ATTENTION_TOP_MASS_ATTENTION_TOP_MASS_H_
#define ATTNLAB_PLUGINS_ATTENTION_TOP_MASS_ATTENTION_TOP_MASS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "attention/metric.h"
#include "plugins/metrics/attention_top_mass/attention_top_mass.pb.h"

namespace attnlab {

template <typename T>
class AttentionTopMass : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<AttentionTopMass<T>>> Create(
      const plugins::AttentionTopMassConfig& config);

  absl::Status Setup(const MetricContext<T>& context) override;
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>& batch) override;

 private:
  explicit AttentionTopMass(plugins::AttentionTopMassConfig config) : config_(std::move(config)) {}

  plugins::AttentionTopMassConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_ATTENTION_TOP_MASS_ATTENTION_TOP_MASS_H_
