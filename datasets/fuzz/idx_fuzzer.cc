// Bytes as an IDX image file and its label file, plain or gzip: the first two bytes (little
// endian) say where the images end and the labels begin. Images whose pixel count matches
// their header and labels, or an error with a message.
#include <cstdint>
#include <cstdlib>

#include "datasets/image_files.h"
#include "tools/fuzz/temp_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t split = std::min<size_t>(size - 2, data[0] | size_t(data[1]) << 8);
  const attnlab::TempFile images_file(data + 2, split, "images-idx3-ubyte");
  const attnlab::TempFile labels_file(data + 2 + split, size - 2 - split, "labels-idx1-ubyte");
  absl::StatusOr<attnlab::LabeledImages> images =
      attnlab::ReadIdx(images_file.path(), labels_file.path(), 0);
  if (!images.ok()) {
    if (images.status().message().empty()) std::abort();
    return 0;
  }
  if (images->height < 1 || images->width < 1 || images->channels < 1) std::abort();
  const size_t pixels = size_t(images->height) * images->width * images->channels;
  if (images->pixels.size() != pixels * images->labels.size()) std::abort();
  return 0;
}
