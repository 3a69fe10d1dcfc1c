// The `constant` schedule: factor 1 at every step.
#ifndef ATTNLAB_PLUGINS_SCHEDULES_CONSTANT_CONSTANT_SCHEDULE_H_
#define ATTNLAB_PLUGINS_SCHEDULES_CONSTANT_CONSTANT_SCHEDULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "plugins/schedules/constant/constant.pb.h"
#include "solvers/schedule.h"

namespace attnlab {

class ConstantSchedule : public Schedule {
 public:
  static absl::StatusOr<std::unique_ptr<ConstantSchedule>> Create(
      const plugins::ConstantScheduleConfig&) {
    return std::make_unique<ConstantSchedule>();
  }
  double Factor(int64_t) const override { return 1.0; }
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SCHEDULES_CONSTANT_CONSTANT_SCHEDULE_H_
