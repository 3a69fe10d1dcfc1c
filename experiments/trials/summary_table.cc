#include "experiments/trials/summary_table.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "experiments/trials/statistics.h"

namespace attnlab {
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
