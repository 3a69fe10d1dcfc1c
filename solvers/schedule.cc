#include "solvers/schedule.h"

#include <algorithm>
#include <cmath>

#include "attention/base/field_error.h"

namespace attnlab {

absl::Status ValidateSchedule(const ScheduleSpec& schedule) {
  if (schedule.warmup_steps() < 0) return FieldError("warmup_steps", "must be >= 0");
  switch (schedule.kind_case()) {
    case ScheduleSpec::kStep:
      if (schedule.step().at_step_size() == 0) {
        return FieldError("step.at_step", "list at least one step");
      }
      if (!(schedule.step().factor() > 0)) return FieldError("step.factor", "must be > 0");
      for (int64_t s : schedule.step().at_step()) {
        if (s < 0) return FieldError("step.at_step", "steps must be >= 0");
      }
      break;
    case ScheduleSpec::kCosine:
      if (schedule.cosine().total_steps() <= 0) {
        return FieldError("cosine.total_steps", "must be > 0");
      }
      if (schedule.cosine().min_factor() < 0 || schedule.cosine().min_factor() > 1) {
        return FieldError("cosine.min_factor", "must be in [0, 1]");
      }
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

double ScheduleFactor(const ScheduleSpec& schedule, int64_t step) {
  double factor = 1.0;
  switch (schedule.kind_case()) {
    case ScheduleSpec::kStep:
      for (int64_t s : schedule.step().at_step()) {
        if (step >= s) factor *= schedule.step().factor();
      }
      break;
    case ScheduleSpec::kCosine: {
      const CosineSchedule& c = schedule.cosine();
      const double progress =
          std::min(1.0, static_cast<double>(step) / static_cast<double>(c.total_steps()));
      factor = c.min_factor() + (1 - c.min_factor()) * 0.5 * (1 + std::cos(M_PI * progress));
      break;
    }
    default:
      break;
  }
  if (step < schedule.warmup_steps()) {
    factor *= static_cast<double>(step + 1) / static_cast<double>(schedule.warmup_steps());
  }
  return factor;
}

}  // namespace attnlab
