#include "plugins/schedules/step/step_schedule.h"

#include "attention/base/field_error.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(StepScheduleTest, ByHand) {
  plugins::StepScheduleConfig config;
  config.add_at_step(50000);
  config.add_at_step(70000);
  config.set_factor(1.0 / 3);
  auto schedule = StepSchedule::Create(config);
  ASSERT_TRUE(schedule.ok());
  EXPECT_EQ((*schedule)->Factor(49999), 1.0);
  EXPECT_NEAR((*schedule)->Factor(50000), 1.0 / 3, 1e-15);
  EXPECT_NEAR((*schedule)->Factor(70000), 1.0 / 9, 1e-15);
}

TEST(StepScheduleTest, ConfigErrorsNameTheField) {
  plugins::StepScheduleConfig config;
  config.set_factor(0.5);
  EXPECT_EQ(ErrorField(StepSchedule::Create(config).status()), "at_step");
  config.add_at_step(-1);
  EXPECT_EQ(ErrorField(StepSchedule::Create(config).status()), "at_step");
  config.set_at_step(0, 3);
  config.set_factor(0);
  EXPECT_EQ(ErrorField(StepSchedule::Create(config).status()), "factor");
  // Through the spec: the error names the config field.
  ScheduleSpec spec;
  spec.set_plugin("step");
  spec.mutable_config()->PackFrom(plugins::StepScheduleConfig());
  EXPECT_EQ(ErrorField(CreateSchedule(spec).status()), "config.at_step");
}

}  // namespace
}  // namespace attnlab
