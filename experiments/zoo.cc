#include "experiments/zoo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "attention/base/files.h"
#include "attention/base/status_macros.h"
#include "attention/mechanism.h"
#include "experiments/spec/field_path.h"
#include "experiments/spec/spec_loader.h"
#include "experiments/trials/statistics.h"

namespace attnlab {
namespace {

// The spec of one (task, mechanism): the task's overrides, the mechanism in each of its
// configs, only the reported metrics, no sweep axes, no report. An error is the zoo spec's.
absl::StatusOr<ParsedSpec> CellSpec(const ZooSpec::Task& task, const std::string& zoo_dir,
                                    const std::string& mechanism, int64_t steps) {
  const std::string path =
      task.spec().empty() || task.spec()[0] == '/' ? task.spec() : zoo_dir + "/" + task.spec();
  ASSIGN_OR_RETURN(ParsedSpec parsed, ReadSpecFile(path));
  ExperimentSpec& spec = parsed.spec;
  for (const std::string& assignment : task.set()) {
    const size_t eq = assignment.find('=');
    absl::Status status =
        eq == std::string::npos
            ? absl::InvalidArgumentError("expected FIELD=VALUE")
            : SetFieldFromText(&spec, assignment.substr(0, eq), assignment.substr(eq + 1));
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("task ", task.label(), ": set ", assignment, ": ", status.message()));
    }
  }
  if (steps > 0) spec.mutable_training()->set_steps(steps);
  for (const std::string& field : task.mechanism_config()) {
    absl::Status status = SetFieldFromText(&spec, field + ".mechanism", mechanism);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("task ", task.label(), ": mechanism_config ",
                                                     field, ": ", status.message()));
    }
  }
  const std::set<std::string> wanted(task.metric().begin(), task.metric().end());
  std::set<std::string> found;
  auto* metrics = spec.mutable_metric();
  metrics->erase(std::remove_if(metrics->begin(), metrics->end(),
                                [&](const MetricSpec& m) {
                                  found.insert(m.name());
                                  return wanted.count(m.name()) == 0;
                                }),
                 metrics->end());
  for (const std::string& name : task.metric()) {
    if (name != "loss" && found.count(name) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("task ", task.label(), ": metric '", name, "' is not in ", path));
    }
  }
  spec.mutable_sweep()->clear_axis();
  spec.clear_report();
  spec.set_name(absl::StrCat(spec.name(), "_", mechanism));
  return parsed;
}

// "file:line:column: field: message (trial ...)" -> "field: message": the cell names the
// mechanism and task already.
std::string Reason(absl::string_view message) {
  std::string reason(message);
  const size_t location = reason.find(".textproto:");
  if (location != std::string::npos && reason.substr(0, location).find(' ') == std::string::npos) {
    const size_t end = reason.find(": ", location);
    if (end != std::string::npos) reason = reason.substr(end + 2);
  }
  const size_t trial = reason.rfind(" (trial ");
  if (trial != std::string::npos) reason.resize(trial);
  return reason;
}

}  // namespace

absl::StatusOr<std::vector<ZooCell>> RunZoo(const ZooSpec& zoo, const std::string& zoo_path,
                                            const ZooOptions& options) {
  std::vector<std::string> mechanisms(zoo.mechanism().begin(), zoo.mechanism().end());
  if (mechanisms.empty()) mechanisms = MechanismRegistry<double>().Names();
  for (const std::string& name : mechanisms) {
    if (MechanismRegistry<double>().Find(name) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "mechanism: unknown '", name, "'; known: ",
          absl::StrJoin(MechanismRegistry<double>().Names(), ", ")));
    }
  }
  const std::string zoo_dir = DirectoryOf(zoo_path);
  std::vector<ZooCell> cells;
  for (const ZooSpec::Task& task : zoo.task()) {
    for (const std::string& mechanism : mechanisms) {
      ASSIGN_OR_RETURN(ParsedSpec parsed, CellSpec(task, zoo_dir, mechanism, options.steps));
      if (options.progress) {
        std::fprintf(stderr, "zoo: %s with %s\n", task.label().c_str(), mechanism.c_str());
      }
      RunOptions run;
      run.out_dir = absl::StrCat(options.out_dir, "/", task.label(), "/", mechanism);
      run.threads = options.threads;
      run.progress = options.progress;
      run.stop = options.stop;
      run.code = options.code;
      run.reuse = options.reuse;
      absl::StatusOr<ExperimentResult> result = RunExperiment(parsed, run);
      if (absl::IsCancelled(result.status())) return result.status();
      for (const std::string& metric : task.metric()) {
        ZooCell cell{task.label(), metric, mechanism};
        if (!result.ok()) {
          // The model refuses the mechanism (a spec error) or the task's data are missing;
          // anything else stops the zoo.
          if (!absl::IsInvalidArgument(result.status()) && !absl::IsNotFound(result.status())) {
            return result.status();
          }
          cell.note = "n/a: " + Reason(result.status().message());
        } else {
          std::vector<double> values;
          std::string failure;
          for (size_t i = 0; i < result->results.size(); ++i) {
            if (result->results[i]) {
              values.push_back(result->results[i]->Final(metric));
            } else if (failure.empty() && i < result->errors.size()) {
              failure = result->errors[i];
            }
          }
          if (values.empty()) {
            cell.note = "failed: " + failure;
          } else {
            const MeanAndSpread summary = Summarize(values);
            cell.mean = summary.mean;
            cell.stddev = summary.stddev;
            cell.seeds = static_cast<int>(values.size());
          }
        }
        cells.push_back(cell);
      }
    }
  }
  return cells;
}

