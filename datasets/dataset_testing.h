// Datasets for tests, built as a spec builds them: a plugin name and its config in text format.
#ifndef ATTNLAB_DATASETS_DATASET_TESTING_H_
#define ATTNLAB_DATASETS_DATASET_TESTING_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "attention/plugin_catalog.h"
#include "datasets/dataset.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"

namespace attnlab {

// The DatasetSpec { plugin config seed } for `config_text`, a text-format config of `plugin`.
inline absl::StatusOr<DatasetSpec> DatasetSpecFor(const std::string& plugin,
                                                  const std::string& config_text,
                                                  uint64_t seed = 0) {
  const PluginInfo* info = FindPlugin("dataset", plugin);
  if (info == nullptr || info->config_type == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("no dataset plugin '", plugin, "' with a config"));
  }
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> config(factory.GetPrototype(info->config_type)->New());
  if (!google::protobuf::TextFormat::ParseFromString(config_text, config.get())) {
    return absl::InvalidArgumentError(absl::StrCat("config does not parse: ", config_text));
  }
  DatasetSpec spec;
  spec.set_plugin(plugin);
  spec.mutable_config()->set_type_url("type.googleapis.com/" + info->config_type->full_name());
  spec.mutable_config()->set_value(config->SerializeAsString());
  spec.set_seed(seed);
  return spec;
}

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> MakeDataset(const std::string& plugin,
                                                        const std::string& config_text,
                                                        uint64_t seed = 0,
                                                        const std::string& base_dir = "") {
  absl::StatusOr<DatasetSpec> spec = DatasetSpecFor(plugin, config_text, seed);
  if (!spec.ok()) return spec.status();
  return CreateDataset<T>(*spec, base_dir);
}

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_DATASET_TESTING_H_
