// Readers for labeled image files: CIFAR-10's binary batches and IDX (MNIST, Fashion-MNIST).
// Both read any number of records, so a user points them at the full official files.
#ifndef ATTNLAB_DATASETS_IMAGE_FILES_H_
#define ATTNLAB_DATASETS_IMAGE_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace attnlab {

// 8-bit images as read, channels interleaved: pixel (r, c) channel k of image i is
// pixels[((i * height + r) * width + c) * channels + k].
struct LabeledImages {
  int height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;
  std::vector<uint8_t> labels;
  int count() const { return static_cast<int>(labels.size()); }
};

// CIFAR-10 binary batches (data_batch_*.bin, test_batch.bin): records of 1 label byte (0-9)
// and 32 x 32 red, green and blue planes, concatenated over `paths` in order. The first
// `max_images` records (0: all). A file that is not a whole number of records is an error.
absl::StatusOr<LabeledImages> ReadCifar10(const std::vector<std::string>& paths, int max_images);

// An IDX image file (magic 0x00000803: count x rows x cols bytes) with its IDX label file
// (0x00000801), plain or gzip-compressed. The first `max_images` (0: all). Errors name the file's
// field of an Images.Split, "images" or "labels" (attention/field_error.h).
absl::StatusOr<LabeledImages> ReadIdx(const std::string& images_path,
                                      const std::string& labels_path, int max_images);

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_IMAGE_FILES_H_
