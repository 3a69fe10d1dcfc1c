#include "experiments/reproduction/check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "attention/base/status_macros.h"
#include "experiments/trials/statistics.h"

namespace attnlab {
namespace {

const std::string* Label(const Trial& trial, absl::string_view axis) {
  for (const auto& [name, value] : trial.labels) {
    if (name == axis) return &value;
  }
  return nullptr;
}

// The trials of `run` whose labels pass every filter "axis=a|b".
absl::StatusOr<std::vector<size_t>> Select(
    const RunOutcome& run, const google::protobuf::RepeatedPtrField<std::string>& where,
    const std::string& field) {
  std::vector<size_t> selected;
  for (size_t i = 0; i < run.trials.size(); ++i) selected.push_back(i);
  for (const std::string& filter : where) {
    const size_t eq = filter.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": '", filter, "': expected AXIS=LABEL|LABEL..."));
    }
    const std::string axis = filter.substr(0, eq);
    const std::vector<std::string> labels = absl::StrSplit(filter.substr(eq + 1), '|');
    if (!run.trials.empty() && Label(run.trials[0], axis) == nullptr) {
      std::vector<std::string> axes;
      for (const auto& label : run.trials[0].labels) axes.push_back(label.first);
      return absl::InvalidArgumentError(absl::StrCat(field, ": run ", run.name, " has no axis '",
                                                     axis,
                                                     "'; its axes: ", absl::StrJoin(axes, ", ")));
    }
    std::vector<size_t> kept;
    for (size_t i : selected) {
      const std::string* label = Label(run.trials[i], axis);
      if (std::find(labels.begin(), labels.end(), *label) != labels.end()) kept.push_back(i);
    }
    selected = std::move(kept);
  }
  if (selected.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": no trial of run ", run.name,
                                                   " matches ", absl::StrJoin(where, ", ")));
  }
  return selected;
}

std::string StepText(const Quantity& q) {
  return q.has_step() ? absl::StrCat(" at step ", q.step()) : "";
}

// "pgd3", "err at step 4000", "clean at 0.8 of training": a curve point's name.
std::string QuantityName(const Quantity& q) {
  return absl::StrCat(q.metric().empty() ? q.axis() : q.metric(), StepText(q),
                      q.has_fraction() ? absl::StrCat(" at ", q.fraction(), " of training") : "");
}

// The logged step of `metric` nearest `fraction` of its last logged step (the earlier on a tie).
int64_t StepAtFraction(const TrialResult& result, const std::string& metric, double fraction) {
  int64_t last = 0;
  for (const MetricPoint& point : result.points) {
    if (point.metric == metric) last = std::max(last, point.step);
  }
  const double target = fraction * static_cast<double>(last);
  int64_t nearest = last;
  for (const MetricPoint& point : result.points) {
    if (point.metric != metric) continue;
    const double distance = std::abs(static_cast<double>(point.step) - target);
    const double best = std::abs(static_cast<double>(nearest) - target);
    if (distance < best || (distance == best && point.step < nearest)) nearest = point.step;
  }
  return nearest;
}

// Check.along_training's per-trial value: Spearman's rank correlation between `versus` and
// `value` over the steps at which the trial logs both.
absl::StatusOr<double> CorrelationAlongTraining(const Check& check, const RunOutcome& run,
                                                size_t i) {
  if (check.value().metric().empty() || check.versus().metric().empty() ||
      check.value().has_step() || check.versus().has_step() || check.value().has_fraction() ||
      check.versus().has_fraction() || check.relative_case() != Check::RELATIVE_NOT_SET ||
      check.aggregate() == Check::SPEARMAN) {
    return absl::InvalidArgumentError(
        "along_training: needs `value` and `versus` metrics without steps, no relative "
        "quantity, and an aggregate over the trials other than SPEARMAN");
  }
  const TrialResult& result = *run.results[i];
  std::map<int64_t, double> xs, ys;
  for (const MetricPoint& point : result.points) {
    if (point.metric == check.versus().metric()) xs[point.step] = point.value;
    if (point.metric == check.value().metric()) ys[point.step] = point.value;
  }
  std::vector<double> x, y;
  for (const auto& [step, value] : ys) {
    if (auto it = xs.find(step); it != xs.end()) {
      x.push_back(it->second);
      y.push_back(value);
    }
  }
  if (x.size() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "along_training: run ", run.name, " logs '", check.value().metric(), "' and '",
        check.versus().metric(), "' together at ", x.size(), " steps (needs at least 3)"));
  }
  return SpearmanCorrelation(x, y);
}

