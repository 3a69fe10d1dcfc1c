// One trial: build dataset, model, optimizer and metrics from a resolved spec, then train.
#ifndef ATTNLAB_EXPERIMENTS_TRIAL_RUNNER_H_
#define ATTNLAB_EXPERIMENTS_TRIAL_RUNNER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/base/npy.h"
#include "experiments/code_version.h"
#include "experiments/experiment.pb.h"

namespace attnlab {

struct MetricPoint {
  int64_t step;
  std::string metric;
  double value;
};

struct TrialResult {
  // "loss" first, then the spec's metrics, at every logged step, in step order.
  std::vector<MetricPoint> points;
  // The value of `metric` at `step`, or NaN.
  double At(int64_t step, const std::string& metric) const;
  // The value at the last logged step, or NaN.
  double Final(const std::string& metric) const;
  // The step this run resumed at from a checkpoint; 0 when it trained from the start.
  int64_t resumed_at_step = 0;
  // Snapshots at SnapshotSteps: "params/steps" and "params/<parameter>" (the model's
  // parameters), "solutions/<metric>/steps" and "solutions/<metric>/<array>" (what a metric
  // solved, MetricEvaluator::Arrays), each stacked along a leading axis of snapshots.
  NpyArrays arrays;
  // The code that produced it: the store's record for a reused trial (empty fields for one
  // stored before attnlab kept records), else the running binary's.
  CodeVersion code;
};

struct Progress {
  int64_t step;
  int64_t steps;
  double loss;  // of the last training step
};

// The most steps a trial may log: its results hold every metric at each (a spec asking for
// more is refused before anything runs, not met with bad_alloc).
constexpr int64_t kMaxLoggedSteps = 1000000;

// The steps a trial logs: 0, every log_every steps, each log_step up to the last, and the last.
std::set<int64_t> LoggedSteps(const TrainingSpec& training);

// The steps a trial snapshots its parameters and metric arrays at: the report steps, or the
// last step when the report names none.
std::set<int64_t> SnapshotSteps(const ExperimentSpec& spec);

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

#endif  // ATTNLAB_EXPERIMENTS_TRIAL_RUNNER_H_
