#include "experiments/trials/prepare_trials.h"

#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "experiments/spec/finite_numbers.h"
#include "experiments/spec/plugin_refs.h"
#include "experiments/spec/spec_changes.h"
#include "experiments/trials/trial_runner.h"

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

}  // namespace

absl::StatusOr<PreparedTrials> PrepareTrials(const ParsedSpec& parsed, int threads,
                                             const CodeVersion& code) {
  PreparedTrials prepared;
  PreparedTrials* out = &prepared;
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
        TrialRunner::Create(trial.spec, threads, parsed.directory);
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
    trial.code = code.ForPlugins(PluginFoldersOf(trial.spec));
  }
  out->notes.assign(notes.begin(), notes.end());
  return prepared;
}

}  // namespace attnlab
