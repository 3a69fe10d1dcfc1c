// Metrics named in a spec (MetricSpec), evaluated at log steps after a forward pass.
#ifndef ATTNLAB_EXPERIMENTS_METRIC_EVALUATOR_H_
#define ATTNLAB_EXPERIMENTS_METRIC_EVALUATOR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/model.h"
#include "datasets/dataset.h"
#include "experiments/experiment.pb.h"
#include "experiments/npy.h"

namespace attnlab {

template <typename T>
class MetricEvaluator {
 public:
  virtual ~MetricEvaluator() = default;

  // Metrics that read the training forward pass (attention probabilities of `batch`) are
  // evaluated right after it; the others (validation losses run their own forward pass, which
  // overwrites the layers' caches) after the backward pass.
  virtual bool reads_training_forward() const { return true; }

  virtual absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>& batch) = 0;

  // The arrays behind the last value, by file name without ".npy" (the max-margin metrics: the
  // reference solution they correlate with, its multipliers, support tokens and KKT
  // residuals). A trial stores them at its report steps (results_store.h).
  virtual NpyArrays Arrays() const { return {}; }
};

// Checks the metric against the model and dataset (the layer exists and is an attention layer,
// the parameters exist, ...). Errors are FieldErrors relative to the MetricSpec.
// `seed` and `threads` drive the validation passes.
template <typename T>
absl::StatusOr<std::unique_ptr<MetricEvaluator<T>>> CreateMetricEvaluator(
    const MetricSpec& spec, const Model<T>& model, const Dataset<T>& dataset, uint64_t seed,
    int threads);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_METRIC_EVALUATOR_H_
