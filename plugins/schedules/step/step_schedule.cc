#include "plugins/schedules/step/step_schedule.h"

#include "attention/base/field_error.h"

namespace attnlab {

absl::StatusOr<std::unique_ptr<StepSchedule>> StepSchedule::Create(
    const plugins::StepScheduleConfig& config) {
  if (config.at_step_size() == 0) return FieldError("at_step", "list at least one step");
  if (!(config.factor() > 0)) return FieldError("factor", "must be > 0");
  for (int64_t s : config.at_step()) {
    if (s < 0) return FieldError("at_step", "steps must be >= 0");
  }
  return std::unique_ptr<StepSchedule>(new StepSchedule(config));
}

double StepSchedule::Factor(int64_t step) const {
  double factor = 1.0;
  for (int64_t s : config_.at_step()) {
    if (step >= s) factor *= config_.factor();
  }
  return factor;
}

ATTNLAB_REGISTER_SCHEDULE("step", plugins::StepScheduleConfig, StepSchedule,
                          "the rate times factor at each listed step (step annealing)",
                          {"at_step: [2, 5] factor: 0.5"});

}  // namespace attnlab
