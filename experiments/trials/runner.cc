#include "experiments/trials/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/base/files.h"
#include "attention/base/status_macros.h"
#include "experiments/store/program.h"
#include "experiments/trials/cluster.h"
#include "experiments/trials/prepare_trials.h"
#include "experiments/trials/progress_board.h"
#include "experiments/trials/rank_report.pb.h"
#include "experiments/trials/side_by_side.h"
#include "experiments/trials/test_hooks.h"

namespace attnlab {
namespace {

// Rank 0's set-up of a store: its lock, and the clean-up of a killed run's temporaries.
absl::Status LockStore(const ResultsStore& store, const RunOptions& options,
                       std::unique_ptr<StoreLock>* lock) {
  absl::StatusOr<std::unique_ptr<StoreLock>> locked = store.Lock(
      [&](const std::string& line) {
        if (options.progress) std::fprintf(stderr, "%s\n", line.c_str());
      },
      options.stop);
  if (absl::IsCancelled(locked.status())) return locked.status();
  if (!locked.ok()) {  // before any trial trains: a read-only --out, or a file
    return absl::InvalidArgumentError(
        absl::StrCat("--out=", options.out_dir, ": ", locked.status().message()));
  }
  *lock = std::move(*locked);
  TestHookLockTaken();
  return store.RemoveStaleTemporaries();
}

// Rank 0, with the store locked: other code's results moved aside when they are to be run
// again.
absl::Status SupersedeOtherCode(const ResultsStore& store, const RunOptions& options,
                                const std::vector<Trial>& trials,
                                const std::vector<int>& other_code) {
  if (options.reuse != Reuse::kRerun && options.reuse != Reuse::kAnyCpu) return absl::OkStatus();
  for (int i : other_code) {
    RETURN_IF_ERROR(store.Supersede(trials[i].id));
    if (options.progress) {
      std::fprintf(stderr,
                   "note: trial %s was run by other code; running it again (the old "
                   "result is in %s/superseded/)\n",
                   trials[i].id.c_str(), options.out_dir.c_str());
    }
  }
  return absl::OkStatus();
}

// The trials whose finished result in the store came from other code (under kAnyCpu, from
// another program).
std::vector<int> OtherCodeTrials(const ResultsStore& store, const std::vector<Trial>& trials,
                                 Reuse reuse) {
  std::vector<int> other;
  for (size_t i = 0; i < trials.size(); ++i) {
    const std::optional<CodeVersion> stored = store.StoredCode(trials[i].id);
    if (!stored.has_value()) continue;
    const bool same = reuse == Reuse::kAnyCpu ? ProgramKey(*stored) == ProgramKey(trials[i].code)
                                              : stored->Key() == trials[i].code.Key();
    if (stored->source.empty() || !same) other.push_back(static_cast<int>(i));
  }
  return other;
}

absl::Status OtherCodeError(const ResultsStore& store, const std::vector<Trial>& trials,
                            const std::vector<int>& other) {
  const Trial& first = trials[other[0]];
  const CodeVersion stored = store.StoredCode(first.id).value_or(CodeVersion());
  const std::string theirs = stored.source.empty()
                                 ? "code this store did not record (a result from before attnlab "
                                   "kept provenance)"
                                 : stored.Describe();
  return absl::FailedPreconditionError(
      absl::StrCat("--out=", store.dir(), ": ", other.size(),
                   " finished trial(s) there were run by other "
                   "code: trial ",
                   first.id, " (", TrialLabel(first), ") by ", theirs, "; this binary runs it as ",
                   first.code.Describe(),
                   ". --reuse=any takes such results as they are, --reuse=any-cpu those of "
                   "this program run on another CPU, --reuse=rerun runs them again (the old "
                   "results move to ",
                   store.dir(), "/superseded/), or give another --out"));
}

}  // namespace

absl::StatusOr<Reuse> ParseReuse(absl::string_view flag) {
  if (flag == "same") return Reuse::kSameCode;
  if (flag == "rerun") return Reuse::kRerun;
  if (flag == "any") return Reuse::kAnyCode;
  if (flag == "any-cpu") return Reuse::kAnyCpu;
  return absl::InvalidArgumentError(
      absl::StrCat("--reuse=", flag, ": expected same, rerun, any or any-cpu"));
}

namespace {

// A trial of run `run` (its index `trial` in that run's trials).
struct RunTrial {
  int run, trial;
};

// Runs or reuses this rank's trials (`mine`, of any of the runs) side by side on one thread
// budget, so that a run's last long trial does not keep the other threads idle; a finished
// trial is saved to its run's store, a failed one leaves its error in that run's errors.
// Returns, per run, what rank 0 must hear: failures, reuses, interruptions and a store error.
std::vector<RankReport> RunLocalTrials(const std::vector<ExperimentRun>& runs,
                                       const std::vector<ResultsStore>& stores,
                                       const std::vector<RunTrial>& mine,
                                       const std::string& rank_prefix,
                                       std::vector<ExperimentResult>* out) {
  const RunOptions& first = runs[0].options;
  ProgressBoard board(first.progress, static_cast<int>(mine.size()), rank_prefix,
                      first.progress_seconds);
  const int n = static_cast<int>(runs.size());
  std::vector<std::vector<absl::Status>> io_errors(n);
  std::vector<std::vector<char>> reused(n), cancelled(n);
  for (int r = 0; r < n; ++r) {
    const size_t total = (*out)[r].trials.size();
    io_errors[r].resize(total);
    reused[r].assign(total, 0);
    cancelled[r].assign(total, 0);
  }
  std::vector<std::atomic<bool>> titled(n);
  ForEachSideBySide(first.threads, static_cast<int>(mine.size()), [&](int k) {
    const int r = mine[k].run, i = mine[k].trial;
    const RunOptions& options = runs[r].options;
    const ResultsStore& store = stores[r];
    ExperimentResult& result_of_run = (*out)[r];
    const Trial& trial = result_of_run.trials[i];
    if (options.stop && options.stop()) {  // not started: the rerun runs it
      cancelled[r][i] = 1;
      return;
    }
    if (options.progress && !runs[r].title.empty() && !titled[r].exchange(true)) {
      std::fprintf(stderr, "%s%s\n", rank_prefix.c_str(), runs[r].title.c_str());
    }
    const std::string label = absl::StrCat(
        trial.id, " ", runs[r].name.empty() ? "" : "run " + runs[r].name + ": ", TrialLabel(trial));
    const auto start = std::chrono::steady_clock::now();
    auto seconds = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::string damaged;
    absl::StatusOr<std::optional<TrialResult>> stored = store.Load(trial.id, &damaged);
    if (!stored.ok()) {
      io_errors[r][i] = stored.status();
      return;
    }
    if (!damaged.empty() && options.progress) {
      std::fprintf(stderr, "note: trial %s in %s is damaged (%s): running it again\n",
                   trial.id.c_str(), store.dir().c_str(), damaged.c_str());
    }
    if (stored->has_value()) {
      result_of_run.results[i] = std::move(*stored);
      reused[r][i] = 1;
      board.Finish(k, label, "finished earlier, reused", seconds());
      return;
    }
    absl::StatusOr<TrialResult> result = [&]() -> absl::StatusOr<TrialResult> {
      try {
        auto runner = TrialRunner::Create(trial.spec, options.threads, runs[r].parsed->directory);
        if (!runner.ok()) return runner.status();
        RETURN_IF_ERROR(MakeDirectories(store.dir()));
        return (*runner)->Run([&](const Progress& p) { board.Update(k, trial.id, p); },
                              store.CheckpointPath(trial), options.stop);
      } catch (const std::bad_alloc&) {  // the trial fails; the others go on
        return absl::ResourceExhaustedError("out of memory (a smaller batch or model?)");
      }
    }();
    if (absl::IsCancelled(result.status())) {
      cancelled[r][i] = 1;
      board.Finish(k, label, absl::StrCat(result.status().message(), ", checkpoint written"),
                   seconds());
      return;
    }
    std::string& error = result_of_run.errors[i];
    if (!result.ok()) {
      error = std::string(result.status().message());
      board.Finish(k, label, absl::StrCat("FAILED: ", result.status().message()), seconds());
      return;
    }
    if (absl::Status saved = store.Save(trial, *result); !saved.ok()) {
      // This trial's results are lost; the finished ones stay, and the summary says why.
      error = absl::StrCat("finished, but not stored: ", saved.message());
      board.Finish(k, label, absl::StrCat("FAILED: ", error), seconds());
      return;
    }
    std::optional<TrialResult>& kept = result_of_run.results[i];
    kept = std::move(*result);
    kept->code = trial.code;
    TestHookTrialStored();
    const int64_t resumed = kept->resumed_at_step;
    board.Finish(k, label,
                 absl::StrFormat("done, loss %.6g%s", kept->Final("loss"),
                                 resumed > 0 ? absl::StrCat(" (resumed at step ", resumed,
                                                            " from its checkpoint)")
                                             : ""),
                 seconds());
  });
  std::vector<RankReport> reports(n);
  for (int r = 0; r < n; ++r) {
    for (const absl::Status& status : io_errors[r]) {
      if (status.ok()) continue;
      reports[r].set_store_error_code(static_cast<int>(status.code()));
      reports[r].set_store_error(std::string(status.message()));
      break;
    }
  }
  for (const auto [r, i] : mine) {
    RankReport& report = reports[r];
    if (!(*out)[r].results[i].has_value() && !cancelled[r][i]) {
      RankReport::Failure* failure = report.add_failed();
      failure->set_trial(i);
      failure->set_error((*out)[r].errors[i]);
    }
    if (reused[r][i]) report.add_reused(i);
    if (cancelled[r][i]) report.add_interrupted(i);
  }
  return reports;
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
    store_error =
        absl::Status(static_cast<absl::StatusCode>(mine.store_error_code()), mine.store_error());
  }
  RETURN_IF_ERROR(store_error);
  if (interrupted) {
    return absl::CancelledError(absl::StrCat("interrupted: ", options.out_dir,
                                             " keeps the finished trials and a checkpoint of each "
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
  return store.WriteSummary(SweepColumns(parsed.spec), out->metric_names, out->trials, out->results,
                            out->errors);
}

}  // namespace

absl::StatusOr<ExperimentResult> RunExperiment(const ParsedSpec& parsed,
                                               const RunOptions& options) {
  ASSIGN_OR_RETURN(std::vector<ExperimentResult> results,
                   RunExperiments({ExperimentRun{&parsed, options, "", "", ""}}));
  return std::move(results[0]);
}

absl::StatusOr<std::vector<ExperimentResult>> RunExperiments(
    const std::vector<ExperimentRun>& runs) {
  const int n = static_cast<int>(runs.size());
  auto at = [&](int r, const absl::Status& status) {
    return status.ok() ? status
                       : absl::Status(status.code(), absl::StrCat(runs[r].where, status.message()));
  };
  std::vector<ExperimentResult> out(n);
  for (int r = 0; r < n; ++r) {
    const RunOptions& options = runs[r].options;
    absl::StatusOr<PreparedTrials> prepared =
        PrepareTrials(*runs[r].parsed, options.threads, options.code);
    if (!prepared.ok()) return at(r, prepared.status());
    out[r].trials = std::move(prepared->trials);
    out[r].metric_names = std::move(prepared->metric_names);
    out[r].notes = std::move(prepared->notes);
    if (options.progress) {
      for (const std::string& note : out[r].notes) std::fprintf(stderr, "note: %s\n", note.c_str());
    }
  }
  if (n == 0 || runs[0].options.dry_run) return out;

  const Cluster* cluster = runs[0].options.cluster;
  const int rank = cluster ? cluster->rank() : 0, ranks = cluster ? cluster->size() : 1;
  std::vector<ResultsStore> stores;
  for (const ExperimentRun& run : runs) stores.emplace_back(run.options.out_dir);
  // Each trial's first run (itself, or an earlier run with the same store and id): only the
  // first trains it.
  std::vector<std::vector<std::pair<int, int>>> first(n);
  std::map<std::pair<std::string, std::string>, std::pair<int, int>> seen;
  // Finished trials of other code (each once): every rank reads the same stores and decides
  // alike.
  std::vector<std::vector<int>> other_code(n);
  for (int r = 0; r < n; ++r) {
    for (int i = 0; i < static_cast<int>(out[r].trials.size()); ++i) {
      first[r].push_back(seen.emplace(std::make_pair(runs[r].options.out_dir, out[r].trials[i].id),
                                      std::make_pair(r, i))
                             .first->second);
    }
    for (int i : OtherCodeTrials(stores[r], out[r].trials, runs[r].options.reuse)) {
      if (first[r][i] == std::make_pair(r, i)) other_code[r].push_back(i);
    }
    if (!other_code[r].empty() && runs[r].options.reuse == Reuse::kSameCode) {
      return at(r, OtherCodeError(stores[r], out[r].trials, other_code[r]));
    }
  }
  // Rank 0 holds every store for all ranks until the last run is summarized. It locks them in
  // the order of their paths, as every process does, so that two processes wanting the same
  // stores never each hold one the other waits for.
  std::vector<std::unique_ptr<StoreLock>> locks;
  absl::Status prepared;
  if (rank == 0) {
    std::map<std::string, int> run_of_store;  // each store's first run
    for (int r = n - 1; r >= 0; --r) run_of_store[runs[r].options.out_dir] = r;
    for (const auto& [dir, r] : run_of_store) {
      locks.emplace_back();
      prepared = at(r, LockStore(stores[r], runs[r].options, &locks.back()));
      if (!prepared.ok()) break;
    }
    for (int r = 0; r < n && prepared.ok(); ++r) {
      prepared =
          at(r, SupersedeOtherCode(stores[r], runs[r].options, out[r].trials, other_code[r]));
    }
  }
  // Every rank learns rank 0's outcome, so that none waits for a rank that returned; after
  // it, no rank writes before the clean-up.
  prepared = ShareRootStatus(cluster, prepared);
  RETURN_IF_ERROR(prepared);

  // Trial k of all runs' first trials runs on rank k % ranks.
  std::vector<RunTrial> mine;
  int k = 0;
  for (int r = 0; r < n; ++r) {
    out[r].results.resize(out[r].trials.size());
    out[r].errors.resize(out[r].trials.size());
    for (int i = 0; i < static_cast<int>(out[r].trials.size()); ++i) {
      if (first[r][i] != std::make_pair(r, i)) continue;
      if (k++ % ranks == rank) mine.push_back({r, i});
    }
  }
  const std::string rank_prefix = ranks > 1 ? absl::StrCat("rank ", rank, ": ") : "";
  const std::vector<RankReport> reports = RunLocalTrials(runs, stores, mine, rank_prefix, &out);
  // Every rank gathers every run's report (collectives, in the same order on all ranks).
  absl::Status gathered;
  for (int r = 0; r < n; ++r) {
    absl::Status status = at(r, GatherReports(cluster, reports[r], runs[r].options, &out[r]));
    if (gathered.ok()) gathered = status;
  }
  RETURN_IF_ERROR(gathered);
  if (rank != 0) return out;
  for (int r = 0; r < n; ++r) {
    for (int i = 0; i < static_cast<int>(out[r].trials.size()); ++i) {
      const auto [r0, i0] = first[r][i];
      if (r0 == r && i0 == i) continue;
      // Empty when another rank trained it: Summarize loads it from the store.
      out[r].results[i] = out[r0].results[i0];
      out[r].errors[i] = out[r0].errors[i0];
      out[r].reused += out[r].errors[i].empty();  // trained for an earlier run, not for this one
    }
    RETURN_IF_ERROR(at(r, Summarize(*runs[r].parsed, runs[r].options, stores[r], &out[r])));
    if (runs[r].summary_copy.empty()) continue;
    const std::string dir = runs[r].options.out_dir;
    absl::StatusOr<std::string> rows = ReadFile(dir + "/summary.csv");
    RETURN_IF_ERROR(at(r, rows.ok() ? WriteFileAtomically(dir + "/" + runs[r].summary_copy, *rows)
                                    : rows.status()));
  }
  return out;
}

}  // namespace attnlab
