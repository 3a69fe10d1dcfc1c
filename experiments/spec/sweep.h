// Expanding a spec's sweep into trials: the grid of axis values times the seeds.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_SWEEP_H_
#define ATTNLAB_EXPERIMENTS_SPEC_SWEEP_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/store/code_version.h"
#include "experiments/spec/experiment.pb.h"
#include "experiments/spec/trial_data.h"

namespace attnlab {

struct Trial {
  // Content address: 12 hex digits of a hash of the resolved spec's ResultDeterminingSpec
  // (spec_loader.h) and of its data files' canonical paths and contents (TrialId). Equal specs
  // on equal data, equal ids, so a rerun, or another spec sharing the trial, finds it finished.
  std::string id;
  // The spec with this trial's values applied, training.seed set, and no sweep.
  ExperimentSpec spec;
  // (column name, value label) for each axis, then ("seed", seed).
  std::vector<std::pair<std::string, std::string>> labels;
  // The files it reads (set by the runner, which knows the spec's directory).
  std::vector<DataFile> data;
  // The code it runs: the build's core and the plugins its spec names (set by the runner).
  CodeVersion code;
};

// The id of a resolved spec reading `data`: the spec alone when it reads no file.
std::string TrialId(const ExperimentSpec& resolved, const std::vector<DataFile>& data);

// The most trials one spec may expand to.
constexpr uint64_t kMaxTrials = 100000;

// In grid order (the last axis varies fastest, seeds innermost). Errors are FieldErrors
// ("sweep.axis[1].value[2]: ..."); a grid of more than kMaxTrials trials, or two trials that
// are the same spec (a repeated value or seed), is an error.
absl::StatusOr<std::vector<Trial>> ExpandSweep(const ExperimentSpec& spec);

// "lr=0.1 seed=2": the trial's labels.
std::string TrialLabel(const Trial& trial);

// Column names of Trial::labels, in order.
std::vector<std::string> SweepColumns(const ExperimentSpec& spec);

// An error when a sweep axis sets `path` (a --set override of `value`), a message containing
// it, or a part of it: every trial would replace the override. Path "." overrides each
// top-level field its value sets. Paths under "sweep" are never swept.
absl::Status CheckNotSwept(const ExperimentSpec& spec, absl::string_view path,
                           absl::string_view value);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_SWEEP_H_
