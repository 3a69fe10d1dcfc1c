// One trial: build dataset, model, optimizer and metrics from a resolved spec, then train.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_TRIAL_RUNNER_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_TRIAL_RUNNER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/spec/experiment.pb.h"
#include "experiments/trials/training_spec.h"
#include "experiments/trials/trial_result.h"

namespace attnlab {

struct Progress {
  int64_t step;
  int64_t steps;
  double loss;  // of the last training step
};

class TrialRunner {
 public:
  virtual ~TrialRunner() = default;

  // Builds everything the trial needs; this is also the dry run that checks a spec. Errors are
  // FieldErrors relative to the ExperimentSpec ("model.layer[0].config.p.value: ...").
  // Relative data paths resolve against `base_dir` (the spec file's directory).
  static absl::StatusOr<std::unique_ptr<TrialRunner>> Create(const ExperimentSpec& spec,
                                                             int threads = 1,
                                                             const std::string& base_dir = "");

  // Trains; `progress` (may be empty) is called now and then from this thread. With a
  // `checkpoint` path, resumes from the checkpoint there if there is one, and saves one every
  // training.checkpoint_seconds (atomically). A checkpoint of another spec is an error. When
  // `stop` (may be empty) returns true before a step, saves a checkpoint and returns Cancelled.
  virtual absl::StatusOr<TrialResult> Run(const std::function<void(const Progress&)>& progress,
                                          const std::string& checkpoint = "",
                                          const std::function<bool()>& stop = {}) = 0;

  // "loss" and the spec's metric names, in column order.
  virtual const std::vector<std::string>& metric_names() const = 0;
};

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_TRIAL_RUNNER_H_
