// Data file paths in specs: relative paths are relative to the spec file's directory.
#ifndef ATTNLAB_DATASETS_DATA_PATH_H_
#define ATTNLAB_DATASETS_DATA_PATH_H_

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace attnlab {

// Before a reader opens `path`: NotFound "path: cannot read (reason)" when it cannot be read,
// InvalidArgument "path: is a directory, not a file" (a reader would see an empty or corrupt
// file, or throw).
inline absl::Status CheckDataFile(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot read (", std::strerror(errno), ")"));
  }
  if (S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a file"));
  }
  return absl::OkStatus();
}

inline std::string ResolveDataPath(const std::string& path, const std::string& base_dir) {
  if (path.empty() || path[0] == '/' || base_dir.empty()) return path;
  return base_dir + "/" + path;
}

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_DATA_PATH_H_
