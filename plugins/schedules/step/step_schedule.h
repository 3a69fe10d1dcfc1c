// The `step` schedule: the rate times `factor` at each listed step.
#ifndef ATTNLAB_PLUGINS_SCHEDULES_STEP_STEP_SCHEDULE_H_
#define ATTNLAB_PLUGINS_SCHEDULES_STEP_STEP_SCHEDULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "plugins/schedules/step/step.pb.h"
#include "solvers/schedule.h"

namespace attnlab {

class StepSchedule : public Schedule {
 public:
  static absl::StatusOr<std::unique_ptr<StepSchedule>> Create(
      const plugins::StepScheduleConfig& config);
  double Factor(int64_t step) const override;

 private:
  explicit StepSchedule(plugins::StepScheduleConfig config) : config_(std::move(config)) {}
  plugins::StepScheduleConfig config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SCHEDULES_STEP_STEP_SCHEDULE_H_
