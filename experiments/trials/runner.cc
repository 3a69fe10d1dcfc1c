#include "experiments/trials/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/base/files.h"
#include "attention/base/status_macros.h"
#include "experiments/trials/cluster.h"
#include "experiments/trials/prepare_trials.h"
#include "experiments/trials/progress_board.h"
#include "experiments/trials/rank_report.pb.h"
#include "experiments/trials/test_hooks.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

// Rank 0's set-up of the store: its lock, the clean-up of a killed run's temporaries, and
// other code's results moved aside when they are to be run again.
absl::Status PrepareStore(const ResultsStore& store, const RunOptions& options,
                          const std::vector<Trial>& trials, const std::vector<int>& other_code,
                          std::unique_ptr<StoreLock>* lock) {
  absl::StatusOr<std::unique_ptr<StoreLock>> locked = store.Lock(
      [&](const std::string& line) {
        if (options.progress) std::fprintf(stderr, "%s\n", line.c_str());
      },
      options.stop);
  if (absl::IsCancelled(locked.status())) return locked.status();
  if (!locked.ok()) {  // before any trial trains: a read-only --out, or a file
    return absl::InvalidArgumentError(absl::StrCat("--out=", options.out_dir, ": ",
                                                   locked.status().message()));
  }
  *lock = std::move(*locked);
  TestHookLockTaken();
  RETURN_IF_ERROR(store.RemoveStaleTemporaries());
  if (options.reuse != Reuse::kRerun) return absl::OkStatus();
  for (int i : other_code) {
    RETURN_IF_ERROR(store.Supersede(trials[i].id));
    if (options.progress) {
      std::fprintf(stderr, "note: trial %s was run by other code; running it again (the old "
                   "result is in %s/superseded/)\n", trials[i].id.c_str(),
                   options.out_dir.c_str());
    }
  }
  return absl::OkStatus();
}

// Rank 0's status on every rank (code and message), after which all ranks go on together.
absl::Status ShareRootStatus(const Cluster& cluster, const absl::Status& status) {
  const std::string shared = cluster.BroadcastFromRoot(
      status.ok() ? "" : absl::StrCat(static_cast<int>(status.code()), "\t", status.message()));
  if (shared.empty()) return absl::OkStatus();
  const size_t tab = shared.find('\t');
  return absl::Status(static_cast<absl::StatusCode>(std::stoi(shared.substr(0, tab))),
                      shared.substr(tab + 1));
}

// The trials whose finished result in the store came from other code.
std::vector<int> OtherCodeTrials(const ResultsStore& store, const std::vector<Trial>& trials) {
  std::vector<int> other;
  for (size_t i = 0; i < trials.size(); ++i) {
    const std::optional<CodeVersion> stored = store.StoredCode(trials[i].id);
    if (stored.has_value() && (stored->source.empty() || stored->Key() != trials[i].code.Key())) {
      other.push_back(static_cast<int>(i));
    }
  }
  return other;
}

absl::Status OtherCodeError(const ResultsStore& store, const std::vector<Trial>& trials,
                            const std::vector<int>& other) {
  const Trial& first = trials[other[0]];
  const CodeVersion stored = store.StoredCode(first.id).value_or(CodeVersion());
  const std::string theirs =
      stored.source.empty() ? "code this store did not record (a result from before attnlab "
                              "kept provenance)"
                            : stored.Describe();
  return absl::FailedPreconditionError(
      absl::StrCat("--out=", store.dir(), ": ", other.size(),
                   " finished trial(s) there were run by other "
                   "code: trial ",
                   first.id, " (", TrialLabel(first), ") by ", theirs, "; this binary runs it as ",
                   first.code.Describe(),
                   ". --reuse=any takes such results as they are, --reuse=rerun runs them "
                   "again (the old results move to ",
                   store.dir(), "/superseded/), or give another --out"));
}

}  // namespace

absl::StatusOr<Reuse> ParseReuse(absl::string_view flag) {
  if (flag == "same") return Reuse::kSameCode;
  if (flag == "rerun") return Reuse::kRerun;
  if (flag == "any") return Reuse::kAnyCode;
  return absl::InvalidArgumentError(
      absl::StrCat("--reuse=", flag, ": expected same, rerun or any"));
}

