#include "plugins/optimizers/adam/adam.h"

#include "attention/base/field_error.h"
#include "attention/optimizer_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(AdamTest, FirstStepIsLrTimesSign) {
  auto adam = AdamOptimizer<double>::Create(plugins::AdamConfig());
  ASSERT_TRUE(adam.ok());
  (*adam)->UseRate(0.01);
  Parameter<double> p = ParameterWith({1, 1}, {1e-3, -50});
  ExecContext ctx(1);
  (*adam)->Step({&p}, 0, ctx);
  EXPECT_NEAR(p.value(0, 0), 1 - 0.01, 1e-7);
  EXPECT_NEAR(p.value(1, 0), 1 + 0.01, 1e-7);
}

TEST(AdamTest, AdamWDecaysDecoupledAndAdamThroughTheGradient) {
  plugins::AdamConfig config;
  config.set_weight_decay(0.1);
  ExecContext ctx(1);
  auto adamw = AdamWOptimizer<double>::Create(config);
  ASSERT_TRUE(adamw.ok());
  (*adamw)->UseRate(0.5);
  Parameter<double> p = ParameterWith({2}, {0});
  (*adamw)->Step({&p}, 0, ctx);
  EXPECT_NEAR(p.value(0, 0), 2 * (1 - 0.05), 1e-12);  // zero gradient: only the decay acts
  // Adam adds 0.1 x = 0.2 to the zero gradient; its first step is then lr * sign = 0.5.
  auto adam = AdamOptimizer<double>::Create(config);
  ASSERT_TRUE(adam.ok());
  (*adam)->UseRate(0.5);
  p = ParameterWith({2}, {0});
  (*adam)->Step({&p}, 0, ctx);
  EXPECT_NEAR(p.value(0, 0), 1.5, 1e-7);
}

TEST(AdamTest, ConfigErrorsNameTheField) {
  plugins::AdamConfig config;
  config.set_beta2(1.0);
  EXPECT_EQ(ErrorField(AdamOptimizer<float>::Create(config).status()), "beta2");
  config.clear_beta2();
  config.set_eps(0);
  EXPECT_EQ(ErrorField(AdamWOptimizer<float>::Create(config).status()), "eps");
}

}  // namespace
}  // namespace attnlab
