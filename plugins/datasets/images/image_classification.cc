#include "plugins/datasets/images/image_classification.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "datasets/data_path.h"

namespace attnlab {
namespace {

absl::StatusOr<LabeledImages> ReadSplit(const plugins::ImagesConfig& spec,
                                        const plugins::ImagesConfig::Split& split,
                                        const std::string& base_dir) {
  if (split.images().empty()) return FieldError("images", "missing required field");
  if (split.max_images() < 0) return FieldError("max_images", "must be >= 0");
  absl::StatusOr<LabeledImages> images;
  if (spec.format() == plugins::ImagesConfig::CIFAR10) {
    if (!split.labels().empty()) {
      return FieldError("labels", "CIFAR-10 records carry their labels; give only images");
    }
    std::vector<std::string> paths;
    for (const std::string& path : split.images()) paths.push_back(ResolveDataPath(path, base_dir));
    images = ReadCifar10(paths, split.max_images());
  } else {
    if (split.images_size() != 1) return FieldError("images", "IDX: give exactly one image file");
    if (split.labels().empty()) return FieldError("labels", "IDX: missing required label file");
    images = ReadIdx(ResolveDataPath(split.images(0), base_dir),
                     ResolveDataPath(split.labels(), base_dir), split.max_images());
  }
  if (!images.ok()) {  // IDX errors name their file's field already
    return ErrorField(images.status()).empty() ? FieldError("images", images.status())
                                               : images.status();
  }
  if (images->count() == 0) return FieldError("images", "no images");
  return images;
}

// Per-channel mean and standard deviation of pixel / 255.
void MeasureChannels(const LabeledImages& images, std::vector<double>* mean,
                     std::vector<double>* std) {
  const int c = images.channels;
  std::vector<double> sum(c, 0), sum_sq(c, 0);
  for (size_t i = 0; i < images.pixels.size(); ++i) {
    const double x = images.pixels[i] / 255.0;
    sum[i % c] += x;
    sum_sq[i % c] += x * x;
  }
  const double n = static_cast<double>(images.pixels.size() / c);
  mean->resize(c);
  std->resize(c);
  for (int k = 0; k < c; ++k) {
    (*mean)[k] = sum[k] / n;
    (*std)[k] = std::sqrt(std::max(sum_sq[k] / n - (*mean)[k] * (*mean)[k], 0.0));
  }
}

}  // namespace

template <typename T>
ImageClassification<T>::ImageClassification(const plugins::ImagesConfig& spec,
                                            const LabeledImages& train)
    : spec_(spec), height_(train.height), width_(train.width), channels_(train.channels) {}

template <typename T>
absl::StatusOr<std::unique_ptr<ImageClassification<T>>> ImageClassification<T>::Create(
    const plugins::ImagesConfig& spec, const std::string& base_dir) {
  if (spec.format() == plugins::ImagesConfig::FORMAT_UNSPECIFIED) {
    return FieldError("format", "missing required field: CIFAR10 or IDX");
  }
  if (spec.crop_padding() < 0) return FieldError("crop_padding", "must be >= 0");
  if (!spec.has_train()) return FieldError("train", "missing required field");
  absl::StatusOr<LabeledImages> train = ReadSplit(spec, spec.train(), base_dir);
  if (!train.ok()) return PrefixErrorField("train", train.status());
  std::unique_ptr<ImageClassification<T>> data(new ImageClassification<T>(spec, *train));
  if (spec.mean().empty() && spec.std().empty()) {
    MeasureChannels(*train, &data->mean_, &data->std_);
  } else {
    for (const char* field : {"mean", "std"}) {
      const int given = std::string(field) == "mean" ? spec.mean_size() : spec.std_size();
      if (given != train->channels) {
        return FieldError(
            field, absl::StrCat("give one value per channel (", train->channels, "), not ", given));
      }
    }
    data->mean_.assign(spec.mean().begin(), spec.mean().end());
    data->std_.assign(spec.std().begin(), spec.std().end());
  }
  for (int k = 0; k < train->channels; ++k) {
    if (!(data->std_[k] > 0)) {
      return FieldError("std", absl::StrCat("channel ", k, " has standard deviation ",
                                            data->std_[k], "; it must be > 0"));
    }
  }
  data->train_ = data->Normalize(*train);
  for (int i = 0; i < spec.validation_size(); ++i) {
    const plugins::ImagesConfig::Split& split = spec.validation(i);
    const std::string field = absl::StrCat("validation[", i, "]");
    if (split.name().empty()) return FieldError(field + ".name", "missing required field");
    absl::StatusOr<LabeledImages> images = ReadSplit(spec, split, base_dir);
    if (!images.ok()) return PrefixErrorField(field, images.status());
    if (images->height != train->height || images->width != train->width ||
        images->channels != train->channels) {
      return FieldError(field + ".images",
                        absl::StrCat(images->height, " x ", images->width, " x ", images->channels,
                                     " images, but the training images are ", train->height, " x ",
                                     train->width, " x ", train->channels));
    }
    data->validation_.push_back({split.name(), data->Normalize(*images)});
  }
  return data;
}

template <typename T>
Batch<T> ImageClassification<T>::Normalize(const LabeledImages& images) const {
  Batch<T> batch;
  batch.inputs.Resize({images.count(), height_, width_ * channels_});
  batch.targets.Resize({images.count(), 1, 1});
  for (size_t i = 0; i < images.pixels.size(); ++i) {
    const int k = static_cast<int>(i % channels_);
    batch.inputs.data()[i] = static_cast<T>((images.pixels[i] / 255.0 - mean_[k]) / std_[k]);
  }
  for (int i = 0; i < images.count(); ++i) batch.targets.data()[i] = images.labels[i];
  return batch;
}

template <typename T>
void ImageClassification<T>::Next(int batch_size, ExecContext& ctx, Batch<T>* out) const {
  Dataset<T>::Next(batch_size, ctx, out);
  if (spec_.crop_padding() == 0 && !spec_.flip()) return;
  for (int b = 0; b < out->inputs.batch(); ++b) {
    CropAndFlip(ctx.rng(), out->inputs.sample(b).data());
  }
}

template <typename T>
void ImageClassification<T>::CropAndFlip(std::mt19937_64& rng, T* image) const {
  const int pad = spec_.crop_padding(), c = channels_, row = width_ * c;
  std::uniform_int_distribution<int> offset(0, 2 * pad);
  const int dy = offset(rng) - pad, dx = offset(rng) - pad;
  const bool flip = spec_.flip() && std::bernoulli_distribution(0.5)(rng);
  const std::vector<T> source(image, image + height_ * row);
  for (int r = 0; r < height_; ++r) {
    for (int col = 0; col < width_; ++col) {
      const int sr = r + dy, sc = (flip ? width_ - 1 - col : col) + dx;
      const bool inside = sr >= 0 && sr < height_ && sc >= 0 && sc < width_;
      for (int k = 0; k < c; ++k) {
        // Padding is black: pixel 0, normalized.
        image[r * row + col * c + k] =
            inside ? source[sr * row + sc * c + k] : static_cast<T>(-mean_[k] / std_[k]);
      }
    }
  }
}

template class ImageClassification<float>;
template class ImageClassification<double>;

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> ImagesDataset<T>::Build(const DatasetContext& context) {
  ASSIGN_OR_RETURN(std::unique_ptr<ImageClassification<T>> images,
                   ImageClassification<T>::Create(config_, context.base_dir));
  return std::unique_ptr<Dataset<T>>(std::move(images));
}

template class ImagesDataset<float>;
template class ImagesDataset<double>;

ATTNLAB_REGISTER_DATASET("images", plugins::ImagesConfig, ImagesDataset,
                         "image classification from CIFAR-10 binary or IDX (MNIST, Fashion-MNIST) "
                         "files, normalized per channel, with random crops and flips",
                         {"format: IDX train { images: 'datasets/testdata/fashion_mnist_tiny/"
                          "train-images-idx3-ubyte.gz' labels: 'datasets/testdata/"
                          "fashion_mnist_tiny/train-labels-idx1-ubyte.gz' } crop_padding: 1 "
                          "flip: true"});

}  // namespace attnlab