absl::StatusOr<double> ValueOf(const Quantity& q, const RunOutcome& run, size_t i,
                               const std::string& field) {
  const Trial& trial = run.trials[i];
  if (q.kind_case() == Quantity::kAxis) {
    const std::string* label = Label(trial, q.axis());
    double value;
    if (label == nullptr || !absl::SimpleAtod(*label, &value)) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": axis '", q.axis(), "' of run ",
                                                     run.name, " has no numeric label"));
    }
    return value;
  }
  if (q.kind_case() != Quantity::kMetric) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": give a metric or an axis"));
  }
  const TrialResult& result = *run.results[i];
  bool known = false, logged = false;
  for (const MetricPoint& point : result.points) {
    if (point.metric != q.metric()) continue;
    known = true;
    logged = logged || !q.has_step() || point.step == q.step();
  }
  if (!known || !logged) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": run ", run.name, " has no metric '", q.metric(), "'", known ? StepText(q) : "",
        known ? " (not a logged step)" : ""));
  }
  if (q.has_fraction()) {
    if (q.has_step() || !(q.fraction() >= 0 && q.fraction() <= 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".fraction: must be in [0, 1] and not given with a step, got ", q.fraction()));
    }
    return result.At(StepAtFraction(result, q.metric(), q.fraction()), q.metric());
  }
  return q.has_step() ? result.At(q.step(), q.metric()) : result.Final(q.metric());
}

std::string AggregateName(Check::Aggregate aggregate) {
  switch (aggregate) {
    case Check::MIN: return "least";
    case Check::MAX: return "largest";
    case Check::SPEARMAN: return "Spearman";
    default: return "mean";
  }
}

std::string OpText(Threshold::Op op) {
  switch (op) {
    case Threshold::GE: return ">=";
    case Threshold::LT: return "<";
    case Threshold::LE: return "<=";
    case Threshold::WITHIN: return "within";
    default: return ">";
  }
}

bool Passes(const Threshold& threshold, const CheckOutcome& outcome, Check::Aggregate own) {
  const Check::Aggregate aggregate = threshold.has_aggregate() ? threshold.aggregate() : own;
  double value = aggregate == Check::MEAN ? outcome.mean
                 : aggregate == Check::MIN ? outcome.min
                 : aggregate == Check::MAX ? outcome.max
                                           : outcome.value;
  const double margin = aggregate == Check::MEAN ? threshold.margin_sd() * outcome.stddev : 0;
  if (std::isnan(value)) return false;
  if (threshold.op() == Threshold::WITHIN) {
    return std::abs(value - threshold.value()) + margin <= threshold.tolerance();
  }
  const bool above = threshold.op() == Threshold::GT || threshold.op() == Threshold::GE;
  value += above ? -margin : margin;
  switch (threshold.op()) {
    case Threshold::GE: return value >= threshold.value();
    case Threshold::LT: return value < threshold.value();
    case Threshold::LE: return value <= threshold.value();
    default: return value > threshold.value();
  }
}

