#include "experiments/runner.h"

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
#include "experiments/cluster.h"
#include "experiments/finite_numbers.h"
#include "experiments/plugin_refs.h"
#include "experiments/progress_board.h"
#include "experiments/rank_report.pb.h"
#include "experiments/spec_changes.h"
#include "experiments/statistics.h"
#include "experiments/test_hooks.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

absl::Status SpecError(const SpecLocator& locator, const absl::Status& status,
                       const std::string& context = "") {
  // NotFound (a missing data file) keeps its code; every other spec problem is InvalidArgument.
  const absl::StatusCode code = status.code() == absl::StatusCode::kNotFound
                                    ? status.code()
                                    : absl::StatusCode::kInvalidArgument;
  return absl::Status(code, absl::StrCat(locator.Format(WithSpecChangeNote(status)), context));
}

// Log and report steps past the end of training (a shortened run, --set=training.steps=300)
// are dropped, each said once.
void NotePastTheEnd(const ExperimentSpec& trial, std::set<std::string>* notes) {
  const int64_t steps = trial.training().steps();
  for (int64_t step : trial.training().log_step()) {
    if (step > steps) {
      notes->insert(absl::StrCat("training.log_step ", step, " is past training.steps (", steps,
                                 "): not logged"));
    }
  }
  for (int64_t step : trial.report().step()) {
    if (step > steps) {
      notes->insert(absl::StrCat("report.step ", step, " is past training.steps (", steps,
                                 "): not shown"));
    }
  }
}

// The report shows steps each trial logged and metrics it has.
absl::Status ValidateReport(const ExperimentSpec& trial, const std::vector<std::string>& names) {
  const std::set<int64_t> logged = LoggedSteps(trial.training());
  for (int64_t step : trial.report().step()) {
    if (step > trial.training().steps()) continue;  // noted
    if (logged.count(step) == 0) {
      return FieldError("report.step",
                        absl::StrCat("step ", step, " is not logged; add it to training.log_step"));
    }
  }
  auto check = [&](const std::string& metric, const std::string& field) {
    if (std::find(names.begin(), names.end(), metric) != names.end()) return absl::OkStatus();
    return FieldError(field, absl::StrCat("no metric '", metric, "'; metrics: ",
                                          absl::StrJoin(names, ", ")));
  };
  for (const std::string& metric : trial.report().metric()) {
    RETURN_IF_ERROR(check(metric, "report.metric"));
  }
  for (int i = 0; i < trial.report().correlation_size(); ++i) {
    const auto& correlation = trial.report().correlation(i);
    RETURN_IF_ERROR(check(correlation.x(), absl::StrCat("report.correlation[", i, "].x")));
    RETURN_IF_ERROR(check(correlation.y(), absl::StrCat("report.correlation[", i, "].y")));
  }
  return absl::OkStatus();
}

// summary.csv's columns are trial, the sweep's, seed, status and the metrics: each name once.
absl::Status ValidateSweepColumns(const ExperimentSpec& spec,
                                  const std::vector<std::string>& metrics) {
  const std::vector<std::string> columns = SweepColumns(spec);  // the axes', then "seed"
  for (int a = 0; a < spec.sweep().axis_size(); ++a) {
    const std::string& column = columns[a];
    std::string clash;
    if (column == "trial" || column == "status" || column == "seed") {
      clash = "a column summary.csv always has";
    } else if (std::find(metrics.begin(), metrics.end(), column) != metrics.end()) {
      clash = "a metric's column";
    } else if (std::find(columns.begin(), columns.begin() + a, column) != columns.begin() + a) {
      clash = "another axis's column";
    }
    if (clash.empty()) continue;
    const bool named = !spec.sweep().axis(a).name().empty();
    return FieldError(absl::StrCat("sweep.axis[", a, "].", named ? "name" : "field"),
                      absl::StrCat("the column '", column, "' is ", clash,
                                   named ? "; rename the axis" : "; give the axis a name"));
  }
  return absl::OkStatus();
}

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

// The trials of the sweep, each built once (a dry run: a typo in the last sweep value fails
// now, not after an hour), with their data files in their ids.
absl::Status PrepareTrials(const ParsedSpec& parsed, const RunOptions& options,
                           ExperimentResult* out) {
  const SpecLocator& locator = *parsed.locator;
  absl::StatusOr<std::vector<Trial>> trials = ExpandSweep(parsed.spec);
  if (!trials.ok()) return SpecError(locator, trials.status());
  out->trials = std::move(*trials);  // ExpandSweep refused identical trials
  std::set<std::string> notes;
  // The last trial's runner stays until the next is built, so that they share its dataset.
  std::unique_ptr<TrialRunner> previous;
  for (const Trial& trial : out->trials) {
    NotePastTheEnd(trial.spec, &notes);
    const std::string which =
        parsed.spec.has_sweep() ? absl::StrCat(" (trial ", TrialLabel(trial), ")") : "";
    if (absl::Status s = CheckFiniteNumbers(trial.spec); !s.ok()) {
      return SpecError(locator, s, which);
    }
    absl::StatusOr<std::unique_ptr<TrialRunner>> runner =
        TrialRunner::Create(trial.spec, options.threads, parsed.directory);
    if (!runner.ok()) return SpecError(locator, runner.status(), which);
    if (out->metric_names.empty()) {
      out->metric_names = (*runner)->metric_names();
      if (absl::Status s = ValidateSweepColumns(parsed.spec, out->metric_names); !s.ok()) {
        return SpecError(locator, s);
      }
    }
    if (absl::Status s = ValidateReport(trial.spec, (*runner)->metric_names()); !s.ok()) {
      return SpecError(locator, s);
    }
    previous = std::move(*runner);
  }
  // The data each trial reads joins its id (every file exists: the dry run read it).
  for (Trial& trial : out->trials) {
    absl::StatusOr<std::vector<DataFile>> data =
        FingerprintDataFiles(DataFilePaths(trial.spec, parsed.directory));
    if (!data.ok()) return data.status();
    trial.data = std::move(*data);
    trial.id = TrialId(trial.spec, trial.data);
    trial.code = options.code.ForPlugins(PluginFoldersOf(trial.spec));
  }
  out->notes.assign(notes.begin(), notes.end());
  if (options.progress) {
    for (const std::string& note : out->notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  }
  return absl::OkStatus();
}

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
  RETURN_IF_ERROR(PrepareTrials(parsed, options, &out));
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

namespace {

std::string FormatValue(double value) {
  if (std::isnan(value)) return "n/a";
  if (value == std::round(value) && std::abs(value) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(value));  // counts, e.g. params
  }
  return absl::StrFormat("%.6g", value);
}

std::string FormatTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(rows[0].size());
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string table;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      absl::StrAppend(&line, c ? "  " : "", absl::StrFormat("%-*s", width[c], row[c]));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    table += line + "\n";
  }
  return table;
}

}  // namespace

