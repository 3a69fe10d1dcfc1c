// A dataset held in memory as one batch.
#ifndef ATTNLAB_DATASETS_FIXED_DATASET_H_
#define ATTNLAB_DATASETS_FIXED_DATASET_H_

#include "datasets/dataset.h"

namespace attnlab {

template <typename T>
class FixedDataset : public Dataset<T> {
 public:
  explicit FixedDataset(Batch<T> train) : train_(std::move(train)) {}

  Shape input_shape() const override { return train_.inputs.shape(); }
  Shape target_shape() const override { return train_.targets.shape(); }
  const Batch<T>* train() const override { return &train_; }
  const std::vector<NamedBatch<T>>& validation() const override { return validation_; }
  void AddValidation(NamedBatch<T> set) { validation_.push_back(std::move(set)); }

 private:
  Batch<T> train_;
  std::vector<NamedBatch<T>> validation_;
};

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_FIXED_DATASET_H_
