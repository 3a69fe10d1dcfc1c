// The interface of a metric plugin: a number a trial logs, computed from the model (its
// parameters, or the caches its last forward pass left, such as attention probabilities), the
// data, or other metrics of the trial. A spec names one as
//   metric { name: "top2" plugin: "attention_top_mass" config { layer: "attn" k: 2 } }
// and a plugin folder registers it with ATTNLAB_REGISTER_METRIC (plugins/metrics/
// attention_top_mass is the template). Besides its value a metric may declare what it reads
// (the training forward pass or not; other metrics' values) and arrays to save (Arrays).
#ifndef ATTNLAB_ATTENTION_METRIC_H_
#define ATTNLAB_ATTENTION_METRIC_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "attention/base/npy.h"
#include "attention/batch.h"
#include "attention/model.h"
#include "attention/plugin_registry.h"
#include "attention/registry.h"

namespace attnlab {

// What the trial's data offers a metric.
template <typename T>
struct MetricData {
  // The shapes of the training data: a fixed set's whole, or one sample of a stream.
  Shape input_shape, target_shape;
  // The fixed training set; null for a stream.
  const Batch<T>* train = nullptr;
  // The held-out sets, by name ("T400", "test").
  std::vector<const NamedBatch<T>*> validation;
  // The input column that marks tokens (paper 3's set y), or -1.
  int marked_column = -1;
};

// What a metric may look at when it is set up, before training.
template <typename T>
struct MetricContext {
  const Model<T>& model;
  MetricData<T> data;
  // The trial's seed and thread budget, for metrics that run passes of their own.
  uint64_t seed = 0;
  int threads = 1;
  // The trial's other metrics' names, "loss" first: what a metric of metrics may read.
  std::vector<std::string> metrics;
};

template <typename T>
class Metric {
 public:
  virtual ~Metric() = default;

  // Checks the config against the model and data (the layer it reads exists, ...) and keeps
  // what Evaluate needs. Errors are FieldErrors relative to the plugin's config.
  virtual absl::Status Setup(const MetricContext<T>& context) = 0;

  // True: evaluated right after the training forward pass of `batch` (it reads the layers'
  // caches); false: after the backward pass (it reads gradients, or runs passes of its own).
  virtual bool reads_training_forward() const { return true; }

  virtual absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>& batch) = 0;

  // The arrays behind the last value, by file name without ".npy" (the max-margin metrics: the
  // reference solution they correlate with, its multipliers, support tokens and KKT
  // residuals). A trial stores them at its report steps.
  virtual NpyArrays Arrays() const { return {}; }

  // A metric of other metrics' values at the same step (a ratio): their names. The trial then
  // calls Combine with their values, after every other metric of the step, where all of them
  // are logged, and never Evaluate.
  virtual std::vector<std::string> inputs() const { return {}; }
  virtual double Combine(const std::vector<double>& /*values*/) const {
    return std::numeric_limits<double>::quiet_NaN();
  }
};

template <typename T>
Registry<Metric<T>>& MetricRegistry() {
  return Registry<Metric<T>>::Global("metric");
}

}  // namespace attnlab

// At the end of a metric plugin's .cc:
//   ATTNLAB_REGISTER_METRIC("attention_top_mass", AttentionTopMassConfig, AttentionTopMass,
//                           "one-line summary", {"example config", ...});
#define ATTNLAB_REGISTER_METRIC(name, Config, Plugin, summary, ...)                                \
  static const bool ATTNLAB_CONCAT(attnlab_registered_metric_, __LINE__) =                         \
      ::attnlab::RegisterTyped<Config, Plugin, ::attnlab::Metric>(                                 \
          __FILE__, ::attnlab::MetricRegistry<float>(), ::attnlab::MetricRegistry<double>(), name, \
          summary, __VA_ARGS__)

#endif  // ATTNLAB_ATTENTION_METRIC_H_
