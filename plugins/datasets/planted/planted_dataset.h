// The `planted` dataset: random sequences with planted token groups (paper 1, setup 1c).
#ifndef ATTNLAB_PLUGINS_DATASETS_PLANTED_PLANTED_DATASET_H_
#define ATTNLAB_PLUGINS_DATASETS_PLANTED_PLANTED_DATASET_H_

#include <memory>

#include "absl/status/statusor.h"
#include "datasets/built_dataset.h"
#include "plugins/datasets/planted/planted.pb.h"

namespace attnlab {

template <typename T>
class PlantedDataset : public BuiltDataset<T> {
 public:
  static absl::StatusOr<std::unique_ptr<PlantedDataset<T>>> Create(
      const plugins::PlantedConfig& config) {
    return std::unique_ptr<PlantedDataset<T>>(new PlantedDataset<T>(config));
  }

 protected:
  // Drawn from the spec's data seed (DatasetSpec.seed).
  absl::StatusOr<std::unique_ptr<Dataset<T>>> Build(const DatasetContext& context) override;

 private:
  explicit PlantedDataset(plugins::PlantedConfig config) : config_(std::move(config)) {}
  plugins::PlantedConfig config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_DATASETS_PLANTED_PLANTED_DATASET_H_