std::string SummaryTable(const ExperimentSpec& spec, const ExperimentResult& result) {
  std::vector<std::string> metrics(spec.report().metric().begin(), spec.report().metric().end());
  if (metrics.empty()) metrics = result.metric_names;
  const std::vector<int64_t> report_steps(spec.report().step().begin(), spec.report().step().end());
  auto steps_of = [&](const Trial& trial) {
    const int64_t last = trial.spec.training().steps();
    std::vector<int64_t> steps;
    for (int64_t step : report_steps) {
      if (step <= last) steps.push_back(step);  // past the end: noted when the run started
    }
    if (steps.empty()) steps.push_back(last);
    return steps;
  };
  // The columns the trials carry (a table of another spec's trials stays rectangular).
  std::vector<std::string> columns;
  if (result.trials.empty()) columns = SweepColumns(spec);
  for (const auto& label : result.trials.empty() ? std::vector<std::pair<std::string, std::string>>()
                                                 : result.trials[0].labels) {
    columns.push_back(label.first);
  }
  std::vector<std::vector<std::string>> rows;
  if (!spec.report().aggregate_seeds()) {
    std::vector<std::string> header = {"trial"};
    header.insert(header.end(), columns.begin(), columns.end());
    header.push_back("step");
    header.insert(header.end(), metrics.begin(), metrics.end());
    rows.push_back(header);
    for (size_t i = 0; i < result.trials.size(); ++i) {
      const Trial& trial = result.trials[i];
      for (int64_t step : steps_of(trial)) {
        std::vector<std::string> row = {trial.id};
        for (const auto& label : trial.labels) row.push_back(label.second);
        row.push_back(absl::StrCat(step));
        for (const auto& metric : metrics) {
          row.push_back(result.results[i].has_value()
                            ? FormatValue(result.results[i]->At(step, metric))
                            : "failed");
        }
        rows.push_back(std::move(row));
      }
    }
  } else {
    // Trials that differ only in their seed form one row: mean +- standard deviation.
    columns.pop_back();  // "seed"
    std::vector<std::string> header = columns;
    header.push_back("seeds");
    header.push_back("step");
    header.insert(header.end(), metrics.begin(), metrics.end());
    rows.push_back(header);
    std::vector<std::vector<std::string>> keys;
    std::vector<std::vector<size_t>> groups;
    for (size_t i = 0; i < result.trials.size(); ++i) {
      std::vector<std::string> key;
      for (size_t c = 0; c < columns.size(); ++c) key.push_back(result.trials[i].labels[c].second);
      auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end()) {
        keys.push_back(key);
        groups.emplace_back();
        it = keys.end() - 1;
      }
      groups[it - keys.begin()].push_back(i);
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      for (int64_t step : steps_of(result.trials[groups[g][0]])) {
        std::vector<std::string> row = keys[g];
        row.push_back(absl::StrCat(groups[g].size()));
        row.push_back(absl::StrCat(step));
        for (const auto& metric : metrics) {
          std::vector<double> values;
          for (size_t i : groups[g]) {
            if (result.results[i].has_value()) values.push_back(result.results[i]->At(step, metric));
          }
          const MeanAndSpread s = Summarize(values);
          row.push_back(values.empty() ? "failed"
                                       : absl::StrCat(FormatValue(s.mean), " +- ",
                                                      absl::StrFormat("%.2g", s.stddev)));
        }
        rows.push_back(std::move(row));
      }
    }
  }
  std::string table = FormatTable(rows);
  for (const auto& correlation : spec.report().correlation()) {
    std::vector<double> x, y;
    for (const auto& trial : result.results) {
      if (!trial.has_value()) continue;
      x.push_back(trial->Final(correlation.x()));
      y.push_back(trial->Final(correlation.y()));
    }
    absl::StrAppend(&table, absl::StrFormat("Spearman rank correlation of %s and %s: %.3f over %d trials\n",
                                            correlation.x(), correlation.y(),
                                            SpearmanCorrelation(x, y), static_cast<int>(x.size())));
  }
  return table;
}

}  // namespace attnlab