std::string RuleText(const Threshold& threshold, Check::Aggregate own) {
  const Check::Aggregate aggregate = threshold.has_aggregate() ? threshold.aggregate() : own;
  std::string lhs = aggregate == own ? "" : AggregateName(aggregate) + " ";
  if (aggregate == Check::MEAN && threshold.margin_sd() != 0) {
    lhs = absl::StrFormat("mean %s %g sd ",
                          threshold.op() == Threshold::GT || threshold.op() == Threshold::GE ? "-"
                                                                                             : "+",
                          threshold.margin_sd());
  }
  if (threshold.op() == Threshold::WITHIN) {
    return absl::StrFormat("%swithin %g of %g",
                           aggregate == Check::MEAN && threshold.margin_sd() != 0
                               ? absl::StrFormat("mean +- %g sd ", threshold.margin_sd())
                               : lhs,
                           threshold.tolerance(), threshold.value());
  }
  return absl::StrCat(lhs, OpText(threshold.op()), " ", absl::StrFormat("%g", threshold.value()));
}

// The rule with where its bar comes from.
std::string SourcedRuleText(const Threshold& threshold, Check::Aggregate own) {
  return absl::StrCat(RuleText(threshold, own),
                      threshold.source() == Threshold::PAPER ? " (the paper's bar)" : " (our bar)");
}

// The two-sided 95% quantile of Student's t with `df` degrees of freedom.
double TQuantile975(int df) {
  static constexpr double kTable[] = {12.706, 4.303, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
                                      2.228,  2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
                                      2.101,  2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
                                      2.056,  2.052, 2.048, 2.045, 2.042, 2.042};
  if (df < 1) return std::numeric_limits<double>::infinity();
  return df <= 30 ? kTable[df - 1] : 1.96;
}

// Whether `value` alone passes `threshold` (no margin).
bool PassesValue(const Threshold& threshold, double value) {
  if (std::isnan(value)) return false;
  switch (threshold.op()) {
    case Threshold::GE:
      return value >= threshold.value();
    case Threshold::LT:
      return value < threshold.value();
    case Threshold::LE:
      return value <= threshold.value();
    case Threshold::WITHIN:
      return std::abs(value - threshold.value()) <= threshold.tolerance();
    default:
      return value > threshold.value();
  }
}

// A paired effect's interval [low, high] against a bar: met when all of it passes, not met when
// none of it does (for WITHIN: when it misses the band), otherwise straddling (nullopt).
std::optional<bool> IntervalPasses(const Threshold& threshold, double low, double high) {
  if (threshold.op() == Threshold::WITHIN) {
    const double lo = threshold.value() - threshold.tolerance();
    const double hi = threshold.value() + threshold.tolerance();
    if (low >= lo && high <= hi) return true;
    if (high < lo || low > hi) return false;
    return std::nullopt;
  }
  const bool low_passes = PassesValue(threshold, low), high_passes = PassesValue(threshold, high);
  if (low_passes && high_passes) return true;
  if (!low_passes && !high_passes) return false;
  return std::nullopt;
}

// A paired effect's level from its interval (Threshold.margin_sd's comment).
Level PairedLevel(const Check& check, double low, double high) {
  const std::optional<bool> full = IntervalPasses(check.reproduced(), low, high);
  if (full == std::optional<bool>(true)) return Level::kReproduced;
  if (!check.has_partly()) return full.has_value() ? Level::kNot : Level::kNoise;
  const std::optional<bool> partly = IntervalPasses(check.partly(), low, high);
  if (partly == std::optional<bool>(true)) return full.has_value() ? Level::kPartly : Level::kNoise;
  if (partly == std::optional<bool>(false) && full.has_value()) return Level::kNot;
  return Level::kNoise;
}

