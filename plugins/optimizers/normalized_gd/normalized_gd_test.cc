#include "plugins/optimizers/normalized_gd/normalized_gd.h"

#include "attention/base/field_error.h"
#include "attention/optimizer_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<Optimizer<double>> Make(const plugins::NormalizedGdConfig& config, double lr) {
  auto made = NormalizedGdOptimizer<double>::Create(config);
  EXPECT_TRUE(made.ok()) << made.status();
  (*made)->UseRate(lr);
  return std::move(*made);
}

TEST(NormalizedGdTest, PerParameterAndGlobalByHand) {
  ExecContext ctx(1);
  plugins::NormalizedGdConfig config;
  Parameter<double> a = ParameterWith({0, 0}, {3, 4}), b = ParameterWith({0}, {-10});
  Make(config, 1)->Step({&a, &b}, 0, ctx);
  EXPECT_NEAR(a.value(0, 0), -0.6, 1e-12);
  EXPECT_NEAR(a.value(1, 0), -0.8, 1e-12);
  EXPECT_NEAR(b.value(0, 0), 1.0, 1e-12);  // each parameter moves by exactly lr

  config.set_normalization(plugins::NormalizedGdConfig::GLOBAL);
  a = ParameterWith({0, 0}, {3, 4});
  b = ParameterWith({0}, {0});
  Make(config, 1)->Step({&a, &b}, 0, ctx);
  EXPECT_NEAR(a.value(1, 0), -0.8, 1e-12);
  EXPECT_EQ(b.value(0, 0), 0.0);
}

// eps in the denominator: the step is lr ||g|| / (||g|| + eps), which shrinks once ||g|| is near
// eps (the authors' 1e-9).
TEST(NormalizedGdTest, EpsShrinksSmallGradientsSteps) {
  ExecContext ctx(1);
  plugins::NormalizedGdConfig config;
  config.set_eps(1e-9);
  Parameter<double> p = ParameterWith({0}, {1e-9});
  Make(config, 1)->Step({&p}, 0, ctx);
  EXPECT_NEAR(p.value(0, 0), -0.5, 1e-12);
  config.set_eps(-1);
  EXPECT_EQ(ErrorField(NormalizedGdOptimizer<double>::Create(config).status()), "eps");
}

}  // namespace
}  // namespace attnlab
