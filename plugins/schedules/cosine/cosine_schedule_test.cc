#include "plugins/schedules/cosine/cosine_schedule.h"

#include "attention/base/field_error.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(CosineScheduleTest, ByHand) {
  plugins::CosineScheduleConfig config;
  config.set_total_steps(100);
  config.set_min_factor(0.1);
  auto cosine = CosineSchedule::Create(config);
  ASSERT_TRUE(cosine.ok());
  EXPECT_NEAR((*cosine)->Factor(0), 1.0, 1e-15);
  EXPECT_NEAR((*cosine)->Factor(50), 0.55, 1e-15);
  EXPECT_NEAR((*cosine)->Factor(100), 0.1, 1e-15);
  EXPECT_NEAR((*cosine)->Factor(150), 0.1, 1e-15);
}

TEST(CosineScheduleTest, ConfigErrorsNameTheField) {
  plugins::CosineScheduleConfig config;
  EXPECT_EQ(ErrorField(CosineSchedule::Create(config).status()), "total_steps");
  config.set_total_steps(10);
  config.set_min_factor(2);
  EXPECT_EQ(ErrorField(CosineSchedule::Create(config).status()), "min_factor");
}

}  // namespace
}  // namespace attnlab