// best_over: within each group of trials that differ only in the axis and their seed, the
// label with the best mean score; the other labels' values are dropped.
absl::Status KeepBest(const Check& check, const RunOutcome& run, const std::vector<double>& scores,
                      std::vector<size_t>* trial_of, std::vector<double>* values,
                      std::vector<double>* versus, std::vector<std::string>* chosen) {
  const std::string& axis = check.best_over();
  // group -> label -> (sum, count), in order of appearance.
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> labels_of;
  std::map<std::pair<std::string, std::string>, std::pair<double, int>> sums;
  std::vector<std::pair<std::string, std::string>> key_of(values->size());
  for (size_t v = 0; v < values->size(); ++v) {
    const Trial& trial = run.trials[(*trial_of)[v]];
    const std::string* label = Label(trial, axis);
    if (label == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("best_over: run ", run.name, " has no axis '", axis, "'"));
    }
    std::vector<std::string> rest;
    for (const auto& [name, value] : trial.labels) {
      if (name != axis && name != "seed") rest.push_back(name + "=" + value);
    }
    const std::string group = absl::StrJoin(rest, " ");
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
    auto& labels = labels_of[group];
    if (std::find(labels.begin(), labels.end(), *label) == labels.end()) labels.push_back(*label);
    auto& sum = sums[{group, *label}];
    sum.first += scores[v];
    ++sum.second;
    key_of[v] = {group, *label};
  }
  std::map<std::string, std::string> best;
  for (const std::string& group : groups) {
    const std::string* pick = nullptr;
    double pick_mean = 0;
    for (const std::string& label : labels_of[group]) {
      const auto& [sum, count] = sums[{group, label}];
      const double mean = sum / count;
      const bool better = check.best_highest() ? mean > pick_mean : mean < pick_mean;
      if (pick == nullptr || better) {
        pick = &label;
        pick_mean = mean;
      }
    }
    best[group] = *pick;
    chosen->push_back(absl::StrCat(group.empty() ? "" : group + ": ", axis, "=", *pick));
  }
  std::vector<size_t> kept_trials;
  std::vector<double> kept_values, kept_versus;
  for (size_t v = 0; v < values->size(); ++v) {
    if (best[key_of[v].first] != key_of[v].second) continue;
    kept_trials.push_back((*trial_of)[v]);
    kept_values.push_back((*values)[v]);
    if (!versus->empty()) kept_versus.push_back((*versus)[v]);
  }
  *trial_of = std::move(kept_trials);
  *values = std::move(kept_values);
  *versus = std::move(kept_versus);
  return absl::OkStatus();
}

// matched_by: the baseline's value at the trial's own matched_by quantity, interpolated along
// the baseline trials `curve` (those of the trial's seed); nullopt, with `error` set, when the
// trial lies outside the curve.
absl::StatusOr<std::optional<double>> Interpolated(const Quantity& value, const Baseline& base,
                                                   const RunOutcome& run, size_t trial,
                                                   const RunOutcome& baseline,
                                                   const std::vector<size_t>& curve,
                                                   const std::string& field, std::string* error) {
  if (curve.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".matched_by: ", curve.size(), " trials of run ", baseline.name, " have seed ",
        *Label(run.trials[trial], "seed"), " (a curve needs at least two)"));
  }
  ASSIGN_OR_RETURN(const double x, ValueOf(base.matched_by(), run, trial, field + ".matched_by"));
  std::vector<std::pair<double, double>> points;  // (matched_by, value) along the baseline
  for (size_t b : curve) {
    ASSIGN_OR_RETURN(const double bx,
                     ValueOf(base.matched_by(), baseline, b, field + ".matched_by"));
    ASSIGN_OR_RETURN(const double by, ValueOf(value, baseline, b, field));
    points.emplace_back(bx, by);
  }
  std::sort(points.begin(), points.end());
  for (size_t k = 1; k < points.size(); ++k) {
    const auto& [x0, y0] = points[k - 1];
    const auto& [x1, y1] = points[k];
    if (x < x0 || x > x1) continue;
    return x1 == x0 ? y0 : y0 + (y1 - y0) * (x - x0) / (x1 - x0);
  }
  *error = absl::StrFormat(
      "trial %s (%s): its matched_by quantity %.6g is outside run %s's range %.6g to %.6g at its "
      "seed (extend the baseline's grid)",
      run.trials[trial].id, TrialLabel(run.trials[trial]), x, baseline.name, points.front().first,
      points.back().first);
  return std::optional<double>();
}

}  // namespace

