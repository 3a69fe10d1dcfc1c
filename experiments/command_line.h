#ifndef ATTNLAB_EXPERIMENTS_COMMAND_LINE_H_
#define ATTNLAB_EXPERIMENTS_COMMAND_LINE_H_

#include <cstdio>
#include <vector>

#include "absl/flags/parse.h"

namespace attnlab {

// absl::ParseCommandLine, then false after a one-line error when a word is not a flag: absl
// hands such words back, and ignoring one (`claims 3` for `claims --paper=3`) would run the
// default, every paper, instead of what was asked.
inline bool ParseFlagsOnly(int argc, char** argv) {
  std::vector<char*> words = absl::ParseCommandLine(argc, argv);
  if (words.size() > 1) {
    std::fprintf(stderr, "%s: not a flag (flags are written --name=value; --help lists them)\n",
                 words[1]);
    return false;
  }
  return true;
}

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_COMMAND_LINE_H_
