// The results store: one directory per trial, written atomically, so a run never loses
// finished results and a rerun skips them.
//
//   DIR/summary.csv               one row per trial: id, swept values, status, final metrics
//   DIR/<trial id>/metrics.csv    step,metric,value
//   DIR/<trial id>/spec.textproto the resolved spec of the trial
//   DIR/<trial id>/provenance.tsv the code that ran it (code_version.h) and the data files it
//                                 read (canonical path, size, content hash)
//   DIR/<trial id>/params/*.npy   the parameters at the report steps (steps.npy), stacked
//   DIR/<trial id>/solutions/<metric>/*.npy   what a metric solved, at the same steps
//   DIR/<trial id>/manifest.tsv   size and FNV-1a hash of every other file, written last: a
//                                 trial whose files do not match it is rerun
//   DIR/.<trial id>.<code key>.checkpoint  an unfinished trial's checkpoint (TrialRunner::Run),
//                                 resumed only by the same code
//   DIR/superseded/<trial id>.<code key>/  a finished trial of other code that --reuse=rerun
//                                 ran again
#ifndef ATTNLAB_EXPERIMENTS_STORE_RESULTS_STORE_H_
#define ATTNLAB_EXPERIMENTS_STORE_RESULTS_STORE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/store/code_version.h"
#include "experiments/spec/sweep.h"
#include "experiments/trials/trial_runner.h"

namespace attnlab {

// The metrics.csv text of a result, and back. Values print with 17 significant digits, so
// they read back bit-identical.
std::string MetricsCsv(const TrialResult& result);
absl::StatusOr<TrialResult> ParseMetricsCsv(absl::string_view csv, const std::string& file);

// Held by the run writing to a store; released when destroyed.
class StoreLock {
 public:
  explicit StoreLock(int fd) : fd_(fd) {}
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  ~StoreLock();

 private:
  int fd_;
};

class ResultsStore {
 public:
  // The trials it saves carry their code (Trial::code), recorded beside each.
  explicit ResultsStore(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  std::string TrialDir(const std::string& id) const { return dir_ + "/" + id; }
  // Where an unfinished trial keeps its checkpoint, for its code; Save removes it.
  std::string CheckpointPath(const Trial& trial) const {
    return dir_ + "/." + trial.id + "." + trial.code.Key() + ".checkpoint";
  }

  // The code recorded for a finished trial (empty fields when it was stored before records
  // were kept), or nullopt when the store has no finished trial `id`.
  std::optional<CodeVersion> StoredCode(const std::string& id) const;

  // Moves a finished trial aside, to DIR/superseded/<id>.<its code key>, so that it can run
  // again without its result being lost.
  absl::Status Supersede(const std::string& id) const;

  // The finished result of a trial, or nullopt if it has none. A trial directory whose files
  // do not match its manifest (changed or cut short outside attnlab, or written before
  // manifests) is no result either: `damaged` (if given) then says why, e.g.
  // "metrics.csv: 120 bytes, the manifest says 4,310".
  absl::StatusOr<std::optional<TrialResult>> Load(const std::string& id,
                                                  std::string* damaged = nullptr) const;

  // Creates the store's directory and takes its lock (DIR/.lock, flock): one run writes to a
  // store at a time, and a second run on it waits (its start-up clean-up would delete the first
  // run's live temporaries), calling `waiting` first with a line saying for whom. Fails if the
  // directory cannot be created or written (read-only, a file, ...); Cancelled when `stop`
  // (optional, polled while waiting) says to stop.
  absl::StatusOr<std::unique_ptr<StoreLock>> Lock(
      const std::function<void(const std::string&)>& waiting,
      const std::function<bool()>& stop = nullptr) const;

  // Removes the temporaries a killed run left behind (".<id>.tmp.<pid>" trial directories,
  // "<file>.tmp.<pid>"). Call only with the store's lock held.
  absl::Status RemoveStaleTemporaries() const;

  // Writes the trial's directory under a temporary name and renames it into place; on an error
  // (a full disk) removes the temporary and says what failed ("cannot write ...: No space
  // left on device").
  absl::Status Save(const Trial& trial, const TrialResult& result) const;

  // summary.csv: trial, the sweep columns, status, the final value of each metric, then the
  // code key and commit of the code that produced the result.
  // `results[i]` belongs to `trials[i]`; a missing result is a failed trial with `errors[i]`.
  absl::Status WriteSummary(const std::vector<std::string>& sweep_columns,
                            const std::vector<std::string>& metric_names,
                            const std::vector<Trial>& trials,
                            const std::vector<std::optional<TrialResult>>& results,
                            const std::vector<std::string>& errors) const;

 private:
  // spec.textproto, metrics.csv, the arrays and, last, manifest.tsv into `dir`.
  absl::Status WriteTrialFiles(const Trial& trial, const TrialResult& result,
                               const std::string& dir) const;

  std::string dir_;
};

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_STORE_RESULTS_STORE_H_
