// The Dataset interface: fixed training sets (the paper-1 inputs, file readers) and streams of
// fresh samples (online SGD). Samples are token matrices [T, d] with targets.
#ifndef ATTNLAB_DATASETS_DATASET_H_
#define ATTNLAB_DATASETS_DATASET_H_

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/batch.h"
#include "attention/exec_context.h"
#include "attention/tensor.h"
#include "datasets/dataset.pb.h"

namespace attnlab {

template <typename T>
class Dataset {
 public:
  virtual ~Dataset() = default;

  // Shapes of the whole training set (fixed) or of one sample (stream, batch = 1).
  virtual Shape input_shape() const = 0;
  virtual Shape target_shape() const = 0;

  // Fixed sets return their training split; streams have none and return null.
  virtual const Batch<T>* train() const = 0;

  // A batch of `batch_size` samples: fresh draws from ctx.rng() for a stream; for a fixed set a
  // uniformly random subset without replacement. Samples are drawn or copied on ctx's threads;
  // the batch does not depend on their number. Trials that read the same data share one
  // dataset (shared_dataset.h) and may call this at once: it must not change the dataset.
  virtual void Next(int batch_size, ExecContext& ctx, Batch<T>* out) const;

  // Held-out sets, fixed before training (possibly of other sequence lengths).
  virtual const std::vector<NamedBatch<T>>& validation() const { return no_validation_; }

  // The input column that marks tokens (1) from the others (0), as paper 3's task marks the set
  // y; -1 when the inputs mark nothing. Metrics of attention on marked tokens need one.
  virtual int marked_column() const { return -1; }

 private:
  std::vector<NamedBatch<T>> no_validation_;
};

// The dataset plugin the spec names, set up. Errors are FieldErrors relative to the
// DatasetSpec. Relative file paths resolve against `base_dir` (the spec file's directory).
template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> CreateDataset(const DatasetSpec& spec,
                                                          const std::string& base_dir = "");

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_DATASET_H_
