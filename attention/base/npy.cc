#include "attention/base/npy.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace attnlab {

std::string NpyBytes(const NpyArray& array) {
  std::string shape = absl::StrJoin(array.shape, ", ");
  if (array.shape.size() == 1) shape += ",";  // a Python 1-tuple
  std::string header = absl::StrCat("{'descr': '", array.dtype,
                                    "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of
  // 64 and ended by a newline, as numpy writes it.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + array.data;
}

absl::Status AppendSnapshot(const std::string& path, const NpyArray& item, NpyArrays* arrays) {
  auto [it, fresh] = arrays->try_emplace(path);
  NpyArray& stack = it->second;
  if (fresh) {
    stack.dtype = item.dtype;
    stack.shape = {0};
    stack.shape.insert(stack.shape.end(), item.shape.begin(), item.shape.end());
  } else if (stack.dtype != item.dtype ||
             std::vector<int64_t>(stack.shape.begin() + 1, stack.shape.end()) != item.shape) {
    return absl::InternalError(absl::StrCat(path, ".npy: an entry of dtype ", item.dtype,
                                            " and shape (", absl::StrJoin(item.shape, ", "),
                                            ") does not stack on (",
                                            absl::StrJoin(stack.shape, ", "), ") ", stack.dtype));
  }
  ++stack.shape[0];
  stack.data += item.data;
  return absl::OkStatus();
}

}  // namespace attnlab
