// Learning-rate schedules: data in the spec (ScheduleSpec), evaluated per step.
#ifndef ATTNLAB_SOLVERS_SCHEDULE_H_
#define ATTNLAB_SOLVERS_SCHEDULE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "solvers/optimizer.pb.h"

namespace attnlab {

// FieldErrors relative to the ScheduleSpec.
absl::Status ValidateSchedule(const ScheduleSpec& schedule);

// The multiplier of the base rate at 0-based step `step`.
double ScheduleFactor(const ScheduleSpec& schedule, int64_t step);

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_SCHEDULE_H_
