// Bytes as a CIFAR-10 binary batch: images with labels 0-9, or an error with a message.
#include <cstdint>
#include <cstdlib>

#include "datasets/image_files.h"
#include "tools/fuzz/temp_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const attnlab::TempFile file(data, size, "data_batch.bin");
  for (int max_images : {0, 1}) {
    absl::StatusOr<attnlab::LabeledImages> images = attnlab::ReadCifar10({file.path()}, max_images);
    if (!images.ok()) {
      if (images.status().message().empty()) std::abort();
      continue;
    }
    if (images->height < 1 || images->width < 1 || images->channels < 1) std::abort();
  const size_t pixels = size_t(images->height) * images->width * images->channels;
    if (images->pixels.size() != pixels * images->labels.size()) std::abort();
    for (uint8_t label : images->labels) {
      if (label > 9) std::abort();
    }
  }
  return 0;
}