namespace {

// Runs or reuses this rank's trials (`mine`), side by side on the thread budget; a finished
// trial is saved to the store, a failed one leaves its error in out->errors. Returns what
// rank 0 must hear: failures, reuses, interruptions and a store error.
RankReport RunLocalTrials(const ParsedSpec& parsed, const RunOptions& options,
                          const ResultsStore& store, const std::vector<int>& mine,
                          const std::string& rank_prefix, ExperimentResult* out) {
  ProgressBoard board(options.progress, static_cast<int>(mine.size()), rank_prefix,
                      options.progress_seconds);
  const int total = static_cast<int>(out->trials.size());
  std::vector<absl::Status> io_errors(total);
  std::vector<char> reused(total, 0), cancelled(total, 0);
  tbb::task_arena arena(options.threads);
  arena.execute([&] {
    tbb::parallel_for(0, static_cast<int>(mine.size()), [&](int k) {
      // Isolated: while this trial waits for its own parallel loops, its thread does not pick
      // up another trial.
      tbb::this_task_arena::isolate([&] {
        const int i = mine[k];
        const Trial& trial = out->trials[i];
        if (options.stop && options.stop()) {  // not started: the rerun runs it
          cancelled[i] = 1;
          return;
        }
        const std::string label = absl::StrCat(trial.id, " ", TrialLabel(trial));
        const auto start = std::chrono::steady_clock::now();
        auto seconds = [&] {
          return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        };
        std::string damaged;
        absl::StatusOr<std::optional<TrialResult>> stored = store.Load(trial.id, &damaged);
        if (!stored.ok()) {
          io_errors[i] = stored.status();
          return;
        }
        if (!damaged.empty() && options.progress) {
          std::fprintf(stderr, "note: trial %s in %s is damaged (%s): running it again\n",
                       trial.id.c_str(), store.dir().c_str(), damaged.c_str());
        }
        if (stored->has_value()) {
          out->results[i] = std::move(*stored);
          reused[i] = 1;
          board.Finish(i, label, "finished earlier, reused", seconds());
          return;
        }
        absl::StatusOr<TrialResult> result = [&]() -> absl::StatusOr<TrialResult> {
          try {
            auto runner = TrialRunner::Create(trial.spec, options.threads, parsed.directory);
            if (!runner.ok()) return runner.status();
            RETURN_IF_ERROR(MakeDirectories(store.dir()));
            return (*runner)->Run([&](const Progress& p) { board.Update(i, trial.id, p); },
                                  store.CheckpointPath(trial), options.stop);
          } catch (const std::bad_alloc&) {  // the trial fails; the others go on
            return absl::ResourceExhaustedError("out of memory (a smaller batch or model?)");
          }
        }();
        if (absl::IsCancelled(result.status())) {
          cancelled[i] = 1;
          board.Finish(i, label, absl::StrCat(result.status().message(), ", checkpoint written"),
                       seconds());
          return;
        }
        if (!result.ok()) {
          out->errors[i] = std::string(result.status().message());
          board.Finish(i, label, absl::StrCat("FAILED: ", result.status().message()), seconds());
          return;
        }
        if (absl::Status saved = store.Save(trial, *result); !saved.ok()) {
          // This trial's results are lost; the finished ones stay, and the summary says why.
          out->errors[i] = absl::StrCat("finished, but not stored: ", saved.message());
          board.Finish(i, label, absl::StrCat("FAILED: ", out->errors[i]), seconds());
          return;
        }
        out->results[i] = std::move(*result);
        out->results[i]->code = trial.code;
        TestHookTrialStored();
        const int64_t resumed = out->results[i]->resumed_at_step;
        board.Finish(i, label,
                     absl::StrFormat("done, loss %.6g%s", out->results[i]->Final("loss"),
                                     resumed > 0 ? absl::StrCat(" (resumed at step ", resumed,
                                                                " from its checkpoint)")
                                                 : ""),
                     seconds());
      });
    });
  });
  RankReport report;
  for (const absl::Status& status : io_errors) {
    if (status.ok()) continue;
    report.set_store_error_code(static_cast<int>(status.code()));
    report.set_store_error(std::string(status.message()));
    break;
  }
  for (int i : mine) {
    if (!out->results[i].has_value() && !cancelled[i]) {
      RankReport::Failure* failure = report.add_failed();
      failure->set_trial(i);
      failure->set_error(out->errors[i]);
    }
    if (reused[i]) report.add_reused(i);
    if (cancelled[i]) report.add_interrupted(i);
  }
  return report;
}

// Every rank's report on rank 0, folded into *out: the failures' errors and the reuse count.
// Every rank calls it (a collective), so none waits for one that returned. The first store
// error of any rank, or Cancelled when any trial was interrupted, ends the run.
absl::Status GatherReports(const Cluster* cluster, const RankReport& mine,
                           const RunOptions& options, ExperimentResult* out) {
  std::vector<std::string> bytes = cluster ? cluster->GatherToRoot(mine.SerializeAsString())
                                           : std::vector<std::string>{mine.SerializeAsString()};
  absl::Status store_error;
  bool interrupted = mine.interrupted_size() > 0;
  for (const std::string& one : bytes) {
    RankReport report;
    if (!report.ParseFromString(one)) return absl::InternalError("a rank's report is unreadable");
    for (const RankReport::Failure& failure : report.failed()) {
      out->errors[failure.trial()] = failure.error();
    }
    out->reused += report.reused_size();
    interrupted = interrupted || report.interrupted_size() > 0;
    if (report.store_error_code() != 0 && store_error.ok()) {
      store_error = absl::Status(static_cast<absl::StatusCode>(report.store_error_code()),
                                 report.store_error());
    }
  }
  if (mine.store_error_code() != 0 && store_error.ok()) {
    store_error = absl::Status(static_cast<absl::StatusCode>(mine.store_error_code()),
                               mine.store_error());
  }
  RETURN_IF_ERROR(store_error);
  if (interrupted) {
    return absl::CancelledError(absl::StrCat(
        "interrupted: ", options.out_dir, " keeps the finished trials and a checkpoint of each "
        "running one; run the same command again to go on"));
  }
  return absl::OkStatus();
}

// Rank 0, last: the other ranks' results from the shared store, and summary.csv.
absl::Status Summarize(const ParsedSpec& parsed, const RunOptions& options,
                       const ResultsStore& store, ExperimentResult* out) {
  const int total = static_cast<int>(out->trials.size());
  for (int i = 0; i < total; ++i) {
    if (out->results[i].has_value() || !out->errors[i].empty()) continue;
    ASSIGN_OR_RETURN(out->results[i], store.Load(out->trials[i].id));  // another rank's trial
    if (!out->results[i].has_value()) {
      return absl::InternalError(absl::StrCat("trial ", out->trials[i].id,
                                              " finished on another rank but is not in ",
                                              options.out_dir, " (is it on a shared filesystem?)"));
    }
  }
  for (int i = 0; i < total; ++i) out->failed += !out->results[i].has_value();
  return store.WriteSummary(SweepColumns(parsed.spec), out->metric_names, out->trials,
                            out->results, out->errors);
}

}  // namespace

