#include "plugins/optimizers/sgd/sgd.h"

#include "attention/base/field_error.h"
#include "attention/optimizer_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<Optimizer<double>> Sgd(double momentum, bool nesterov, double lr) {
  plugins::SgdConfig config;
  config.set_momentum(momentum);
  config.set_nesterov(nesterov);
  auto made = SgdOptimizer<double>::Create(config);
  EXPECT_TRUE(made.ok()) << made.status();
  (*made)->UseRate(lr);
  return std::move(*made);
}

TEST(SgdTest, GradientDescentByHand) {
  auto gd = GdOptimizer<double>::Create(plugins::GdConfig());
  ASSERT_TRUE(gd.ok());
  (*gd)->UseRate(0.5);
  Parameter<double> p = ParameterWith({1, 2}, {2, -2});
  ExecContext ctx(1);
  (*gd)->Step({&p}, 0, ctx);
  EXPECT_DOUBLE_EQ(p.value(0, 0), 0.0);
  EXPECT_DOUBLE_EQ(p.value(1, 0), 3.0);
  Parameter<double> frozen = ParameterWith({1}, {1});
  frozen.frozen = true;
  (*gd)->Step({&frozen}, 1, ctx);
  EXPECT_EQ(frozen.value(0, 0), 1.0);
}

TEST(SgdTest, MomentumAndNesterovByHand) {
  ExecContext ctx(1);
  auto heavy_ball = Sgd(0.5, false, 0.1);
  Parameter<double> p = ParameterWith({0}, {1});
  heavy_ball->Step({&p}, 0, ctx);  // v = 1, x = -0.1
  heavy_ball->Step({&p}, 1, ctx);  // v = 1.5, x = -0.25
  EXPECT_NEAR(p.value(0, 0), -0.25, 1e-15);
  auto nesterov = Sgd(0.5, true, 0.1);
  p = ParameterWith({0}, {1});
  nesterov->Step({&p}, 0, ctx);  // v = 1, x -= 0.1 * (1 + 0.5)
  EXPECT_NEAR(p.value(0, 0), -0.15, 1e-15);
}

TEST(SgdTest, ConfigErrorsNameTheField) {
  plugins::SgdConfig config;
  config.set_momentum(1);
  EXPECT_EQ(ErrorField(SgdOptimizer<double>::Create(config).status()), "momentum");
  config.set_momentum(0);
  config.set_nesterov(true);
  EXPECT_EQ(ErrorField(SgdOptimizer<double>::Create(config).status()), "nesterov");
}

}  // namespace
}  // namespace attnlab
