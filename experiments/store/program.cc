#include "experiments/store/program.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace attnlab {

std::string ProgramKey(const CodeVersion& code) {
  CodeVersion program = code;
  program.machine.clear();
  program.products.clear();
  return program.Key();
}

std::string DescribeProgram(const CodeVersion& code) {
  std::vector<std::string> named;
  for (const auto& [folder, hash] : code.plugins) {
    named.push_back(absl::StrCat(folder.substr(folder.rfind('/') + 1), " ", hash.substr(0, 8)));
  }
  return absl::StrCat("program ", ProgramKey(code), " (commit ", code.ShortCommit(), ", source ",
                      code.source,
                      named.empty() ? "" : absl::StrCat(", plugins ", absl::StrJoin(named, " ")),
                      ", compiler ", code.compiler, ", ", code.flags, ")");
}

std::string DescribeCpu(const CodeVersion& code) {
  return absl::StrCat(code.machine, " (products ", code.products, ")");
}

}  // namespace attnlab
