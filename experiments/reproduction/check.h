// One check of a claim: a number computed from a run's trials (claims.proto's Check), and how
// it stands against the check's thresholds.
#ifndef ATTNLAB_EXPERIMENTS_REPRODUCTION_CHECK_H_
#define ATTNLAB_EXPERIMENTS_REPRODUCTION_CHECK_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "experiments/reproduction/claims.pb.h"
#include "experiments/spec/sweep.h"
#include "experiments/trials/trial_runner.h"

namespace attnlab {

// What a claim reads of one run: its trials and their results, or why it has none.
struct RunOutcome {
  std::string name;
  // 12 hex digits of a hash of the run's resolved spec (overrides applied).
  std::string spec_hash;
  // Not OK when the run could not run (a data file missing): its checks are not evaluated.
  absl::Status status;
  std::vector<Trial> trials;
  std::vector<std::optional<TrialResult>> results;
  // Per trial: why it failed, where it has no result.
  std::vector<std::string> errors;
};

using RunOutcomes = std::map<std::string, RunOutcome>;

// How a check stands: its bar met, only its weaker `partly` bar met, not met, or undecided: an
// effect whose interval straddles its bar (noise), or a curve met at some points and not at
// others (mixed).
enum class Level { kNot = 0, kPartly = 1, kReproduced = 2, kNoise = 3, kMixed = 4 };

// Whether a level supports the claim (met or partly) or contradicts it (not met); noise does
// neither, a mixed curve both.
inline bool Holds(Level level) {
  return level == Level::kReproduced || level == Level::kPartly || level == Level::kMixed;
}
inline bool Contradicts(Level level) { return level == Level::kNot || level == Level::kMixed; }

struct CheckOutcome {
  std::string name;
  // Empty when the number was computed; else why not ("run 2a: ...: cannot read").
  std::string error;
  Check::Aggregate aggregate = Check::MEAN;
  // The aggregate, and the spread of the per-trial values (for SPEARMAN, value only).
  double value = 0, mean = 0, stddev = 0, min = 0, max = 0;
  int trials = 0;
  // An effect paired by seed (minus, over_paired): the 95% t-interval of its mean over the
  // seeds, which judges it.
  bool paired = false;
  double low = 0, high = 0;
  Level level = Level::kNot;
  // A curve's points (Check.curve), each judged alone; the check's level combines them.
  std::vector<CheckOutcome> points;
  // The value the check's `reproduced` bar compares with (its threshold's value) and how, for
  // causes' gaps.
  double bar = 0;
  Threshold::Op op = Threshold::GT;
  // The thresholds it was judged by, as text ("> 0.99", "mean - 2 sd > 0").
  std::string rule;
  // Short commits ("360dff7", "360dff7+dirty") of the code that produced the trials, and the
  // spec hashes of the runs read ("2a:3f2a9c1d07e9").
  std::set<std::string> commits, specs;
  // With best_over: the label kept for each group ("m=[64]: lr=1e-3"), in trial order.
  std::vector<std::string> chosen;

  bool evaluated() const { return error.empty(); }
  // "0.9925 (least of 6; range 0.9925-0.99540)", "-0.99 (Spearman over 15 trials)",
  // "0.012 +- 0.014 (mean +- sd of 5; 95% interval -0.005 to 0.029)".
  std::string Number() const;
  // The value the bar judges: the aggregate; for a paired effect, the end of its interval that
  // must clear the bar (the low end for "above", the high end for "below"; the mean for WITHIN).
  double Judged() const;
};

// A check over `runs`. A problem of the claims file itself (an unknown run, axis or metric)
// is InvalidArgument naming the field; a run that could not run or a failed trial leave the
// outcome unevaluated with the reason.
absl::StatusOr<CheckOutcome> EvaluateCheck(const Check& check, const RunOutcomes& runs);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_REPRODUCTION_CHECK_H_
