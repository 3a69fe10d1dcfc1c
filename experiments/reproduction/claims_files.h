// Where the repository's papers are: each is one folder experiments/<folder>/ holding its
// claims.textproto, so adding a paper is adding a folder (the claims command and the per-paper
// tests find it).
#ifndef ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_FILES_H_
#define ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_FILES_H_

#include <string>
#include <vector>

namespace attnlab {

// "experiments/<folder>/claims.textproto" for every folder of `experiments_dir` (the
// repository's experiments/) that holds a claims.textproto, sorted; empty when the directory
// cannot be read.
std::vector<std::string> RepositoryClaimsFiles(const std::string& experiments_dir);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_FILES_H_
