// The data files a trial reads, and their content hashes: part of the trial's identity, so
// an edited data file, or the same relative path seen from another folder, never reuses the
// results of other data.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_TRIAL_DATA_H_
#define ATTNLAB_EXPERIMENTS_SPEC_TRIAL_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace attnlab {

struct DataFile {
  // The canonical path (symbolic links and "..", resolved).
  std::string path;
  uint64_t size = 0;
  // FNV-1a 64 of the content, 16 hex digits.
  std::string hash;
};

// Every file the spec names in a field marked [(data_file) = true] (datasets/data_file.proto),
// plugin configs included, resolved against `base_dir` as the readers resolve them; in field
// order, each once.
std::vector<std::string> DataFilePaths(const google::protobuf::Message& spec,
                                       const std::string& base_dir);

// Each file's canonical path, size and content hash. A hash is computed once per file
// version: it is cached, in this process and in $XDG_CACHE_HOME/attnlab/data_hashes.tsv
// (~/.cache when unset), under the file's device, inode, size and modification and change
// times. NotFound when a file cannot be read.
absl::StatusOr<std::vector<DataFile>> FingerprintDataFiles(const std::vector<std::string>& paths);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_TRIAL_DATA_H_
