#include "attention/kernels/soft_threshold.h"

#include <vector>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

// 19 entries: two packets of doubles and a tail, one packet of floats and a tail.
const std::vector<double> kR = {1.5, -1.5, 0.2, -0.2, 0.5, -0.5, 0.7, -3.0, 0.0, 2.0,
                                -0.9, 0.6, -0.4, 9.0, -0.51, 0.49, 1.0, -1.0, 0.3};
constexpr double kThreshold = 0.5;

template <typename T>
class SoftThresholdTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SoftThresholdTest, Types);

// Forward against the definition by hand: r - t above t, r + t below -t, 0 between (the
// boundary +-t included).
TYPED_TEST(SoftThresholdTest, ShrinksTowardZero) {
  using T = TypeParam;
  const std::vector<T> r(kR.begin(), kR.end());
  std::vector<T> s(r.size(), T(7));
  SoftThreshold<T>(r.data(), r.size(), T(kThreshold), s.data());
  const std::vector<double> expected = {1.0, -1.0, 0, 0, 0, 0, 0.2, -2.5, 0, 1.5,
                                        -0.4, 0.1, 0, 8.5, -0.01, 0, 0.5, -0.5, 0};
  for (size_t i = 0; i < r.size(); ++i) EXPECT_NEAR(s[i], expected[i], 1e-6) << "r = " << r[i];
}

// Backward: dL/dr and dL/dthreshold of L = sum w shrink(r, t), against central differences, at
// entries away from the kinks |r| = t (the nearest, -0.51 and 0.49, are 100 h away).
TYPED_TEST(SoftThresholdTest, GradientMatchesFiniteDifferences) {
  using T = TypeParam;
  std::vector<double> smooth = kR;
  smooth[4] = 0.55;
  smooth[5] = -0.45;
  const size_t n = smooth.size();
  const std::vector<T> r(smooth.begin(), smooth.end());
  std::vector<T> w(n), dr(n, T(7));
  for (size_t i = 0; i < n; ++i) w[i] = T(0.3 + 0.1 * i) * (i % 3 == 0 ? -1 : 1);
  std::vector<T> s(n);
  SoftThreshold<T>(r.data(), n, T(kThreshold), s.data());
  const T dthreshold = SoftThresholdBackward<T>(s.data(), w.data(), n, dr.data());
  auto loss = [&](const std::vector<double>& x, double t) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      const double s = x[i] > t ? x[i] - t : x[i] < -t ? x[i] + t : 0;
      sum += double(w[i]) * s;
    }
    return sum;
  };
  const double h = 1e-4;
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> plus = smooth, minus = smooth;
    plus[i] += h;
    minus[i] -= h;
    EXPECT_NEAR(dr[i], (loss(plus, kThreshold) - loss(minus, kThreshold)) / (2 * h), 1e-5)
        << "r = " << smooth[i];
  }
  EXPECT_NEAR(dthreshold,
              (loss(smooth, kThreshold + h) - loss(smooth, kThreshold - h)) / (2 * h), 1e-4);
}

}  // namespace
}  // namespace attnlab
