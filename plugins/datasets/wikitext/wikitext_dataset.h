// The `wikitext` dataset: word-level language modeling on WikiText-style files.
#ifndef ATTNLAB_PLUGINS_DATASETS_WIKITEXT_WIKITEXT_DATASET_H_
#define ATTNLAB_PLUGINS_DATASETS_WIKITEXT_WIKITEXT_DATASET_H_

#include <memory>

#include "absl/status/statusor.h"
#include "datasets/built_dataset.h"
#include "plugins/datasets/wikitext/wikitext.pb.h"

namespace attnlab {

template <typename T>
class WikiTextDataset : public BuiltDataset<T> {
 public:
  static absl::StatusOr<std::unique_ptr<WikiTextDataset<T>>> Create(
      const plugins::WikiTextConfig& config) {
    return std::unique_ptr<WikiTextDataset<T>>(new WikiTextDataset<T>(config));
  }

 protected:
  // Reads the files; relative paths resolve against the spec's directory.
  absl::StatusOr<std::unique_ptr<Dataset<T>>> Build(const DatasetContext& context) override;

 private:
  explicit WikiTextDataset(plugins::WikiTextConfig config) : config_(std::move(config)) {}
  plugins::WikiTextConfig config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_DATASETS_WIKITEXT_WIKITEXT_DATASET_H_
