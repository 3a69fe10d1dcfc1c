// The rules of a spec's training part: what it must give, which steps a trial logs and
// snapshots.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_TRAINING_SPEC_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_TRAINING_SPEC_H_

#include <cstdint>
#include <set>

#include "absl/status/status.h"
#include "attention/tensor.h"
#include "experiments/spec/experiment.pb.h"

namespace attnlab {

// The most steps a trial may log: its results hold every metric at each (a spec asking for
// more is refused before anything runs, not met with bad_alloc).
constexpr int64_t kMaxLoggedSteps = 1000000;

// The steps a trial logs: 0, every log_every steps, each log_step up to the last, and the last.
std::set<int64_t> LoggedSteps(const TrainingSpec& training);

// The steps a trial snapshots its parameters and metric arrays at: the report steps, or the
// last step when the report names none.
std::set<int64_t> SnapshotSteps(const ExperimentSpec& spec);

// The training part and the metrics' names of `spec`, for a dataset that is a stream or not.
// Errors are FieldErrors relative to the ExperimentSpec.
absl::Status ValidateTraining(const ExperimentSpec& spec, bool stream);

// A batch whose inputs alone exceed this machine's memory is a spec error, not a bad_alloc
// halfway into the run.
absl::Status CheckBatchFits(int batch, const Shape& inputs, int bytes_per_entry);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_TRAINING_SPEC_H_
