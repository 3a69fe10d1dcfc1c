#include "plugins/schedules/constant/constant_schedule.h"

#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(ConstantScheduleTest, OneAtEveryStepAndWarmsUpLikeNoSchedule) {
  ScheduleSpec spec;
  spec.set_plugin("constant");
  spec.set_warmup_steps(4);
  auto schedule = CreateSchedule(spec);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_NEAR((*schedule)->Factor(0), 0.25, 1e-15);
  EXPECT_NEAR((*schedule)->Factor(4), 1.0, 1e-15);
  EXPECT_EQ((*schedule)->Factor(1000000), 1.0);
  spec.clear_plugin();
  auto none = CreateSchedule(spec);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->Factor(1), (*schedule)->Factor(1));
}

}  // namespace
}  // namespace attnlab
