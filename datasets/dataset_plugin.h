// The interface of a dataset plugin: a Dataset (dataset.h) built from its config message and
// set up with what the spec around it gives (the spec file's directory, the data seed). A spec
// names one as
//   dataset { plugin: "max_token_retrieval" config { seq_len: 8 dim: 4 } }
// and a plugin folder registers it with ATTNLAB_REGISTER_DATASET (plugins/max_token_retrieval
// is the template). A string field marked [(attnlab.data_file) = true] in its config is a data
// file: its content is part of every trial's id.
#ifndef ATTNLAB_DATASETS_DATASET_PLUGIN_H_
#define ATTNLAB_DATASETS_DATASET_PLUGIN_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "attention/plugin_registry.h"
#include "attention/registry.h"
#include "datasets/dataset.h"

namespace attnlab {

struct DatasetContext {
  // Relative data paths resolve against it (datasets/data_path.h).
  std::string base_dir;
  // DatasetSpec.seed: draws what is fixed before training (validation sets, hidden parameters).
  uint64_t seed = 0;
};

template <typename T>
class DatasetPlugin : public Dataset<T> {
 public:
  // Reads or draws what is fixed before training. Errors are FieldErrors relative to the
  // plugin's config.
  virtual absl::Status Setup(const DatasetContext& context) = 0;
};

template <typename T>
Registry<DatasetPlugin<T>>& DatasetRegistry() {
  return Registry<DatasetPlugin<T>>::Global("dataset");
}

}  // namespace attnlab

// At the end of a dataset plugin's .cc:
//   ATTNLAB_REGISTER_DATASET("max_token_retrieval", MaxTokenRetrievalConfig, MaxTokenRetrieval,
//                            "one-line summary", {"example config", ...});
#define ATTNLAB_REGISTER_DATASET(name, Config, Plugin, summary, ...)                           \
  static const bool ATTNLAB_CONCAT(attnlab_registered_dataset_, __LINE__) =                    \
      ::attnlab::RegisterTyped<Config, Plugin, ::attnlab::DatasetPlugin>(                      \
          __FILE__, ::attnlab::DatasetRegistry<float>(), ::attnlab::DatasetRegistry<double>(), \
          name, summary, __VA_ARGS__)

#endif  // ATTNLAB_DATASETS_DATASET_PLUGIN_H_
