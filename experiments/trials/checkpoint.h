// The file a running trial checkpoints into: the spec it belongs to, the step to go on with,
// the metrics and snapshots so far, the random stream, then what the trial's model and optimizer
// write (parameters, moments), and last a checksum, so that a damaged file is refused rather
// than resumed. A rerun of the same trial and code resumes from it bit-identical to an
// uninterrupted run.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_CHECKPOINT_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_CHECKPOINT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "attention/base/npy.h"
#include "attention/base/state_io.h"
#include "experiments/trials/trial_result.h"

namespace attnlab {

struct CheckpointContent {
  // The trial's result-determining spec, printed: a checkpoint resumes only its own trial.
  std::string spec_text;
  int64_t next_step = 0;
  double last_loss = 0;
  std::vector<MetricPoint> points;
  NpyArrays arrays;
  std::string random_state;
};

// Writes `content`, then what `write_state` writes, atomically.
absl::Status WriteCheckpoint(const std::string& path, const CheckpointContent& content,
                             const std::function<void(StateWriter*)>& write_state);

// The checkpoint at `path`, or nullopt when there is none; `read_state` reads what
// WriteCheckpoint's `write_state` wrote. An error names the file and what is wrong: another
// spec's checkpoint, a step outside 1..steps, an older format, a damaged file.
absl::StatusOr<std::optional<CheckpointContent>> ReadCheckpoint(
    const std::string& path, const std::string& spec_text, int64_t steps,
    const std::function<absl::Status(StateReader*)>& read_state);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_CHECKPOINT_H_
