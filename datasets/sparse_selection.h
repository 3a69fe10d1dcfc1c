// Paper 3's STS_q stream (config: SparseSelection in dataset.proto).
#ifndef ATTNLAB_DATASETS_SPARSE_SELECTION_H_
#define ATTNLAB_DATASETS_SPARSE_SELECTION_H_

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "datasets/dataset.h"

namespace attnlab {

template <typename T>
class SparseSelectionStream : public Dataset<T> {
 public:
  // Errors are FieldErrors relative to the SparseSelection message. `seed` draws the
  // validation sets.
  static absl::StatusOr<std::unique_ptr<Dataset<T>>> Create(const SparseSelection& spec,
                                                            uint64_t seed);

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
  explicit SparseSelectionStream(const SparseSelection& spec) : spec_(spec) {}

  SparseSelection spec_;
  std::vector<NamedBatch<T>> validation_;
};

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_SPARSE_SELECTION_H_
