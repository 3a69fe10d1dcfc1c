// The interface of a metric plugin: a number a trial logs, computed from the model (its
// parameters, or the caches its last forward pass left, such as attention probabilities) and
// the data. A spec names one as
//   metric { name: "top2" plugin: "attention_top_mass" config { [type.googleapis.com/...] { ... } } }
// and a plugin folder registers it with ATTNLAB_REGISTER_METRIC (plugins/attention_top_mass is
// the template). Its example configs are checked on plugins/registry_test's conformance model,
// whose attention layer is named "attn".
#ifndef ATTNLAB_ATTENTION_METRIC_H_
#define ATTNLAB_ATTENTION_METRIC_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "attention/model.h"
#include "attention/plugin_registry.h"
#include "attention/registry.h"
#include "datasets/dataset.h"

namespace attnlab {

// What a metric may look at when it is set up, before training.
template <typename T>
struct MetricContext {
  const Model<T>& model;
  const Dataset<T>& dataset;
  // The trial's seed and thread budget, for metrics that run passes of their own.
  uint64_t seed = 0;
  int threads = 1;
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
