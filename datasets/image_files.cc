#include "datasets/image_files.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "datasets/data_path.h"
#include "zlib.h"

namespace attnlab {
namespace {

constexpr int kCifarSide = 32, kCifarChannels = 3, kCifarClasses = 10;
constexpr int kCifarRecord = 1 + kCifarSide * kCifarSide * kCifarChannels;  // 3073 bytes

absl::Status CannotRead(const std::string& path) {
  return absl::NotFoundError(absl::StrCat(path, ": cannot read (", std::strerror(errno), ")"));
}

// The whole file, gunzipped when it is gzip (zlib reads plain files as they are).
absl::StatusOr<std::string> ReadMaybeGzip(const std::string& path) {
  if (absl::Status status = CheckDataFile(path); !status.ok()) return status;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return CannotRead(path);
  std::string data;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(file, buffer, sizeof(buffer))) > 0) data.append(buffer, n);
  int error = Z_OK;
  const std::string message = n < 0 ? gzerror(file, &error) : "";
  gzclose(file);
  if (n < 0) return absl::DataLossError(absl::StrCat(path, ": corrupt or truncated gzip (", message, ")"));
  return data;
}

uint32_t BigEndian(const std::string& data, size_t offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data()) + offset;
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// The IDX header's dimensions after checking the magic number (0x0000 08 <dims>: unsigned
// bytes) and that the file holds exactly the data they promise.
absl::StatusOr<std::vector<uint32_t>> IdxDimensions(const std::string& data, int dims,
                                                    const std::string& path, const char* what) {
  const uint32_t expected_magic = 0x00000800u | static_cast<uint32_t>(dims);
  const size_t header = 4 + 4 * static_cast<size_t>(dims);
  if (data.size() < 4 || BigEndian(data, 0) != expected_magic) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not an IDX ", what, " file (magic number ",
        data.size() < 4 ? std::string("missing") : absl::StrCat(absl::Hex(BigEndian(data, 0))),
        ", expected ", absl::Hex(expected_magic), ")"));
  }
  if (data.size() < header) {
    return absl::DataLossError(absl::StrCat(path, ": truncated IDX header"));
  }
  std::vector<uint32_t> sizes;
  uint64_t total = 1;
  bool overflow = false;  // three 32-bit sizes can exceed 64 bits, and wrap to a small product
  for (int d = 0; d < dims; ++d) {
    sizes.push_back(BigEndian(data, 4 + 4 * d));
    overflow |= __builtin_mul_overflow(total, uint64_t{sizes.back()}, &total);
  }
  if (overflow) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": the header's sizes multiply past 2^64 bytes"));
  }
  if (data.size() - header != total) {
    return absl::DataLossError(absl::StrCat(path, ": the header promises ", total,
                                            " bytes of data, the file holds ",
                                            data.size() - header,
                                            data.size() - header < total ? " (truncated)" : ""));
  }
  return sizes;
}

}  // namespace

absl::StatusOr<LabeledImages> ReadCifar10(const std::vector<std::string>& paths, int max_images) {
  if (paths.empty()) return absl::InvalidArgumentError("no CIFAR-10 files given");
  LabeledImages images;
  images.height = images.width = kCifarSide;
  images.channels = kCifarChannels;
  constexpr int kPlane = kCifarSide * kCifarSide;
  for (const std::string& path : paths) {
    if (absl::Status status = CheckDataFile(path); !status.ok()) return status;
    std::ifstream in(path, std::ios::binary);
    if (!in) return CannotRead(path);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.empty() || data.size() % kCifarRecord != 0) {
      return absl::DataLossError(absl::StrCat(
          path, ": ", data.size(), " bytes is not a whole number of ", kCifarRecord,
          "-byte CIFAR-10 records (truncated, or not a CIFAR-10 binary batch)"));
    }
    const size_t records = data.size() / kCifarRecord;
    for (size_t r = 0; r < records; ++r) {
      if (max_images > 0 && images.count() == max_images) return images;
      const auto* record = reinterpret_cast<const unsigned char*>(data.data()) + r * kCifarRecord;
      if (record[0] >= kCifarClasses) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": record ", r, " has label ",
                                                       int(record[0]),
                                                       ", not a CIFAR-10 class 0-9"));
      }
      images.labels.push_back(record[0]);
      // Planes R, G, B to interleaved pixels.
      for (int i = 0; i < kPlane; ++i) {
        for (int k = 0; k < kCifarChannels; ++k) {
          images.pixels.push_back(record[1 + k * kPlane + i]);
        }
      }
    }
  }
  return images;
}

absl::StatusOr<LabeledImages> ReadIdx(const std::string& images_path,
                                      const std::string& labels_path, int max_images) {
  // Errors name the spec field of the file they are about.
  absl::StatusOr<std::string> pixels = ReadMaybeGzip(images_path);
  if (!pixels.ok()) return FieldError("images", pixels.status());
  absl::StatusOr<std::string> labels = ReadMaybeGzip(labels_path);
  if (!labels.ok()) return FieldError("labels", labels.status());
  absl::StatusOr<std::vector<uint32_t>> image_dims = IdxDimensions(*pixels, 3, images_path, "image");
  if (!image_dims.ok()) return FieldError("images", image_dims.status());
  absl::StatusOr<std::vector<uint32_t>> label_dims = IdxDimensions(*labels, 1, labels_path, "label");
  if (!label_dims.ok()) return FieldError("labels", label_dims.status());
  if ((*label_dims)[0] != (*image_dims)[0]) {
    return FieldError("labels", absl::StrCat(labels_path, " holds ", (*label_dims)[0],
                                             " labels for the ", (*image_dims)[0], " images of ",
                                             images_path));
  }
  constexpr uint32_t kMaxSide = 1 << 15;
  for (uint32_t side : {(*image_dims)[1], (*image_dims)[2]}) {
    if (side < 1 || side > kMaxSide) {
      return FieldError("images", absl::StrCat(images_path, ": images of ", (*image_dims)[1],
                                               " x ", (*image_dims)[2],
                                               " pixels (each side must be 1 to ", kMaxSide, ")"));
    }
  }
  LabeledImages images;
  images.height = static_cast<int>((*image_dims)[1]);
  images.width = static_cast<int>((*image_dims)[2]);
  images.channels = 1;
  uint32_t count = (*image_dims)[0];
  if (max_images > 0 && static_cast<uint32_t>(max_images) < count) count = max_images;
  const size_t image_bytes = size_t(images.height) * images.width;
  images.pixels.assign(pixels->begin() + 16, pixels->begin() + 16 + count * image_bytes);
  images.labels.assign(labels->begin() + 8, labels->begin() + 8 + count);
  return images;
}

}  // namespace attnlab
