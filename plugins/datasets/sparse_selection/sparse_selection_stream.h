// The `sparse_selection` dataset: paper 3's STS_q stream (config: sparse_selection.proto).
#ifndef ATTNLAB_PLUGINS_DATASETS_SPARSE_SELECTION_SPARSE_SELECTION_STREAM_H_
#define ATTNLAB_PLUGINS_DATASETS_SPARSE_SELECTION_SPARSE_SELECTION_STREAM_H_

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "datasets/dataset_plugin.h"
#include "plugins/datasets/sparse_selection/sparse_selection.pb.h"

namespace attnlab {

template <typename T>
class SparseSelectionStream : public DatasetPlugin<T> {
 public:
  // Errors are FieldErrors relative to the config.
  static absl::StatusOr<std::unique_ptr<SparseSelectionStream<T>>> Create(
      const plugins::SparseSelectionConfig& spec);
  // Draws the validation sets from the data seed.
  absl::Status Setup(const DatasetContext& context) override;

  Shape input_shape() const override { return {1, spec_.seq_len(), spec_.dim() + 1}; }
  Shape target_shape() const override { return {1, 1, spec_.dim()}; }
  const Batch<T>* train() const override { return nullptr; }
  void Next(int batch_size, ExecContext& ctx, Batch<T>* out) const override;
  const std::vector<NamedBatch<T>>& validation() const override { return validation_; }
  int marked_column() const override { return spec_.dim(); }  // after the d token entries

  // `batch_size` samples of length `seq_len`, sample i drawn from StreamSeed(seed, i), on
  // ctx's threads (ctx's own random stream is not used).
  void Draw(int batch_size, int seq_len, uint64_t seed, ExecContext& ctx, Batch<T>* out) const;

 private:
  explicit SparseSelectionStream(const plugins::SparseSelectionConfig& spec) : spec_(spec) {}

  plugins::SparseSelectionConfig spec_;
  std::vector<NamedBatch<T>> validation_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_DATASETS_SPARSE_SELECTION_SPARSE_SELECTION_STREAM_H_
