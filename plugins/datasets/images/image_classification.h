// The `images` dataset: image classification data read from files (config: images.proto).
#ifndef ATTNLAB_PLUGINS_DATASETS_IMAGES_IMAGE_CLASSIFICATION_H_
#define ATTNLAB_PLUGINS_DATASETS_IMAGES_IMAGE_CLASSIFICATION_H_

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "datasets/built_dataset.h"
#include "datasets/dataset.h"
#include "datasets/image_files.h"
#include "plugins/datasets/images/images.pb.h"

namespace attnlab {

template <typename T>
class ImageClassification : public Dataset<T> {
 public:
  // Errors are FieldErrors relative to the config; relative paths resolve against
  // `base_dir`.
  static absl::StatusOr<std::unique_ptr<ImageClassification<T>>> Create(
      const plugins::ImagesConfig& spec, const std::string& base_dir);

  Shape input_shape() const override { return train_.inputs.shape(); }
  Shape target_shape() const override { return train_.targets.shape(); }
  const Batch<T>* train() const override { return &train_; }
  const std::vector<NamedBatch<T>>& validation() const override { return validation_; }
  // A random subset of the training split, cropped and flipped as the spec asks.
  void Next(int batch_size, ExecContext& ctx, Batch<T>* out) const override;

  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& std() const { return std_; }

 private:
  ImageClassification(const plugins::ImagesConfig& spec, const LabeledImages& train_images);
  Batch<T> Normalize(const LabeledImages& images) const;
  // One image, height x (width * channels) values at `image`, in place.
  void CropAndFlip(std::mt19937_64& rng, T* image) const;

  plugins::ImagesConfig spec_;
  int height_, width_, channels_;
  std::vector<double> mean_, std_;
  Batch<T> train_;
  std::vector<NamedBatch<T>> validation_;
};

// The plugin: the images the config names, read in Setup.
template <typename T>
class ImagesDataset : public BuiltDataset<T> {
 public:
  static absl::StatusOr<std::unique_ptr<ImagesDataset<T>>> Create(
      const plugins::ImagesConfig& config) {
    return std::unique_ptr<ImagesDataset<T>>(new ImagesDataset<T>(config));
  }

 protected:
  absl::StatusOr<std::unique_ptr<Dataset<T>>> Build(const DatasetContext& context) override;

 private:
  explicit ImagesDataset(plugins::ImagesConfig config) : config_(std::move(config)) {}
  plugins::ImagesConfig config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_DATASETS_IMAGES_IMAGE_CLASSIFICATION_H_
