// Running an experiment: validate every trial, train the unfinished ones, store the results.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_RUNNER_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_RUNNER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/spec/spec_loader.h"
#include "experiments/spec/sweep.h"
#include "experiments/store/code_version.h"
#include "experiments/store/results_store.h"
#include "experiments/trials/trial_runner.h"

namespace attnlab {

class Cluster;

// What a run does with a finished trial in its store that other code produced (another
// CodeVersion::Key: other sources, compiler, flags, libraries or CPU).
enum class Reuse {
  kSameCode,  // refuse to run, naming both codes (the default)
  kRerun,     // run it again; the old result moves to DIR/superseded/
  kAnyCode,   // take it as it is (its own code stays in its record and in summary.csv)
  kAnyCpu,    // take it when only the CPU (and its products) differ; run other programs again
};

// The --reuse flag's values: "same" (kSameCode), "rerun", "any", "any-cpu"; InvalidArgument
// otherwise.
absl::StatusOr<Reuse> ParseReuse(absl::string_view flag);

struct RunOptions {
  // Where the results store lives (see results_store.h). With MPI, a directory every rank sees.
  std::string out_dir;
  // The thread budget: trials run side by side on it, and when there are fewer trials than
  // threads, the remaining threads split the batches inside the trials (one TBB arena, so
  // never more than `threads` busy threads).
  int threads = 1;
  // The MPI ranks sharing the sweep (trial i runs on rank i % size); null: this process alone.
  const Cluster* cluster = nullptr;
  // Only check the spec: parse, expand the sweep and build every trial.
  bool dry_run = false;
  // Progress on stderr; when stderr is not a terminal, a status line every progress_seconds.
  bool progress = true;
  double progress_seconds = 30;
  // The code this process runs (ThisBuild() in the programs), recorded beside every trial.
  CodeVersion code = UnversionedBuild();
  Reuse reuse = Reuse::kSameCode;
  // Asked before every step (may be empty): true stops the run; running trials write a
  // checkpoint, trials not started stay so, and RunExperiment returns Cancelled.
  std::function<bool()> stop;
};

struct ExperimentResult {
  std::vector<Trial> trials;
  // Per trial: the result, or nullopt and an error message when it failed. With MPI, complete
  // on rank 0 only.
  std::vector<std::optional<TrialResult>> results;
  std::vector<std::string> errors;
  std::vector<std::string> metric_names;
  // Said on stderr before the trials run (with progress on): e.g. report steps past the end of
  // a shortened run, which are dropped.
  std::vector<std::string> notes;
  // Trials whose finished results were found in the store and not rerun.
  int reused = 0;
  int failed = 0;
};

// One experiment of several that run as one sweep (RunExperiments).
struct ExperimentRun {
  const ParsedSpec* parsed = nullptr;
  RunOptions options;
  // Put before this run's errors (e.g. "claims.textproto:12: run 2a: ").
  std::string where;
  // Said on stderr (with progress) before this process starts the run's trials.
  std::string title;
  // The store's summary.csv, also written as <out_dir>/<summary_copy> when given (runs that
  // share a store keep their own summary beside the store's, which is the last run's).
  std::string summary_copy;
  // Put before each of its trials' labels on stderr, where several runs' trials interleave.
  std::string name;
};

// Several experiments as one sweep over the ranks: their trials in order, trial k of all of
// them on rank k % size, so that every rank stays busy while any run has trials left; every
// store is prepared before any trial trains, and a trial that two runs share (same store,
// same id) trains once. Every run's options name the same cluster and thread budget, on which
// this rank's trials of all the runs go side by side. The results and errors are
// RunExperiment's, one per run, in order.
absl::StatusOr<std::vector<ExperimentResult>> RunExperiments(
    const std::vector<ExperimentRun>& runs);

// A spec error is InvalidArgument "file:line:column: field: message", before any trial runs; a
// finished trial of other code under Reuse::kSameCode is FailedPrecondition "--out=DIR: ...". A
// trial that fails at run time does not stop the others; it is reported in the result and in
// summary.csv. Finished trials found in the store are not rerun. Every trial's result depends
// only on its resolved spec, its data and the code: the same with any thread count or number
// of ranks.
absl::StatusOr<ExperimentResult> RunExperiment(const ParsedSpec& parsed, const RunOptions& options);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_RUNNER_H_
