// Image classification data read from files (config: Images in dataset.proto).
#ifndef ATTNLAB_DATASETS_IMAGE_CLASSIFICATION_H_
#define ATTNLAB_DATASETS_IMAGE_CLASSIFICATION_H_

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "datasets/dataset.h"
#include "datasets/image_files.h"

namespace attnlab {

template <typename T>
class ImageClassification : public Dataset<T> {
 public:
  // Errors are FieldErrors relative to the Images message; relative paths resolve against
  // `base_dir`.
  static absl::StatusOr<std::unique_ptr<ImageClassification<T>>> Create(
      const Images& spec, const std::string& base_dir);

  Shape input_shape() const override { return train_.inputs.shape(); }
  Shape target_shape() const override { return train_.targets.shape(); }
  const Batch<T>* train() const override { return &train_; }
  const std::vector<NamedBatch<T>>& validation() const override { return validation_; }
  // A random subset of the training split, cropped and flipped as the spec asks.
  void Next(int batch_size, ExecContext& ctx, Batch<T>* out) const override;

  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& std() const { return std_; }

 private:
  ImageClassification(const Images& spec, const LabeledImages& train_images);
  Batch<T> Normalize(const LabeledImages& images) const;
  // One image, height x (width * channels) values at `image`, in place.
  void CropAndFlip(std::mt19937_64& rng, T* image) const;

  Images spec_;
  int height_, width_, channels_;
  std::vector<double> mean_, std_;
  Batch<T> train_;
  std::vector<NamedBatch<T>> validation_;
};

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_IMAGE_CLASSIFICATION_H_
