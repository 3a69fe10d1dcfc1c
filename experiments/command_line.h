#ifndef ATTNLAB_EXPERIMENTS_COMMAND_LINE_H_
#define ATTNLAB_EXPERIMENTS_COMMAND_LINE_H_

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
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

// The default thread budget: every core, shared among the mpirun ranks on this machine, and
// no more than the cores this process may run on (mpirun binds each rank to a core or a socket
// by default; threads beyond them would only take turns).
inline int DefaultThreads() {
  int local_ranks = 1;
  if (const char* n = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
    local_ranks = std::max(1, std::atoi(n));
  int threads = static_cast<int>(std::thread::hardware_concurrency()) / local_ranks;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    threads = std::min(threads, CPU_COUNT(&allowed));
  }
  return std::max(1, threads);
}

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_COMMAND_LINE_H_
