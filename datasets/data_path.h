// Data file paths in specs: relative paths are relative to the spec file's directory.
#ifndef ATTNLAB_DATASETS_DATA_PATH_H_
#define ATTNLAB_DATASETS_DATA_PATH_H_

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace attnlab {

// The papers' data, which specs name as `../shared/data` next to the checkout, is read from
// $ATTNLAB_SHARED_DATA when that is set: a checkout elsewhere finds it there.
inline constexpr char kSharedData[] = "shared/data/";

// Before a reader opens `path`: NotFound "path: cannot read (reason)" when it cannot be read,
// InvalidArgument "path: is a directory, not a file" (a reader would see an empty or corrupt
// file, or throw).
inline absl::Status CheckDataFile(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    const bool shared = path.find(kSharedData) != std::string::npos;
    return absl::NotFoundError(absl::StrCat(
        path, ": cannot read (", std::strerror(errno), ")",
        shared ? "; a checkout not next to shared/data finds it with ATTNLAB_SHARED_DATA=<dir>"
               : ""));
  }
  if (S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a file"));
  }
  return absl::OkStatus();
}

// A relative path is relative to the spec's directory `base_dir`; one through a folder
// shared/data/ is relative to $ATTNLAB_SHARED_DATA instead, when that is set.
inline std::string ResolveDataPath(const std::string& path, const std::string& base_dir) {
  if (path.empty() || path[0] == '/') return path;
  const char* shared = std::getenv("ATTNLAB_SHARED_DATA");
  const size_t at = path.find(kSharedData);
  if (shared != nullptr && *shared != 0 && at != std::string::npos &&
      (at == 0 || path[at - 1] == '/')) {
    return absl::StrCat(shared, "/", path.substr(at + sizeof(kSharedData) - 1));
  }
  if (base_dir.empty()) return path;
  return base_dir + "/" + path;
}

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_DATA_PATH_H_
