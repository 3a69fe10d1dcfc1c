// Files of the results store and checkpoints: atomic writes, whole-file reads, mkdir -p and
// removal, with errors that name the path.
#ifndef ATTNLAB_ATTENTION_BASE_FILES_H_
#define ATTNLAB_ATTENTION_BASE_FILES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace attnlab {

// Writes `contents` to a temporary file beside `path` ("<path>.tmp.<pid>"), then renames it
// over `path`: readers see the old file or the new one, never half of one.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// The whole file; NotFound when it does not exist.
absl::StatusOr<std::string> ReadFile(const std::string& path);

bool Exists(const std::string& path);

// An internal error "what: strerror(errno)", for a failed system call.
absl::Status ErrnoError(const std::string& what);

// mkdir -p.
absl::Status MakeDirectories(const std::string& path);

// The directory part of `path` ("." for a bare file name).
inline std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// FNV-1a, 64 bit: stable across runs, machines and builds (unlike std::hash or absl::Hash);
// trial ids and trial manifests.
uint64_t Fnv1a(absl::string_view bytes);

// Removes a file or a directory tree (symbolic links are removed, not followed); a missing
// path is not an error.
absl::Status RemoveTree(const std::string& path);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_BASE_FILES_H_
