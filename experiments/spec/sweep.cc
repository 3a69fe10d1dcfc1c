#include "experiments/spec/sweep.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "experiments/spec/field_path.h"
#include "attention/base/files.h"
#include "experiments/spec/spec_loader.h"
#include "google/protobuf/text_format.h"

namespace attnlab {
namespace {

std::string AxisName(const SweepSpec::Axis& axis) {
  return axis.name().empty() ? axis.field() : axis.name();
}

int AxisSize(const SweepSpec::Axis& axis) {
  return axis.point_size() > 0 ? axis.point_size() : axis.value_size();
}

}  // namespace

// What decides the trial's result: the spec and its data files, each by its canonical path
// (the same relative path seen from another folder is another file) and its content.
std::string TrialId(const ExperimentSpec& resolved, const std::vector<DataFile>& data) {
  std::string text = PrintSpec(ResultDeterminingSpec(resolved));
  for (const DataFile& file : data) absl::StrAppend(&text, "data ", file.path, " ", file.hash, "\n");
  return absl::StrFormat("%012x", Fnv1a(text) & 0xffffffffffffull);
}

namespace {

// One path names the other or something inside it ("optimizer" and "optimizer.lr"; "layer" and
// "layer[0]" overlap too).
bool Overlap(const std::vector<PathComponent>& a, const std::vector<PathComponent>& b) {
  for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    if (a[k].name != b[k].name) return false;
    if (a[k].index >= 0 && b[k].index >= 0 && a[k].index != b[k].index) return false;
  }
  return true;
}

// The top-level fields a "." value sets, as one-component paths.
std::vector<std::vector<PathComponent>> TopLevelFields(absl::string_view value) {
  ExperimentSpec patch;
  SetFieldFromText(&patch, ".", value).IgnoreError();  // a bad value is SetFieldFromText's error
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  patch.GetReflection()->ListFields(patch, &fields);
  std::vector<std::vector<PathComponent>> paths;
  for (const auto* field : fields) paths.push_back({{field->name(), -1}});
  return paths;
}

}  // namespace

