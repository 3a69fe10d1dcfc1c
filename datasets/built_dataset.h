// A dataset plugin whose data a function builds in Setup: a plugin that reads or draws a whole
// Dataset at once (a fixed set, a reader's result) derives from it and implements Build.
#ifndef ATTNLAB_DATASETS_BUILT_DATASET_H_
#define ATTNLAB_DATASETS_BUILT_DATASET_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/base/status_macros.h"
#include "datasets/dataset_plugin.h"

namespace attnlab {

template <typename T>
class BuiltDataset : public DatasetPlugin<T> {
 public:
  absl::Status Setup(const DatasetContext& context) final {
    ASSIGN_OR_RETURN(data_, Build(context));
    return absl::OkStatus();
  }

  Shape input_shape() const override { return data_->input_shape(); }
  Shape target_shape() const override { return data_->target_shape(); }
  const Batch<T>* train() const override { return data_->train(); }
  void Next(int batch_size, ExecContext& ctx, Batch<T>* out) const override {
    data_->Next(batch_size, ctx, out);
  }
  const std::vector<NamedBatch<T>>& validation() const override { return data_->validation(); }
  int marked_column() const override { return data_->marked_column(); }

 protected:
  // The data. Errors are FieldErrors relative to the plugin's config.
  virtual absl::StatusOr<std::unique_ptr<Dataset<T>>> Build(const DatasetContext& context) = 0;

 private:
  std::unique_ptr<Dataset<T>> data_;
};

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_BUILT_DATASET_H_
