// Paths a user types under `bazel run`, which starts programs in their runfiles tree.
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

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_USER_PATHS_H_