absl::Status CheckNotSwept(const ExperimentSpec& spec, absl::string_view path,
                           absl::string_view value) {
  if (path == ".") {  // each top-level field the value sets is an override of its own
    for (const auto& field : TopLevelFields(value)) {
      RETURN_IF_ERROR(CheckNotSwept(spec, field[0].name, ""));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<PathComponent>> set = ParseFieldPath(path);
  if (!set.ok() || (!set->empty() && (*set)[0].name == "sweep")) return absl::OkStatus();
  for (int a = 0; a < spec.sweep().axis_size(); ++a) {
    const SweepSpec::Axis& axis = spec.sweep().axis(a);
    std::vector<std::pair<std::string, std::string>> assignments;  // (field, value)
    for (const std::string& value : axis.value()) assignments.emplace_back(axis.field(), value);
    for (const auto& point : axis.point()) {
      for (const auto& one : point.set()) assignments.emplace_back(one.field(), one.value());
    }
    for (const auto& [field, value] : assignments) {
      std::vector<std::vector<PathComponent>> swept;
      if (field == ".") {
        swept = TopLevelFields(value);
      } else if (auto parsed = ParseFieldPath(field); parsed.ok()) {
        swept.push_back(*parsed);
      }
      for (const auto& one : swept) {
        if (!Overlap(*set, one)) continue;
        return absl::InvalidArgumentError(absl::StrCat(
            "the sweep's axis '", AxisName(axis), "' (sweep.axis[", a, "]) sets ",
            field == "." ? one[0].name : field,
            " in every trial and would replace this value; change the axis's values instead"));
      }
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> SweepColumns(const ExperimentSpec& spec) {
  std::vector<std::string> columns;
  for (const SweepSpec::Axis& axis : spec.sweep().axis()) columns.push_back(AxisName(axis));
  columns.push_back("seed");
  return columns;
}

std::string TrialLabel(const Trial& trial) {
  std::vector<std::string> parts;
  for (const auto& [column, value] : trial.labels) parts.push_back(column + "=" + value);
  return absl::StrJoin(parts, " ");
}

absl::StatusOr<std::vector<Trial>> ExpandSweep(const ExperimentSpec& spec) {
  const SweepSpec& sweep = spec.sweep();
  for (int a = 0; a < sweep.axis_size(); ++a) {
    const SweepSpec::Axis& axis = sweep.axis(a);
    const std::string path = absl::StrCat("sweep.axis[", a, "]");
    if (axis.point_size() > 0) {
      if (!axis.field().empty() || axis.value_size() > 0 || axis.label_size() > 0) {
        return FieldError(path + ".point", "give either points or field and values, not both");
      }
      if (axis.name().empty()) return FieldError(path + ".name", "an axis of points needs a name");
      for (int v = 0; v < axis.point_size(); ++v) {
        if (axis.point(v).label().empty()) {
          return FieldError(absl::StrCat(path, ".point[", v, "].label"),
                            "missing required field 'label'");
        }
      }
      continue;
    }
    if (axis.field().empty()) return FieldError(path + ".field", "missing required field 'field'");
    if (axis.value_size() == 0) return FieldError(path + ".value", "list at least one value");
    if (axis.label_size() != 0 && axis.label_size() != axis.value_size()) {
      return FieldError(path + ".label",
                        absl::StrCat("has ", axis.label_size(), " labels for ", axis.value_size(),
                                     " values"));
    }
  }
  std::vector<uint64_t> seeds(sweep.seed().begin(), sweep.seed().end());
  if (seeds.empty()) seeds.push_back(spec.training().seed());
  // The grid's size before building it: a few long axes multiply past any memory.
  uint64_t count = seeds.size();
  for (const SweepSpec::Axis& axis : sweep.axis()) {
    if (__builtin_mul_overflow(count, uint64_t(AxisSize(axis)), &count)) count = UINT64_MAX;
  }
  if (count > kMaxTrials) {
    return FieldError("sweep", absl::StrCat("the grid has ", count == UINT64_MAX ? "over 2^64" :
                                            absl::StrCat(count), " trials; at most ", kMaxTrials));
  }

  ExperimentSpec base = spec;
  base.clear_sweep();
  std::vector<Trial> trials;
  std::map<std::string, size_t> index_of_id;  // two equal trials would share one store entry
  std::vector<int> choice(sweep.axis_size(), 0);
  for (;;) {
    Trial point;
    point.spec = base;
    for (int a = 0; a < sweep.axis_size(); ++a) {
      const SweepSpec::Axis& axis = sweep.axis(a);
      const int v = choice[a];
      if (axis.point_size() > 0) {
        const SweepSpec::Axis::Point& axis_point = axis.point(v);
        for (int k = 0; k < axis_point.set_size(); ++k) {
          const auto& set = axis_point.set(k);
          absl::Status status = SetFieldFromText(&point.spec, set.field(), set.value());
          if (!status.ok()) {
            return FieldError(absl::StrCat("sweep.axis[", a, "].point[", v, "].set[", k, "]"),
                              status.message());
          }
        }
        point.labels.emplace_back(axis.name(), axis_point.label());
        continue;
      }
      absl::Status status = SetFieldFromText(&point.spec, axis.field(), axis.value(v));
      if (!status.ok()) {
        return FieldError(absl::StrCat("sweep.axis[", a, "].value[", v, "]"), status.message());
      }
      point.labels.emplace_back(AxisName(axis),
                                axis.label_size() ? axis.label(v) : axis.value(v));
    }
    for (uint64_t seed : seeds) {
      Trial trial = point;
      trial.spec.mutable_training()->set_seed(seed);
      trial.labels.emplace_back("seed", absl::StrCat(seed));
      trial.id = TrialId(trial.spec, {});
      if (auto [it, fresh] = index_of_id.emplace(trial.id, trials.size()); !fresh) {
        return FieldError("sweep", absl::StrCat("trials ", TrialLabel(trials[it->second]),
                                                " and ", TrialLabel(trial),
                                                " are the same spec: a value is repeated"));
      }
      trials.push_back(std::move(trial));
    }
    // Next grid point, last axis fastest.
    int a = sweep.axis_size() - 1;
    while (a >= 0 && ++choice[a] == AxisSize(sweep.axis(a))) choice[a--] = 0;
    if (a < 0) break;
  }
  return trials;
}

}  // namespace attnlab