std::string ZooTable(const std::vector<ZooCell>& cells) {
  std::vector<std::string> columns, rows;
  std::map<std::pair<std::string, std::string>, std::string> text;
  std::vector<std::string> notes;
  for (const ZooCell& cell : cells) {
    const std::string column = absl::StrCat(cell.task, " ", cell.metric);
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) {
      columns.push_back(column);
    }
    if (std::find(rows.begin(), rows.end(), cell.mechanism) == rows.end()) {
      rows.push_back(cell.mechanism);
    }
    std::string& entry = text[{cell.mechanism, column}];
    if (!cell.note.empty()) {
      const std::string kind = cell.note.substr(0, cell.note.find(':'));
      const std::string full = absl::StrCat(cell.mechanism, " on ", cell.task, ": ", cell.note);
      if (std::find(notes.begin(), notes.end(), full) == notes.end()) notes.push_back(full);
      entry = kind;
    } else if (cell.seeds > 1) {
      entry = absl::StrFormat("%.4g +- %.2g", cell.mean, cell.stddev);
    } else {
      entry = absl::StrFormat("%.4g", cell.mean);
    }
  }
  std::vector<size_t> widths;
  size_t first = std::string("mechanism").size();
  for (const std::string& row : rows) first = std::max(first, row.size());
  for (const std::string& column : columns) {
    size_t width = column.size();
    for (const std::string& row : rows) width = std::max(width, text[{row, column}].size());
    widths.push_back(width);
  }
  std::string out = absl::StrFormat("%-*s", first, "mechanism");
  for (size_t c = 0; c < columns.size(); ++c) {
    absl::StrAppend(&out, absl::StrFormat("  %-*s", widths[c], columns[c]));
  }
  out += "\n";
  for (const std::string& row : rows) {
    absl::StrAppend(&out, absl::StrFormat("%-*s", first, row));
    for (size_t c = 0; c < columns.size(); ++c) {
      absl::StrAppend(&out, absl::StrFormat("  %-*s", widths[c], text[{row, columns[c]}]));
    }
    out += "\n";
  }
  for (const std::string& note : notes) absl::StrAppend(&out, note, "\n");
  return out;
}

absl::Status KeepTasks(absl::string_view labels, ZooSpec* zoo) {
  if (labels.empty()) return absl::OkStatus();
  std::set<std::string> wanted;
  for (absl::string_view label : absl::StrSplit(labels, ',', absl::SkipEmpty())) {
    wanted.insert(std::string(label));
  }
  std::vector<std::string> known;
  ZooSpec kept = *zoo;
  kept.clear_task();
  for (const ZooSpec::Task& task : zoo->task()) {
    known.push_back(task.label());
    if (wanted.erase(task.label()) > 0) *kept.add_task() = task;
  }
  if (!wanted.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no task '", *wanted.begin(), "' in the zoo; its tasks: ", absl::StrJoin(known, ", ")));
  }
  if (kept.task().empty()) return absl::InvalidArgumentError("names no task");
  *zoo = std::move(kept);
  return absl::OkStatus();
}

absl::Status WriteZooCsv(const std::vector<ZooCell>& cells, const std::string& path) {
  std::string csv = "task,metric,mechanism,mean,std,seeds,note\n";
  for (const ZooCell& cell : cells) {
    std::string note = cell.note;
    std::replace(note.begin(), note.end(), '"', '\'');
    absl::StrAppend(&csv, cell.task, ",", cell.metric, ",", cell.mechanism, ",",
                    cell.note.empty() ? absl::StrFormat("%.17g", cell.mean) : "", ",",
                    cell.note.empty() ? absl::StrFormat("%.17g", cell.stddev) : "", ",",
                    cell.seeds, ",\"", note, "\"\n");
  }
  return WriteFileAtomically(path, csv);
}

}  // namespace attnlab
