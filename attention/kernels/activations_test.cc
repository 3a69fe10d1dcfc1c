#include "attention/kernels/activations.h"

#include <cmath>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

// Values and derivatives against std::erf / std::exp / std::tanh in double, for a row long enough
// to run whole packets and a tail.
template <typename T>
void CheckAgainstDouble(Activation f, double tolerance) {
  ExecContext ctx(1, 2);
  Matrix<T> x(3, 37), out;
  for (int i = 0; i < x.size(); ++i) x.data()[i] = static_cast<T>(-4 + 8.0 * i / x.size());
  const Matrix<T> in = x;
  ActivateKeepingDerivative(ctx, f, &x, &out);
  for (int i = 0; i < in.size(); ++i) {
    const double v = in.data()[i];
    double value, derivative;
    switch (f) {
      case Activation::kGelu: {
        const double cdf = 0.5 * (1 + std::erf(v / std::sqrt(2.0)));
        value = v * cdf;
        derivative = cdf + v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
        break;
      }
      case Activation::kTanh:
        value = std::tanh(v);
        derivative = 1 - value * value;
        break;
      default:
        value = v > 0 ? v : 0;
        derivative = v > 0 ? 1 : 0;
    }
    EXPECT_NEAR(out.data()[i], value, tolerance) << v;
    EXPECT_NEAR(x.data()[i], derivative, tolerance) << v;
  }
}

TEST(ActivationsTest, ValuesAndDerivatives) {
  for (Activation f : {Activation::kRelu, Activation::kGelu, Activation::kTanh}) {
    CheckAgainstDouble<float>(f, 2e-6);
    CheckAgainstDouble<double>(f, 1e-14);
  }
}

}  // namespace
}  // namespace attnlab
