#include "attention/parameter.h"

#include "attention/base/field_error.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(InitParameterTest, ExplicitValuesAreRowMajor) {
  ParamSpec spec;
  for (double v : {1, 2, 3, 4, 5, 6}) spec.add_value(v);
  ExecContext ctx(1);
  Parameter<double> p;
  ASSERT_TRUE(InitParameter(spec, {}, 2, 3, "w", ctx, &p).ok());
  EXPECT_EQ(p.value(1, 0), 4.0);
  EXPECT_EQ(p.grad.rows(), 2);
  EXPECT_FALSE(p.frozen);
}

TEST(InitParameterTest, WrongCountNamesTheField) {
  ParamSpec spec;
  spec.add_value(1);
  ExecContext ctx(1);
  Parameter<double> p;
  absl::Status status = InitParameter(spec, {}, 3, 1, "p", ctx, &p);
  EXPECT_EQ(ErrorField(status), "p.value");
  EXPECT_EQ(status.message(), "p.value: has 1 entries, expected 3 (a 3 x 1 parameter, row-major)");
}

TEST(InitParameterTest, DefaultsAndIdentity) {
  ExecContext ctx(1);
  Parameter<float> p;
  ASSERT_TRUE(InitParameter(ParamSpec(), {ParamSpec::IDENTITY}, 3, 3, "w", ctx, &p).ok());
  EXPECT_TRUE(p.value.isIdentity());
  ParamSpec identity;
  identity.set_init(ParamSpec::IDENTITY);
  EXPECT_EQ(ErrorField(InitParameter(identity, {}, 2, 3, "w", ctx, &p)), "w.init");
  identity.set_scale(6);
  ASSERT_TRUE(InitParameter(identity, {}, 2, 2, "w", ctx, &p).ok());
  EXPECT_EQ(p.value, (Matrix<float>(2, 2) << 6, 0, 0, 6).finished());
  ParamSpec zeros;
  zeros.set_init(ParamSpec::ZEROS);
  zeros.set_scale(2);
  EXPECT_EQ(ErrorField(InitParameter(zeros, {}, 2, 2, "w", ctx, &p)), "w.scale");
}

TEST(InitParameterTest, NormalUsesTheContextRngReproducibly) {
  ParamSpec spec;
  spec.set_init(ParamSpec::NORMAL);
  spec.set_std(2.0);
  spec.set_frozen(true);
  Parameter<double> a, b;
  ExecContext ctx_a(42), ctx_b(42);
  ASSERT_TRUE(InitParameter(spec, {}, 50, 40, "k", ctx_a, &a).ok());
  ASSERT_TRUE(InitParameter(spec, {}, 50, 40, "k", ctx_b, &b).ok());
  EXPECT_EQ(a.value, b.value);
  EXPECT_TRUE(a.frozen);
  const double variance = a.value.squaredNorm() / a.value.size();
  EXPECT_NEAR(variance, 4.0, 0.4);
  spec.set_std(0);
  EXPECT_EQ(ErrorField(InitParameter(spec, {}, 1, 1, "k", ctx_a, &a)), "k.std");
}

}  // namespace
}  // namespace attnlab