std::string CheckOutcome::Number() const {
  if (!evaluated()) return "n/a";
  if (!points.empty()) {
    std::vector<std::string> each;
    for (const CheckOutcome& point : points) {
      each.push_back(absl::StrCat(point.name, ": ", point.Number(), " ",
                                  point.level == Level::kReproduced ? "met"
                                  : point.level == Level::kPartly   ? "partly met"
                                  : point.level == Level::kNoise    ? "noise"
                                                                    : "not met"));
    }
    return absl::StrCat("over the curve: ", absl::StrJoin(each, "; "));
  }
  if (!chosen.empty()) {
    CheckOutcome plain = *this;
    plain.chosen.clear();
    return absl::StrCat(plain.Number(), "; best ", absl::StrJoin(chosen, ", "));
  }
  switch (aggregate) {
    case Check::SPEARMAN:
      return absl::StrFormat("%.3f (Spearman over %d trials)", value, trials);
    case Check::MIN:
    case Check::MAX:
      return trials == 1 ? absl::StrFormat("%.6g (1 trial)", value)
                         : absl::StrFormat("%.6g (%s of %d; range %.6g to %.6g)", value,
                                           AggregateName(aggregate), trials, min, max);
    default:
      if (trials == 1) return absl::StrFormat("%.6g (1 trial)", value);
      if (paired) {
        return absl::StrFormat(
            "%.6g +- %.2g (mean +- sd of %d seeds; 95%% t-interval %.3g to %.3g)", mean, stddev,
            trials, low, high);
      }
      return absl::StrFormat("%.6g +- %.2g (mean +- sd of %d)", mean, stddev, trials);
  }
}

double CheckOutcome::Judged() const {
  if (!paired) return value;
  switch (op) {
    case Threshold::GT:
    case Threshold::GE:
      return low;
    case Threshold::LT:
    case Threshold::LE:
      return high;
    default:
      return mean;
  }
}

