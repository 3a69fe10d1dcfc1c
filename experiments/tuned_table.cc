#include "experiments/tuned_table.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "experiments/trials/statistics.h"

namespace attnlab {
namespace {

const std::string* LabelOf(const Trial& trial, const std::string& axis) {
  for (const auto& [name, value] : trial.labels) {
    if (name == axis) return &value;
  }
  return nullptr;
}

// The trials' values of `metric` grouped by their labels on `axes` (in first-seen order).
struct Group {
  std::vector<std::string> key;
  std::vector<double> values, params;
};

absl::StatusOr<std::vector<Group>> Grouped(const ExperimentResult& result,
                                           const std::vector<std::string>& axes,
                                           const std::string& metric, const std::string& params) {
  std::vector<Group> groups;
  for (size_t i = 0; i < result.trials.size(); ++i) {
    std::vector<std::string> key;
    for (const std::string& axis : axes) {
      const std::string* label = LabelOf(result.trials[i], axis);
      if (label == nullptr)
        return absl::InvalidArgumentError(absl::StrCat("no sweep axis '", axis, "'"));
      key.push_back(*label);
    }
    if (!result.results[i].has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("trial ", result.trials[i].id, " failed: ", result.errors[i]));
    }
    const TrialResult& trial = *result.results[i];
    if (std::find(result.metric_names.begin(), result.metric_names.end(), metric) ==
            result.metric_names.end() ||
        std::find(result.metric_names.begin(), result.metric_names.end(), params) ==
            result.metric_names.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the runs log no metric '", metric, "' or '", params, "'"));
    }
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.key == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{key, {}, {}});
    it->values.push_back(trial.Final(metric));
    it->params.push_back(trial.Final(params));
  }
  return groups;
}

TunedRow RowOf(const Group& group, std::string model, std::string best, int tried) {
  const MeanAndSpread summary = Summarize(group.values);
  TunedRow row;
  row.model = std::move(model);
  row.best = std::move(best);
  row.params = group.params.empty() ? 0 : group.params.front();
  row.mean = summary.mean;
  row.stddev = summary.stddev;
  row.seeds = static_cast<int>(group.values.size());
  row.tried = tried;
  return row;
}

}  // namespace

absl::StatusOr<std::vector<TunedRow>> TunedRows(const ExperimentResult& tuned,
                                                const ExperimentResult& references,
                                                const std::string& model_axis,
                                                const std::string& tuning_axis,
                                                const std::string& metric,
                                                const std::string& params) {
  absl::StatusOr<std::vector<Group>> grid =
      Grouped(tuned, {model_axis, tuning_axis}, metric, params);
  if (!grid.ok()) return grid.status();
  std::vector<TunedRow> rows;
  std::vector<std::string> models;
  for (const Group& g : *grid) {
    if (std::find(models.begin(), models.end(), g.key[0]) == models.end())
      models.push_back(g.key[0]);
  }
  for (const std::string& model : models) {
    const Group* best = nullptr;
    int tried = 0;
    for (const Group& g : *grid) {
      if (g.key[0] != model) continue;
      ++tried;
      if (best == nullptr || Summarize(g.values).mean < Summarize(best->values).mean) best = &g;
    }
    rows.push_back(RowOf(*best, model, best->key[1], tried));
  }
  absl::StatusOr<std::vector<Group>> fixed = Grouped(references, {model_axis}, metric, params);
  if (!fixed.ok()) return fixed.status();
  for (const Group& g : *fixed) {  // a tuned model's untuned trials are not a reference
    if (std::find(models.begin(), models.end(), g.key[0]) == models.end()) {
      rows.push_back(RowOf(g, g.key[0], "", 0));
    }
  }
  return rows;
}

std::string TunedTableText(const std::vector<TunedRow>& rows, const std::string& tuning_axis,
                           const std::string& metric, const std::string& baseline) {
  const TunedRow* base = nullptr;
  for (const TunedRow& row : rows) {
    if (row.model == baseline && row.best.empty()) base = &row;
  }
  size_t width = 5;
  for (const TunedRow& row : rows) width = std::max(width, row.model.size());
  std::string text = absl::StrFormat("%-*s  %10s  %-18s  %-22s  %s\n", width, "model", "params",
                                     absl::StrCat("best ", tuning_axis), metric,
                                     base ? absl::StrCat("over ", baseline) : "");
  for (const TunedRow& row : rows) {
    const std::string best =
        row.best.empty() ? "(not tuned)" : absl::StrCat(row.best, " (of ", row.tried, ")");
    absl::StrAppend(
        &text, absl::StrFormat(
                   "%-*s  %10.0f  %-18s  %-22s  %s\n", width, row.model, row.params, best,
                   absl::StrFormat("%.4g +- %.2g (%d seeds)", row.mean, row.stddev, row.seeds),
                   base && base->mean != 0 ? absl::StrFormat("%.3f", row.mean / base->mean) : ""));
  }
  return text;
}

std::string TunedTableCsv(const std::vector<TunedRow>& rows) {
  std::string csv = "model,best,tried,params,mean,sd,seeds\n";
  for (const TunedRow& row : rows) {
    absl::StrAppend(&csv, row.model, ",", row.best, ",", row.tried, ",",
                    absl::StrFormat("%.17g,%.17g,%.17g", row.params, row.mean, row.stddev), ",",
                    row.seeds, "\n");
  }
  return csv;
}

}  // namespace attnlab
