// The `cosine` schedule: cosine decay of the rate over total_steps.
#ifndef ATTNLAB_PLUGINS_SCHEDULES_COSINE_COSINE_SCHEDULE_H_
#define ATTNLAB_PLUGINS_SCHEDULES_COSINE_COSINE_SCHEDULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "plugins/schedules/cosine/cosine.pb.h"
#include "solvers/schedule.h"

namespace attnlab {

class CosineSchedule : public Schedule {
 public:
  static absl::StatusOr<std::unique_ptr<CosineSchedule>> Create(
      const plugins::CosineScheduleConfig& config);
  double Factor(int64_t step) const override;

 private:
  explicit CosineSchedule(plugins::CosineScheduleConfig config) : config_(std::move(config)) {}
  plugins::CosineScheduleConfig config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SCHEDULES_COSINE_COSINE_SCHEDULE_H_
