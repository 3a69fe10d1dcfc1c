#include "experiments/runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "attention/field_error.h"

namespace attnlab {
namespace {

std::string TrialLabel(const Trial& trial) {
  std::vector<std::string> parts;
  for (const auto& [column, value] : trial.labels) parts.push_back(column + "=" + value);
  return absl::StrJoin(parts, " ");
}

absl::Status SpecError(const SpecLocator& locator, const absl::Status& status,
                       const std::string& context = "") {
  return absl::InvalidArgumentError(absl::StrCat(locator.Format(status), context));
}

absl::Status ValidateReport(const ExperimentSpec& spec, const std::vector<std::string>& names) {
  for (int64_t step : spec.report().step()) {
    const TrainingSpec& training = spec.training();
    const bool logged = step == 0 || step == training.steps() ||
                        (training.log_every() > 0 && step % training.log_every() == 0 &&
                         step <= training.steps()) ||
                        std::count(training.log_step().begin(), training.log_step().end(), step);
    if (!logged) {
      return FieldError("report.step",
                        absl::StrCat("step ", step, " is not logged; add it to training.log_step"));
    }
  }
  for (const std::string& metric : spec.report().metric()) {
    if (std::find(names.begin(), names.end(), metric) == names.end()) {
      return FieldError("report.metric", absl::StrCat("no metric '", metric, "'; metrics: ",
                                                      absl::StrJoin(names, ", ")));
    }
  }
  return absl::OkStatus();
}

// Progress of one trial on stderr: overwritten in place on a terminal, silent otherwise.
class ProgressLine {
 public:
  ProgressLine(bool enabled, std::string prefix)
      : enabled_(enabled && isatty(STDERR_FILENO)),
        prefix_(std::move(prefix)),
        start_(std::chrono::steady_clock::now()) {}

  void Update(const Progress& p) {
    if (!enabled_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = p.step > 0 ? elapsed * (p.steps - p.step) / p.step : 0;
    std::fprintf(stderr, "\r%s step %lld/%lld  loss %.6g  ETA %.0fs   ", prefix_.c_str(),
                 static_cast<long long>(p.step), static_cast<long long>(p.steps), p.loss, eta);
    std::fflush(stderr);
  }

  void Finish(const std::string& what) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "%s%s %s (%.2fs)\n", enabled_ ? "\r" : "", prefix_.c_str(),
                 what.c_str(), elapsed);
  }

 private:
  bool enabled_;
  std::string prefix_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

absl::StatusOr<ExperimentResult> RunExperiment(const ParsedSpec& parsed,
                                               const RunOptions& options) {
  const SpecLocator& locator = *parsed.locator;
  ExperimentResult out;
  absl::StatusOr<std::vector<Trial>> trials = ExpandSweep(parsed.spec);
  if (!trials.ok()) return SpecError(locator, trials.status());
  out.trials = std::move(*trials);
  std::set<std::string> ids;
  for (const Trial& trial : out.trials) {
    if (!ids.insert(trial.id).second) {
      return SpecError(locator, FieldError("sweep", absl::StrCat("two trials are identical (",
                                                                 TrialLabel(trial), ")")));
    }
  }
  // Dry run: every trial must build before any trains, so a typo in the last sweep value does
  // not surface after an hour.
  for (const Trial& trial : out.trials) {
    absl::StatusOr<std::unique_ptr<TrialRunner>> runner =
        TrialRunner::Create(trial.spec, options.threads);
    if (!runner.ok()) {
      return SpecError(locator, runner.status(),
                       parsed.spec.has_sweep() ? absl::StrCat(" (trial ", TrialLabel(trial), ")")
                                               : "");
    }
    if (out.metric_names.empty()) out.metric_names = (*runner)->metric_names();
  }
  if (absl::Status s = ValidateReport(parsed.spec, out.metric_names); !s.ok()) {
    return SpecError(locator, s);
  }
  if (options.dry_run) return out;

  const ResultsStore store(options.out_dir);
  const int total = static_cast<int>(out.trials.size());
  for (int i = 0; i < total; ++i) {
    const Trial& trial = out.trials[i];
    ProgressLine line(options.progress,
                      absl::StrFormat("[%d/%d %s %s]", i + 1, total, trial.id, TrialLabel(trial)));
    absl::StatusOr<std::optional<TrialResult>> stored = store.Load(trial.id);
    if (!stored.ok()) return stored.status();
    if (stored->has_value()) {
      out.results.push_back(std::move(*stored));
      out.errors.emplace_back();
      ++out.reused;
      line.Finish("finished earlier, reused");
      continue;
    }
    absl::StatusOr<TrialResult> result = [&]() -> absl::StatusOr<TrialResult> {
      auto runner = TrialRunner::Create(trial.spec, options.threads);
      if (!runner.ok()) return runner.status();
      return (*runner)->Run([&](const Progress& p) { line.Update(p); });
    }();
    if (!result.ok()) {
      out.results.emplace_back();
      out.errors.push_back(std::string(result.status().message()));
      ++out.failed;
      line.Finish(absl::StrCat("FAILED: ", result.status().message()));
      continue;
    }
    if (absl::Status s = store.Save(trial, *result); !s.ok()) return s;
    out.results.push_back(std::move(*result));
    out.errors.emplace_back();
    line.Finish(absl::StrFormat("done, loss %.6g", out.results.back()->Final("loss")));
  }
  if (absl::Status s = store.WriteSummary(SweepColumns(parsed.spec), out.metric_names, out.trials,
                                          out.results, out.errors);
      !s.ok()) {
    return s;
  }
  return out;
}

std::string SummaryTable(const ExperimentSpec& spec, const ExperimentResult& result) {
  std::vector<std::string> metrics(spec.report().metric().begin(), spec.report().metric().end());
  if (metrics.empty()) metrics = result.metric_names;
  const std::vector<int64_t> report_steps(spec.report().step().begin(), spec.report().step().end());

  std::vector<std::string> header = {"trial"};
  for (const auto& column : SweepColumns(spec)) header.push_back(column);
  header.push_back("step");
  for (const auto& metric : metrics) header.push_back(metric);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < result.trials.size(); ++i) {
    const Trial& trial = result.trials[i];
    std::vector<int64_t> steps = report_steps;
    if (steps.empty()) steps.push_back(trial.spec.training().steps());
    for (int64_t step : steps) {
      std::vector<std::string> row = {trial.id};
      for (const auto& label : trial.labels) row.push_back(label.second);
      row.push_back(absl::StrCat(step));
      for (const auto& metric : metrics) {
        const double value =
            result.results[i].has_value() ? result.results[i]->At(step, metric) : 0;
        row.push_back(!result.results[i].has_value() ? "failed"
                      : std::isnan(value)             ? "n/a"
                                                      : absl::StrFormat("%.6g", value));
      }
      rows.push_back(std::move(row));
    }
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  auto format_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      absl::StrAppend(&line, c ? "  " : "", absl::StrFormat("%-*s", width[c], row[c]));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::string table = format_row(header);
  for (const auto& row : rows) table += format_row(row);
  return table;
}

}  // namespace attnlab
