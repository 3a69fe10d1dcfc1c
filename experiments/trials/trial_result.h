// What a trial produced: its metrics at every logged step, its snapshots, and the code that ran
// it.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_TRIAL_RESULT_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_TRIAL_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "attention/base/npy.h"
#include "experiments/store/code_version.h"

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
  // solved, Metric::Arrays), each stacked along a leading axis of snapshots.
  NpyArrays arrays;
  // The code that produced it: the store's record for a reused trial (empty fields for one
  // stored before attnlab kept records), else the running binary's.
  CodeVersion code;
};

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_TRIAL_RESULT_H_
