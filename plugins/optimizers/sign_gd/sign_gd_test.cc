#include "plugins/optimizers/sign_gd/sign_gd.h"

#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<Optimizer<double>> Make(double momentum, double lr) {
  plugins::SignGdConfig config;
  config.set_momentum(momentum);
  auto made = SignGd<double>::Create(config);
  EXPECT_TRUE(made.ok()) << made.status();
  (*made)->UseRate(lr);
  return std::unique_ptr<Optimizer<double>>(std::move(*made));
}

Parameter<double> Param(std::initializer_list<double> value, std::initializer_list<double> grad) {
  Parameter<double> p;
  p.name = "x";
  p.value = Matrix<double>(1, static_cast<Eigen::Index>(value.size()));
  p.grad = p.value;
  Eigen::Index i = 0;
  for (double v : value) p.value(0, i++) = v;
  i = 0;
  for (double g : grad) p.grad(0, i++) = g;
  return p;
}

TEST(SignGdTest, ByHand) {
  // Without momentum each entry moves by lr against its gradient's sign; a zero gradient stays.
  Parameter<double> x = Param({1, -2, 3}, {0.5, -3, 0});
  ExecContext ctx(1);
  Make(0, 0.1)->Step({&x}, 0, ctx);
  EXPECT_DOUBLE_EQ(x.value(0, 0), 0.9);
  EXPECT_DOUBLE_EQ(x.value(0, 1), -1.9);
  EXPECT_DOUBLE_EQ(x.value(0, 2), 3);
  // Momentum 0.5: m1 = g1 / 2 = (0.25, -1.5); g2 = (-1, 1): m2 = (0.125 - 0.5, -0.75 + 0.5)
  // = (-0.375, -0.25), so both entries move up.
  Parameter<double> y = Param({0, 0}, {0.5, -3});
  auto signum = Make(0.5, 0.1);
  signum->Step({&y}, 0, ctx);
  EXPECT_DOUBLE_EQ(y.value(0, 0), -0.1);
  EXPECT_DOUBLE_EQ(y.value(0, 1), 0.1);
  y.grad << -1, 1;
  signum->Step({&y}, 1, ctx);
  EXPECT_DOUBLE_EQ(y.value(0, 0), 0);
  EXPECT_DOUBLE_EQ(y.value(0, 1), 0.2);
}

TEST(SignGdTest, FrozenParametersStay) {
  Parameter<double> x = Param({1, 1}, {1, 1});
  x.frozen = true;
  ExecContext ctx(1);
  Make(0.9, 0.1)->Step({&x}, 0, ctx);
  EXPECT_EQ(x.value(0, 0), 1);
}

TEST(SignGdTest, ConfigErrorsNameTheField) {
  plugins::SignGdConfig config;
  config.set_momentum(1);
  EXPECT_EQ(SignGd<double>::Create(config).status().message(),
            "momentum: must be in [0, 1), got 1");
}

}  // namespace
}  // namespace attnlab
