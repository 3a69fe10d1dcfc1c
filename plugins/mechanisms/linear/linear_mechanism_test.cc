#include "plugins/mechanisms/linear/linear_mechanism.h"

#include <cmath>

#include "attention/mechanism_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

TEST(LinearMechanismTest, OneHeadByHand) {
  // q = 0: phi = 1; keys (0, 1): phi (1, 2); weights (1/3, 2/3) whatever the scale.
  LinearMechanism<double> linear;
  ASSERT_TRUE(linear.Setup(Heads(1, 1)).ok());
  Mat q(1, 1), k(2, 1), v(2, 1), a(1, 2), h(1, 1);
  q << 0;
  k << 0, 1;
  v << 3, 6;
  linear.Prepare(1);
  linear.Forward(0, q, k, v, 0.3, a, h);
  EXPECT_NEAR(a(0, 0), 1.0 / 3, 1e-16);
  EXPECT_NEAR(a(0, 1), 2.0 / 3, 1e-16);
  EXPECT_NEAR(h(0, 0), 5.0, 1e-15);
}

TEST(LinearMechanismTest, CausalByHand) {
  // x = (-1, 1): phi = (e^-1, 2). Query 1 sees both: weights (2 e^-1, 4) / (2 e^-1 + 4).
  LinearMechanism<double> linear;
  ASSERT_TRUE(linear.Setup(Heads(1, 1, /*causal=*/true)).ok());
  Mat x(2, 1), v(2, 1), a(2, 2), h(2, 1);
  x << -1, 1;
  v << 1, 2;
  linear.Prepare(1);
  linear.Forward(0, x, x, v, 1.0, a, h);
  const double w0 = 2 * std::exp(-1.0);
  EXPECT_NEAR(h(0, 0), 1.0, 1e-15);
  EXPECT_EQ(a(0, 1), 0.0);
  EXPECT_NEAR(a(1, 0), w0 / (w0 + 4), 1e-15);
  EXPECT_NEAR(h(1, 0), (w0 * 1 + 4 * 2) / (w0 + 4), 1e-15);
}

// The O(T) outputs equal the weights the layer shows times V.
TEST(LinearMechanismTest, OutputsAreTheShownWeightsTimesValues) {
  for (bool causal : {false, true}) {
    LinearMechanism<double> linear;
    ASSERT_TRUE(linear.Setup(Heads(4, 3, causal)).ok());
    const Mat q = Mat::Random(9, 4), k = Mat::Random(9, 4), v = Mat::Random(9, 3);
    Mat a(9, 9), h(9, 3);
    linear.Prepare(1);
    linear.Forward(0, q, k, v, 1.0, a, h);
    EXPECT_LT((a * v - h).cwiseAbs().maxCoeff(), 1e-14) << causal;
    EXPECT_LT((a.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-14) << causal;
  }
}

TEST(LinearMechanismTest, GradientsInEveryLayer) {
  absl::Status status = CheckMechanismInEveryLayer("linear", "");
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace attnlab
