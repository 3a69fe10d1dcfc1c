#include "experiments/reproduction/claims_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace attnlab {

std::vector<std::string> RepositoryClaimsFiles(const std::string& experiments_dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(experiments_dir, error)) {
    std::error_code ignored;
    if (std::filesystem::is_regular_file(entry.path() / "claims.textproto", ignored)) {
      files.push_back("experiments/" + entry.path().filename().string() + "/claims.textproto");
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace attnlab
