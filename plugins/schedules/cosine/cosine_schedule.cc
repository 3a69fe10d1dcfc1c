#include "plugins/schedules/cosine/cosine_schedule.h"

#include <algorithm>
#include <cmath>

#include "attention/base/field_error.h"

namespace attnlab {

absl::StatusOr<std::unique_ptr<CosineSchedule>> CosineSchedule::Create(
    const plugins::CosineScheduleConfig& config) {
  if (config.total_steps() <= 0) return FieldError("total_steps", "must be > 0");
  if (!(config.min_factor() >= 0 && config.min_factor() <= 1)) {
    return FieldError("min_factor", "must be in [0, 1]");
  }
  return std::unique_ptr<CosineSchedule>(new CosineSchedule(config));
}

double CosineSchedule::Factor(int64_t step) const {
  const double progress =
      std::min(1.0, static_cast<double>(step) / static_cast<double>(config_.total_steps()));
  return config_.min_factor() + (1 - config_.min_factor()) * 0.5 * (1 + std::cos(M_PI * progress));
}

ATTNLAB_REGISTER_SCHEDULE("cosine", plugins::CosineScheduleConfig, CosineSchedule,
                          "cosine decay from lr to min_factor lr over total_steps",
                          {"total_steps: 10 min_factor: 0.1"});

}  // namespace attnlab
