// Data file paths in specs: relative paths are relative to the spec file's directory.
#ifndef ATTNLAB_DATASETS_DATA_PATH_H_
#define ATTNLAB_DATASETS_DATA_PATH_H_

#include <string>

namespace attnlab {

inline std::string ResolveDataPath(const std::string& path, const std::string& base_dir) {
  if (path.empty() || path[0] == '/' || base_dir.empty()) return path;
  return base_dir + "/" + path;
}

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_DATA_PATH_H_
