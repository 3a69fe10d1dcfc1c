// Arrays in numpy's .npy format (version 1.0: little-endian, C order), the format of a trial's
// parameter snapshots and reference solutions (results_store.h); np.load reads them.
#ifndef ATTNLAB_ATTENTION_BASE_NPY_H_
#define ATTNLAB_ATTENTION_BASE_NPY_H_

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"

namespace attnlab {

struct NpyArray {
  // numpy's type string: "<f8" (double), "<f4" (float), "<i8" (int64), "|b1" (bool).
  std::string dtype;
  std::vector<int64_t> shape;
  // The elements' bytes, C order.
  std::string data;

  template <typename T>
  static NpyArray Of(std::vector<int64_t> shape, const T* values) {
    static_assert(std::is_same_v<T, double> || std::is_same_v<T, float> ||
                      std::is_same_v<T, int64_t> || std::is_same_v<T, bool>,
                  "double, float, int64_t or bool");
    NpyArray array;
    array.dtype = std::is_same_v<T, double>    ? "<f8"
                  : std::is_same_v<T, float>   ? "<f4"
                  : std::is_same_v<T, int64_t> ? "<i8"
                                               : "|b1";
    array.shape = std::move(shape);
    int64_t count = 1;
    for (int64_t extent : array.shape) count *= extent;
    array.data.assign(reinterpret_cast<const char*>(values), count * sizeof(T));
    return array;
  }
};

// The whole .npy file.
std::string NpyBytes(const NpyArray& array);

// Named arrays, keyed by their path below a trial's directory without ".npy"
// ("params/attention/p").
using NpyArrays = std::map<std::string, NpyArray>;

// Appends `item` to the array at `path` as one more entry along a new leading axis (the first
// item makes it [1, item's shape...]). Every item at one path has the same dtype and shape.
absl::Status AppendSnapshot(const std::string& path, const NpyArray& item, NpyArrays* arrays);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_BASE_NPY_H_
