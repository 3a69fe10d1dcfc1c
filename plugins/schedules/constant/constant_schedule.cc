#include "plugins/schedules/constant/constant_schedule.h"

namespace attnlab {

ATTNLAB_REGISTER_SCHEDULE("constant", plugins::ConstantScheduleConfig, ConstantSchedule,
                          "the base rate at every step", {});

}  // namespace attnlab
