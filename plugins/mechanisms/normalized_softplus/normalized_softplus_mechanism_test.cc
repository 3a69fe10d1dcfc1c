#include "plugins/mechanisms/normalized_softplus/normalized_softplus_mechanism.h"

#include <cmath>
#include <limits>

#include "attention/mechanism_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

double Softplus(double s) { return std::log1p(std::exp(s)); }

TEST(NormalizedSoftplusMechanismTest, OneHeadByHand) {
  // q = 1, keys (1, 2), values (1, 2), scale 1: weights log(1 + e), log(1 + e^2) over their sum.
  NormalizedSoftplusMechanism<double> mechanism;
  ASSERT_TRUE(mechanism.Setup(Heads(1, 1)).ok());
  Mat q(1, 1), k(2, 1), v(2, 1), a(1, 2), h(1, 1);
  q << 1;
  k << 1, 2;
  v << 1, 2;
  mechanism.Prepare(1);
  mechanism.Forward(0, q, k, v, 1.0, a, h);
  const double s1 = Softplus(1), s2 = Softplus(2);
  EXPECT_NEAR(a(0, 0), s1 / (s1 + s2), 1e-15);
  EXPECT_NEAR(a(0, 1), s2 / (s1 + s2), 1e-15);
  EXPECT_NEAR(h(0, 0), (s1 + 2 * s2) / (s1 + s2), 1e-15);
}

TEST(NormalizedSoftplusMechanismTest, CausalMasksTheFutureAndLargeScoresDoNotOverflow) {
  NormalizedSoftplusMechanism<double> mechanism;
  ASSERT_TRUE(mechanism.Setup(Heads(1, 1, /*causal=*/true)).ok());
  Mat x(2, 1), v(2, 1), a(2, 2), h(2, 1);
  x << 30, 40;  // scores 900, 1200, 1600: e^s overflows, softplus(s) = s
  v << 1, 2;
  mechanism.Prepare(1);
  mechanism.Forward(0, x, x, v, 1.0, a, h);
  EXPECT_EQ(a(0, 0), 1.0);
  EXPECT_EQ(a(0, 1), 0.0);
  EXPECT_NEAR(a(1, 0), 1200.0 / 2800, 1e-15);
  EXPECT_NEAR(h(1, 0), (1200.0 + 2 * 1600) / 2800, 1e-15);
}

// The Jacobian depends on each row's sum, which the weights lose: rows 0 and 1 have the same
// weights (softplus is near-linear far from 0, so s and 2s normalize alike) and different
// gradients. MapBackward, given the row state Map kept, matches finite differences of Map.
TEST(NormalizedSoftplusMechanismTest, MapBackwardUsesTheRowStateAndMatchesFiniteDifferences) {
  NormalizedSoftplusMechanism<double> mechanism;
  Mat z(3, 4), g(3, 4);
  z << 20, 30, 40, 50,  //
      40, 60, 80, 100,  //
      0.3, -1.2, 0.8, -std::numeric_limits<double>::infinity();
  g << 1, -2, 0.5, 3,  //
      1, -2, 0.5, 3,   //
      2, 1, -1, 4;
  Mat a = z, state(3, 1);
  mechanism.Map(a, state);
  EXPECT_LT((a.row(0) - a.row(1)).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_NEAR(state(1, 0), 2 * state(0, 0), 1e-6);
  Mat grad = g;
  mechanism.MapBackward(a, state, grad);
  EXPECT_NEAR(grad(0, 0), 2 * grad(1, 0), 1e-8);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      Mat plus = z.row(i), minus = z.row(i), unused(1, 1);
      plus(0, j) += 1e-6;
      minus(0, j) -= 1e-6;
      mechanism.Map(plus, unused);
      mechanism.Map(minus, unused);
      EXPECT_NEAR(grad(i, j), (plus - minus).cwiseProduct(g.row(i)).sum() / 2e-6, 1e-8)
          << i << ", " << j;
    }
  }
  EXPECT_EQ(grad(2, 3), 0.0);  // the masked key
}

TEST(NormalizedSoftplusMechanismTest, GradientsInEveryLayer) {
  absl::Status status = CheckMechanismInEveryLayer("normalized_softplus", "");
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace attnlab
