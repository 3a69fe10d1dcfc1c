// Metrics named in a spec (MetricSpec), evaluated at log steps after a forward pass.
#ifndef ATTNLAB_EXPERIMENTS_METRIC_EVALUATOR_H_
#define ATTNLAB_EXPERIMENTS_METRIC_EVALUATOR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/model.h"
#include "datasets/dataset.h"
#include "experiments/experiment.pb.h"

namespace attnlab {

template <typename T>
class MetricEvaluator {
 public:
  virtual ~MetricEvaluator() = default;
  // Right after model.Forward(batch.inputs): attention layers hold this batch's probabilities.
  virtual absl::StatusOr<double> Evaluate(const Model<T>& model, const Batch<T>& batch) = 0;
};

// Checks the metric against the model and dataset (the layer exists and is an attention layer,
// the parameters exist, ...). Errors are FieldErrors relative to the MetricSpec.
template <typename T>
absl::StatusOr<std::unique_ptr<MetricEvaluator<T>>> CreateMetricEvaluator(
    const MetricSpec& spec, const Model<T>& model, const Dataset<T>& dataset);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_METRIC_EVALUATOR_H_
