// Metrics for tests, built as a spec builds them: a plugin name and its config in text format,
// set up on a model and its data.
#ifndef ATTNLAB_ATTENTION_METRIC_TESTING_H_
#define ATTNLAB_ATTENTION_METRIC_TESTING_H_

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "attention/metric.h"
#include "attention/plugin_catalog.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {

// The config of metric `plugin` in text format, packed as a spec packs it.
inline absl::StatusOr<google::protobuf::Any> MetricConfig(const std::string& plugin,
                                                          const std::string& config_text) {
  const PluginInfo* info = FindPlugin("metric", plugin);
  if (info == nullptr) return absl::NotFoundError(absl::StrCat("no metric plugin '", plugin, "'"));
  google::protobuf::Any any;
  if (info->config_type == nullptr) return any;
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> config(
      factory.GetPrototype(info->config_type)->New());
  if (!google::protobuf::TextFormat::ParseFromString(config_text, config.get())) {
    return absl::InvalidArgumentError(absl::StrCat("config does not parse: ", config_text));
  }
  any.set_type_url("type.googleapis.com/" + info->config_type->full_name());
  any.set_value(config->SerializeAsString());
  return any;
}

// Created and set up; errors are the registry's or Setup's.
template <typename T>
absl::StatusOr<std::unique_ptr<Metric<T>>> MakeMetric(const std::string& plugin,
                                                      const std::string& config_text,
                                                      const MetricContext<T>& context) {
  absl::StatusOr<google::protobuf::Any> config = MetricConfig(plugin, config_text);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<Metric<T>>> metric = MetricRegistry<T>().Create(plugin, *config);
  if (!metric.ok()) return metric.status();
  if (absl::Status status = (*metric)->Setup(context); !status.ok()) return status;
  return metric;
}

// A model with its training batch, after a forward pass: what a metric's test evaluates on.
template <typename T>
struct MetricTestModel {
  std::unique_ptr<Model<T>> model;
  Batch<T> train;
  std::vector<NamedBatch<T>> validation;
  int marked_column = -1;

  MetricContext<T> Context(std::vector<std::string> metrics = {"loss"}) const {
    MetricContext<T> context{*model};
    context.data.input_shape = train.inputs.shape();
    context.data.target_shape = train.targets.shape();
    context.data.train = &train;
    for (const NamedBatch<T>& set : validation) context.data.validation.push_back(&set);
    context.data.marked_column = marked_column;
    context.metrics = std::move(metrics);
    return context;
  }
};

// `model_text` (a ModelSpec in text format, configs with their type URLs) on `train`, after a
// forward pass.
template <typename T>
MetricTestModel<T> BuildMetricTestModel(const std::string& model_text, Batch<T> train) {
  ModelSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(model_text, &spec)) << model_text;
  ExecContext ctx(1);
  auto model = Model<T>::Create(spec, train.inputs.shape(), train.targets.shape(), ctx);
  EXPECT_TRUE(model.ok()) << model.status();
  MetricTestModel<T> built{std::move(*model), std::move(train)};
  built.model->Forward(built.train.inputs, ctx);
  return built;
}

// Paper 1's prompt layer "attn" with p = 1, W = 1, v = 1 (d = 1) under the logistic loss, on two
// samples: sample 0's tokens (0, ln 2, ln 3) weigh (1, 2, 3) / 6, sample 1's zeros
// (1, 1, 1) / 3; labels +1 and -1.
template <typename T>
MetricTestModel<T> OneDimensionalPromptModel() {
  Batch<T> train{Tensor<T>(Shape{2, 3, 1}), Tensor<T>(Shape{2, 1, 1})};
  train.inputs.flat() << 0, std::log(2.0), std::log(3.0), 0, 0, 0;
  train.targets.flat() << 1, -1;
  return BuildMetricTestModel<T>(R"pb(
    layer {
      name: "attn"
      plugin: "prompt"
      config {
        [type.googleapis.com/attnlab.plugins.PromptAttentionConfig] { p { value: 1 } v { value: 1 } }
      }
    }
    loss { plugin: "logistic" })pb",
                                 std::move(train));
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_METRIC_TESTING_H_
