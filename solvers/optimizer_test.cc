// CreateOptimizer: the plugin the spec names, with the spec's rate and schedule. The optimizers
// themselves are tested in their folders and by plugins/registry_test.
#include "solvers/optimizer.h"

#include "attention/base/field_error.h"
#include "gtest/gtest.h"
#include "plugins/optimizers/adam/adam.pb.h"
#include "plugins/schedules/step/step.pb.h"

namespace attnlab {
namespace {

OptimizerSpec Spec(const std::string& plugin, double lr) {
  OptimizerSpec spec;
  spec.set_plugin(plugin);
  spec.set_lr(lr);
  return spec;
}

TEST(OptimizerTest, RateTimesScheduleWithWarmup) {
  OptimizerSpec spec = Spec("gd", 0.5);
  spec.mutable_schedule()->set_plugin("step");
  spec.mutable_schedule()->set_warmup_steps(2);
  plugins::StepScheduleConfig step;
  step.add_at_step(3);
  step.set_factor(0.1);
  spec.mutable_schedule()->mutable_config()->PackFrom(step);
  auto optimizer = CreateOptimizer<double>(spec);
  ASSERT_TRUE(optimizer.ok()) << optimizer.status();
  EXPECT_NEAR((*optimizer)->LearningRate(0), 0.25, 1e-15);
  EXPECT_NEAR((*optimizer)->LearningRate(2), 0.5, 1e-15);
  EXPECT_NEAR((*optimizer)->LearningRate(3), 0.05, 1e-15);
  // gd's step with that rate.
  Parameter<double> p;
  p.value = Matrix<double>::Constant(1, 1, 1.0);
  p.grad = Matrix<double>::Constant(1, 1, 2.0);
  ExecContext ctx(1);
  (*optimizer)->Step({&p}, 0, ctx);
  EXPECT_DOUBLE_EQ(p.value(0, 0), 0.5);
}

TEST(OptimizerTest, ErrorsNameTheField) {
  OptimizerSpec spec = Spec("", 0.1);
  absl::Status missing = CreateOptimizer<double>(spec).status();
  EXPECT_EQ(ErrorField(missing), "plugin");
  EXPECT_NE(missing.message().find("adam"), absl::string_view::npos) << missing;
  spec = Spec("gd", 0);
  EXPECT_EQ(ErrorField(CreateOptimizer<double>(spec).status()), "lr");
  spec = Spec("gdd", 1);
  EXPECT_EQ(ErrorField(CreateOptimizer<double>(spec).status()), "plugin");
  spec = Spec("gd", 1);
  spec.mutable_schedule()->set_plugin("step");
  EXPECT_EQ(ErrorField(CreateOptimizer<float>(spec).status()), "schedule.config.at_step");
  spec.mutable_schedule()->set_plugin("cosin");
  EXPECT_EQ(ErrorField(CreateOptimizer<float>(spec).status()), "schedule.plugin");
  spec.clear_schedule();
  spec.mutable_schedule()->set_warmup_steps(-1);
  EXPECT_EQ(ErrorField(CreateOptimizer<float>(spec).status()), "schedule.warmup_steps");
  spec = Spec("adam", 1);
  plugins::AdamConfig adam;
  adam.set_beta2(1);
  spec.mutable_config()->PackFrom(adam);
  EXPECT_EQ(ErrorField(CreateOptimizer<float>(spec).status()), "config.beta2");
}

}  // namespace
}  // namespace attnlab
