#include "plugins/optimizers/projected_gd/projected_gd.h"

#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<Optimizer<double>> Make(double radius, bool normalized, double lr) {
  plugins::ProjectedGdConfig config;
  config.set_radius(radius);
  config.set_normalized(normalized);
  auto made = ProjectedGd<double>::Create(config);
  EXPECT_TRUE(made.ok()) << made.status();
  (*made)->UseRate(lr);
  return std::unique_ptr<Optimizer<double>>(std::move(*made));
}

Parameter<double> Param(double x0, double x1, double g0, double g1) {
  Parameter<double> p;
  p.name = "x";
  p.value = Matrix<double>(1, 2);
  p.grad = Matrix<double>(1, 2);
  p.value << x0, x1;
  p.grad << g0, g1;
  return p;
}

TEST(ProjectedGdTest, ByHand) {
  ExecContext ctx(1);
  // Inside the ball: a plain step, (1, 0) - 0.5 (0, -2) = (1, 1), norm sqrt 2 < 2.
  Parameter<double> inside = Param(1, 0, 0, -2);
  Make(2, false, 0.5)->Step({&inside}, 0, ctx);
  EXPECT_DOUBLE_EQ(inside.value(0, 0), 1);
  EXPECT_DOUBLE_EQ(inside.value(0, 1), 1);
  // Outside after the step: (3, 0) - 1 (0, -4) = (3, 4), norm 5, projected to radius 1:
  // (0.6, 0.8).
  Parameter<double> outside = Param(3, 0, 0, -4);
  Make(1, false, 1)->Step({&outside}, 0, ctx);
  EXPECT_DOUBLE_EQ(outside.value(0, 0), 0.6);
  EXPECT_DOUBLE_EQ(outside.value(0, 1), 0.8);
  // Normalized: the step is lr g / ||g||: (0, 0) - 0.5 (3, 4) / 5 = (-0.3, -0.4).
  Parameter<double> normalized = Param(0, 0, 3, 4);
  Make(10, true, 0.5)->Step({&normalized}, 0, ctx);
  EXPECT_DOUBLE_EQ(normalized.value(0, 0), -0.3);
  EXPECT_DOUBLE_EQ(normalized.value(0, 1), -0.4);
  // A zero gradient leaves a normalized step's parameter alone.
  Parameter<double> still = Param(1, 2, 0, 0);
  Make(10, true, 0.5)->Step({&still}, 0, ctx);
  EXPECT_DOUBLE_EQ(still.value(0, 1), 2);
}

TEST(ProjectedGdTest, FrozenParametersStay) {
  Parameter<double> x = Param(5, 5, 1, 1);
  x.frozen = true;
  ExecContext ctx(1);
  Make(1, false, 0.1)->Step({&x}, 0, ctx);
  EXPECT_EQ(x.value(0, 0), 5);
}

TEST(ProjectedGdTest, ConfigErrorsNameTheField) {
  plugins::ProjectedGdConfig config;
  config.set_radius(0);
  EXPECT_EQ(ProjectedGd<double>::Create(config).status().message(), "radius: must be > 0, got 0");
}

}  // namespace
}  // namespace attnlab