absl::StatusOr<CheckOutcome> EvaluateCheck(const Check& check, const RunOutcomes& runs) {
  if (check.curve_size() > 0 && check.curve_where_size() > 0) {
    return absl::InvalidArgumentError(
        "curve_where: a curve is over quantities or over trials, "
        "not both");
  }
  if (check.curve_size() > 0 || check.curve_where_size() > 0) {  // each point judged alone
    CheckOutcome outcome;
    outcome.name = check.name();
    outcome.aggregate = check.aggregate();
    outcome.bar = check.reproduced().value();
    outcome.op = check.reproduced().op();
    int met = 0, not_met = 0;
    const bool over_trials = check.curve_where_size() > 0;
    const int n = over_trials ? check.curve_where_size() : check.curve_size();
    for (int k = 0; k < n; ++k) {
      Check point = check;
      point.clear_curve();
      point.clear_curve_where();
      if (over_trials) {
        point.add_where(check.curve_where(k));
        point.set_name(check.curve_where(k));
      } else {
        *point.mutable_value() = check.curve(k);
        point.set_name(QuantityName(check.curve(k)));
      }
      absl::StatusOr<CheckOutcome> one = EvaluateCheck(point, runs);
      if (!one.ok()) {
        return absl::Status(one.status().code(),
                            absl::StrCat(over_trials ? "curve_where[" : "curve[", k,
                                         "]: ", one.status().message()));
      }
      if (!one->evaluated()) {
        outcome.error = one->error;
        return outcome;
      }
      outcome.rule = one->rule;
      outcome.commits.insert(one->commits.begin(), one->commits.end());
      outcome.specs.insert(one->specs.begin(), one->specs.end());
      outcome.trials = std::max(outcome.trials, one->trials);
      met += one->level == Level::kReproduced || one->level == Level::kPartly;
      not_met += one->level == Level::kNot;
      outcome.points.push_back(std::move(*one));
    }
    // A curve claims every point: a point against the bar with none for it contradicts the
    // claim (the others' noise does not rescue it); points met beside noise do not show it.
    const bool all_reproduced =
        std::all_of(outcome.points.begin(), outcome.points.end(),
                    [](const CheckOutcome& p) { return p.level == Level::kReproduced; });
    const Level all_met = all_reproduced ? Level::kReproduced : Level::kPartly;
    outcome.level = met == n                   ? all_met
                    : (met > 0 && not_met > 0) ? Level::kMixed
                    : not_met > 0              ? Level::kNot
                                               : Level::kNoise;  // met and noise, or all noise
    absl::StrAppend(&outcome.rule, " at each point");
    return outcome;
  }
  CheckOutcome outcome;
  outcome.name = check.name();
  outcome.aggregate = check.aggregate();
  outcome.bar = check.reproduced().value();
  outcome.op = check.reproduced().op();
  outcome.paired =
      (check.has_minus() || check.has_over_paired()) && check.aggregate() == Check::MEAN;
  // A paired effect's bar is judged by its interval: a margin in sds does not apply.
  const auto rule = [&](Threshold threshold) {
    if (outcome.paired) threshold.clear_margin_sd();
    return SourcedRuleText(threshold, check.aggregate());
  };
  outcome.rule = absl::StrCat(outcome.paired ? "its 95% interval " : "", rule(check.reproduced()));
  if (check.has_partly()) absl::StrAppend(&outcome.rule, "; partly: ", rule(check.partly()));
  auto find = [&](const std::string& name,
                  const std::string& field) -> absl::StatusOr<const RunOutcome*> {
    auto it = runs.find(name);
    if (it == runs.end()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": no run named '", name, "'"));
    }
    return &it->second;
  };
  ASSIGN_OR_RETURN(const RunOutcome* run, find(check.run(), "run"));
  const bool paired = check.has_minus() || check.has_over_paired();
  const Baseline& base_spec = check.has_minus() ? check.minus() : check.over_paired();
  const std::string base_field = check.has_minus() ? "minus" : "over_paired";
  const RunOutcome* baseline = nullptr;
  if (paired) {
    ASSIGN_OR_RETURN(baseline, find(base_spec.run().empty() ? check.run() : base_spec.run(),
                                    base_field + ".run"));
  }
  for (const RunOutcome* used : {run, baseline}) {
    if (used == nullptr) continue;
    outcome.specs.insert(absl::StrCat(used->name, ":", used->spec_hash));
    if (!used->status.ok()) {
      outcome.error = absl::StrCat("run ", used->name, " did not run: ", used->status.message());
      return outcome;
    }
  }
  ASSIGN_OR_RETURN(const std::vector<size_t> selected, Select(*run, check.where(), "where"));
  std::vector<size_t> baseline_trials;
  if (baseline != nullptr) {
    ASSIGN_OR_RETURN(baseline_trials, Select(*baseline, base_spec.where(), base_field + ".where"));
  }
  auto failed = [&](const RunOutcome& of, size_t i) {
    return absl::StrCat("trial ", of.trials[i].id, " (", TrialLabel(of.trials[i]), ") of run ",
                        of.name, " failed: ", i < of.errors.size() ? of.errors[i] : "");
  };
  std::vector<double> values, versus, scores;  // scores: what best_over compares
  std::vector<size_t> trial_of;                // the trial each value came from
  for (size_t i : selected) {
    if (!run->results[i].has_value()) {
      outcome.error = failed(*run, i);
      return outcome;
    }
    outcome.commits.insert(run->results[i]->code.ShortCommit());
    ASSIGN_OR_RETURN(double value, check.along_training()
                                       ? CorrelationAlongTraining(check, *run, i)
                                       : ValueOf(check.value(), *run, i, "value"));
    switch (check.relative_case()) {
      case Check::kOver: {
        ASSIGN_OR_RETURN(const double over, ValueOf(check.over(), *run, i, "over"));
        value /= over;
        break;
      }
      case Check::kLess: {
        ASSIGN_OR_RETURN(const double less, ValueOf(check.less(), *run, i, "less"));
        value -= less;
        break;
      }
      case Check::kMinus:
      case Check::kOverPaired: {
        const std::string* seed = Label(run->trials[i], "seed");
        std::vector<size_t> pair;
        for (size_t b : baseline_trials) {
          if (*Label(baseline->trials[b], "seed") == *seed) pair.push_back(b);
        }
        if (base_spec.has_matched_by()) {
          for (size_t b : pair) {
            if (!baseline->results[b].has_value()) {
              outcome.error = failed(*baseline, b);
              return outcome;
            }
            outcome.commits.insert(baseline->results[b]->code.ShortCommit());
          }
          ASSIGN_OR_RETURN(const std::optional<double> base,
                           Interpolated(check.value(), base_spec, *run, i, *baseline, pair,
                                        base_field, &outcome.error));
          if (!base.has_value()) return outcome;
          value = check.has_minus() ? value - *base : value / *base;
          break;
        }
        if (pair.size() != 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              base_field, ": ", pair.size(), " trials of run ", baseline->name, " have seed ",
              *seed, " (", TrialLabel(run->trials[i]), " needs exactly one to pair with)"));
        }
        if (!baseline->results[pair[0]].has_value()) {
          outcome.error = failed(*baseline, pair[0]);
          return outcome;
        }
        outcome.commits.insert(baseline->results[pair[0]]->code.ShortCommit());
        ASSIGN_OR_RETURN(const double base, ValueOf(check.value(), *baseline, pair[0], base_field));
        value = check.has_minus() ? value - base : value / base;
        break;
      }
      default:
        break;
    }
    values.push_back(value);
    trial_of.push_back(i);
    if (check.has_best_by()) {
      ASSIGN_OR_RETURN(const double score, ValueOf(check.best_by(), *run, i, "best_by"));
      scores.push_back(score);
    } else {
      scores.push_back(value);
    }
    if (check.aggregate() == Check::SPEARMAN) {
      if (!check.has_versus()) {
        return absl::InvalidArgumentError("versus: SPEARMAN needs the other variable");
      }
      ASSIGN_OR_RETURN(const double x, ValueOf(check.versus(), *run, i, "versus"));
      versus.push_back(x);
    }
  }
  if (!check.best_over().empty()) {
    RETURN_IF_ERROR(KeepBest(check, *run, scores, &trial_of, &values, &versus, &outcome.chosen));
  }
  outcome.trials = static_cast<int>(values.size());
  const MeanAndSpread summary = Summarize(values);
  outcome.mean = summary.mean;
  outcome.stddev = summary.stddev;
  outcome.min = *std::min_element(values.begin(), values.end());
  outcome.max = *std::max_element(values.begin(), values.end());
  switch (check.aggregate()) {
    case Check::MIN: outcome.value = outcome.min; break;
    case Check::MAX: outcome.value = outcome.max; break;
    case Check::SPEARMAN: outcome.value = SpearmanCorrelation(versus, values); break;
    default: outcome.value = outcome.mean; break;
  }
  if (outcome.paired) {
    if (outcome.trials < 2) {
      outcome.low = -std::numeric_limits<double>::infinity();
      outcome.high = std::numeric_limits<double>::infinity();
      outcome.level = Level::kNoise;  // one seed: no interval
      return outcome;
    }
    const double half = TQuantile975(outcome.trials - 1) * outcome.stddev /
                        std::sqrt(static_cast<double>(outcome.trials));
    outcome.low = outcome.mean - half;
    outcome.high = outcome.mean + half;
    outcome.level = PairedLevel(check, outcome.low, outcome.high);
    return outcome;
  }
  if (Passes(check.reproduced(), outcome, check.aggregate())) {
    outcome.level = Level::kReproduced;
  } else if (check.has_partly() && Passes(check.partly(), outcome, check.aggregate())) {
    outcome.level = Level::kPartly;
  }
  return outcome;
}

}  // namespace attnlab
