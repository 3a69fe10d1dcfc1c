// Paths a user types under `bazel run`, which starts programs in their runfiles tree, and
// attnlab's cache directory.
#ifndef ATTNLAB_EXPERIMENTS_USER_PATHS_H_
#define ATTNLAB_EXPERIMENTS_USER_PATHS_H_

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace attnlab {

// Users mean paths relative to where they typed the command.
inline std::string ResolveUserPath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr) return path;
  return absl::StrCat(cwd, "/", path);
}

// Specs named by per-experiment targets live in the source tree: `bazel run` says where it is.
// (Not runfiles: there the binary //experiments:max_margin would shadow the folder
// experiments/max_margin/.)
inline std::string ResolveWorkspacePath(const std::string& path) {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (path.empty() || path[0] == '/' || workspace == nullptr) return path;
  return absl::StrCat(workspace, "/", path);
}

// attnlab's cache directory: $XDG_CACHE_HOME/attnlab, else ~/.cache/attnlab; empty where
// neither variable holds an absolute path.
inline std::string CacheDirectory() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if (cache != nullptr && cache[0] == '/') return absl::StrCat(cache, "/attnlab");
  if (home != nullptr && home[0] == '/') return absl::StrCat(home, "/.cache/attnlab");
  return "";
}

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_USER_PATHS_H_
