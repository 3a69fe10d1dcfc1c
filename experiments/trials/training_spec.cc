#include "experiments/trials/training_spec.h"

#include <unistd.h>

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "attention/base/field_error.h"

namespace attnlab {

absl::Status ValidateTraining(const ExperimentSpec& spec, bool stream) {
  const TrainingSpec& training = spec.training();
  if (!spec.has_training()) return FieldError("training", "missing required field 'training'");
  if (!training.has_steps()) {
    return FieldError("training.steps", "missing required field 'steps' (0: evaluate only)");
  }
  if (training.steps() < 0) return FieldError("training.steps", "must be >= 0");
  if (training.batch_size() < 0) return FieldError("training.batch_size", "must be >= 0");
  if (stream && training.batch_size() == 0) {
    return FieldError("training.batch_size", "a streaming dataset needs batch_size > 0");
  }
  if (training.log_every() < 0) return FieldError("training.log_every", "must be >= 0");
  if (training.log_every() > 0 && training.steps() / training.log_every() >= kMaxLoggedSteps) {
    return FieldError("training.log_every",
                      absl::StrCat("every ", training.log_every(), " of training.steps = ",
                                   training.steps(), " logs ",
                                   training.steps() / training.log_every() + 1,
                                   " steps; at most ", kMaxLoggedSteps,
                                   " fit a trial's results (raise log_every)"));
  }
  if (training.log_step_size() >= kMaxLoggedSteps) {
    return FieldError("training.log_step", absl::StrCat(training.log_step_size(),
                                                        " steps; at most ", kMaxLoggedSteps));
  }
  if (training.micro_batch_size() < 0) {
    return FieldError("training.micro_batch_size", "must be >= 0 (0: the whole batch)");
  }
  if (training.has_checkpoint_seconds() &&
      !(training.checkpoint_seconds() >= 0 && std::isfinite(training.checkpoint_seconds()))) {
    return FieldError("training.checkpoint_seconds", "must be a finite number >= 0");
  }
  for (int64_t step : training.log_step()) {  // past the end: dropped (the runner notes it)
    if (step < 0) return FieldError("training.log_step", absl::StrCat("step ", step, " is < 0"));
  }
  std::set<std::string> names = {"loss"};
  for (int i = 0; i < spec.metric_size(); ++i) {
    const std::string& name = spec.metric(i).name();
    if (name.empty()) {
      return FieldError(absl::StrCat("metric[", i, "].name"), "missing required field 'name'");
    }
    if (name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-") !=
        std::string::npos) {
      return FieldError(absl::StrCat("metric[", i, "].name"),
                        "use letters, digits and _ . / - only (it is a CSV column)");
    }
    for (absl::string_view part : absl::StrSplit(name, '/')) {
      if (part.empty() || part == "." || part == "..") {
        return FieldError(absl::StrCat("metric[", i, "].name"),
                          "'/' separates non-empty parts other than . and .. (a metric's "
                          "arrays are stored under solutions/<name>/)");
      }
    }
    if (!names.insert(name).second) {
      return FieldError(absl::StrCat("metric[", i, "].name"),
                        absl::StrCat("metric name '", name, "' is used twice (\"loss\" is taken)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBatchFits(int batch, const Shape& inputs, int bytes_per_entry) {
  const double bytes = double(batch) * inputs.rows * inputs.cols * bytes_per_entry;
  const double memory = double(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (memory > 0 && bytes > memory) {
    return FieldError("training.batch_size",
                      absl::StrFormat("a batch of %d samples of %d x %d takes %.3g GiB for its "
                                      "inputs alone; this machine has %.3g GiB",
                                      batch, inputs.rows, inputs.cols, bytes / (1 << 30),
                                      memory / (1 << 30)));
  }
  return absl::OkStatus();
}

std::set<int64_t> LoggedSteps(const TrainingSpec& training) {
  std::set<int64_t> steps = {0, training.steps()};
  for (int64_t step : training.log_step()) {
    if (step <= training.steps()) steps.insert(step);
  }
  if (training.log_every() > 0) {  // k * log_every, never past steps (no overflow near 2^63)
    for (int64_t k = 0; k <= training.steps() / training.log_every(); ++k) {
      steps.insert(k * training.log_every());
    }
  }
  return steps;
}

std::set<int64_t> SnapshotSteps(const ExperimentSpec& spec) {
  if (spec.report().step().empty()) return {spec.training().steps()};
  return std::set<int64_t>(spec.report().step().begin(), spec.report().step().end());
}

}  // namespace attnlab
