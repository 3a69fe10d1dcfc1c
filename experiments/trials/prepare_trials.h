// A spec's trials before any runs: the sweep expanded, each trial built once (a dry run: a typo
// in the last sweep value fails now, not after an hour) and checked (finite numbers, report
// steps and columns), with the data files it reads and the code it runs in its identity.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_PREPARE_TRIALS_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_PREPARE_TRIALS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/spec/spec_loader.h"
#include "experiments/spec/sweep.h"
#include "experiments/store/code_version.h"

namespace attnlab {

struct PreparedTrials {
  std::vector<Trial> trials;
  // "loss" and the metrics' names, in column order.
  std::vector<std::string> metric_names;
  // For the user, before the trials run: e.g. report steps past the end of a shortened run,
  // which are dropped.
  std::vector<std::string> notes;
};

// A spec error is InvalidArgument "file:line:column: field: message" (NotFound for a missing
// data file). `threads` builds the trials; `code` is the build's (each trial's is the core and
// the plugins its spec names).
absl::StatusOr<PreparedTrials> PrepareTrials(const ParsedSpec& parsed, int threads,
                                             const CodeVersion& code);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_PREPARE_TRIALS_H_
