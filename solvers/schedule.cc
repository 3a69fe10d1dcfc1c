#include "solvers/schedule.h"

#include "attention/base/field_error.h"

namespace attnlab {
namespace {

// `schedule` (null: constant) with a linear warm-up over its first `warmup_steps` steps.
class WarmedUp : public Schedule {
 public:
  WarmedUp(std::unique_ptr<Schedule> schedule, int64_t warmup_steps)
      : schedule_(std::move(schedule)), warmup_steps_(warmup_steps) {}
  double Factor(int64_t step) const override {
    double factor = schedule_ == nullptr ? 1.0 : schedule_->Factor(step);
    if (step < warmup_steps_) {
      factor *= static_cast<double>(step + 1) / static_cast<double>(warmup_steps_);
    }
    return factor;
  }

 private:
  std::unique_ptr<Schedule> schedule_;
  int64_t warmup_steps_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Schedule>> CreateSchedule(const ScheduleSpec& spec) {
  if (spec.warmup_steps() < 0) return FieldError("warmup_steps", "must be >= 0");
  std::unique_ptr<Schedule> schedule;
  if (!spec.plugin().empty()) {
    ASSIGN_OR_RETURN(schedule, ScheduleRegistry().CreateAt(spec.plugin(), spec.config()));
  } else if (!spec.config().type_url().empty()) {
    return FieldError("plugin", "a schedule config needs the schedule plugin's name");
  }
  return std::unique_ptr<Schedule>(new WarmedUp(std::move(schedule), spec.warmup_steps()));
}

}  // namespace attnlab