absl::StatusOr<ExperimentResult> RunExperiment(const ParsedSpec& parsed,
                                               const RunOptions& options) {
  ExperimentResult out;
  ASSIGN_OR_RETURN(PreparedTrials prepared_trials,
                   PrepareTrials(parsed, options.threads, options.code));
  out.trials = std::move(prepared_trials.trials);
  out.metric_names = std::move(prepared_trials.metric_names);
  out.notes = std::move(prepared_trials.notes);
  if (options.progress) {
    for (const std::string& note : out.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  }
  if (options.dry_run) return out;

  const Cluster* cluster = options.cluster;
  const int rank = cluster ? cluster->rank() : 0, ranks = cluster ? cluster->size() : 1;
  const ResultsStore store(options.out_dir);
  // Finished trials of other code: every rank reads the same store and decides alike.
  std::vector<int> other_code = OtherCodeTrials(store, out.trials);
  if (!other_code.empty() && options.reuse == Reuse::kSameCode) {
    return OtherCodeError(store, out.trials, other_code);
  }
  std::unique_ptr<StoreLock> lock;  // rank 0 holds the store for all ranks of this run
  absl::Status prepared =
      rank == 0 ? PrepareStore(store, options, out.trials, other_code, &lock) : absl::OkStatus();
  // Every rank learns rank 0's outcome, so that none waits for a rank that returned; after
  // it, no rank writes before the clean-up.
  if (cluster) prepared = ShareRootStatus(*cluster, prepared);
  RETURN_IF_ERROR(prepared);

  out.results.resize(out.trials.size());
  out.errors.resize(out.trials.size());
  std::vector<int> mine;  // trial i runs on rank i % ranks
  for (int i = rank; i < static_cast<int>(out.trials.size()); i += ranks) mine.push_back(i);
  const RankReport report = RunLocalTrials(
      parsed, options, store, mine, ranks > 1 ? absl::StrCat("rank ", rank, ": ") : "", &out);
  RETURN_IF_ERROR(GatherReports(cluster, report, options, &out));
  if (rank != 0) return out;
  RETURN_IF_ERROR(Summarize(parsed, options, store, &out));
  return out;
}

}  // namespace attnlab
