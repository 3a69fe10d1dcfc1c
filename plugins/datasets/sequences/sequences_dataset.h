// The `sequences` dataset: paper 1's inputs written out in the spec, token by token.
#ifndef ATTNLAB_PLUGINS_DATASETS_SEQUENCES_SEQUENCES_DATASET_H_
#define ATTNLAB_PLUGINS_DATASETS_SEQUENCES_SEQUENCES_DATASET_H_

#include <memory>

#include "absl/status/statusor.h"
#include "datasets/built_dataset.h"
#include "plugins/datasets/sequences/sequences.pb.h"

namespace attnlab {

template <typename T>
class SequencesDataset : public BuiltDataset<T> {
 public:
  static absl::StatusOr<std::unique_ptr<SequencesDataset<T>>> Create(
      const plugins::SequencesConfig& config) {
    return std::unique_ptr<SequencesDataset<T>>(new SequencesDataset<T>(config));
  }

 protected:
  absl::StatusOr<std::unique_ptr<Dataset<T>>> Build(const DatasetContext& context) override;

 private:
  explicit SequencesDataset(plugins::SequencesConfig config) : config_(std::move(config)) {}
  plugins::SequencesConfig config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_DATASETS_SEQUENCES_SEQUENCES_DATASET_H_
