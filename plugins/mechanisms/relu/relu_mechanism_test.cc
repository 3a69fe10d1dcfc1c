#include "plugins/mechanisms/relu/relu_mechanism.h"

#include "attention/mechanism_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

TEST(ReluMechanismTest, OneHeadByHand) {
  // q = 1, keys (1, -2, 3), scale 1: scores (1, -2, 3), three keys.
  ReluMechanism<double> relu;
  ASSERT_TRUE(relu.Setup(Heads(1, 1)).ok());
  Mat q(1, 1), k(3, 1), v(3, 1), a(1, 3), h(1, 1);
  q << 1;
  k << 1, -2, 3;
  v << 1, 2, 3;
  relu.Prepare(1);
  relu.Forward(0, q, k, v, 1.0, a, h);
  EXPECT_NEAR(a(0, 0), 1.0 / 3, 1e-16);
  EXPECT_EQ(a(0, 1), 0.0);
  EXPECT_NEAR(a(0, 2), 1.0, 1e-16);
  EXPECT_NEAR(h(0, 0), 1.0 / 3 + 3, 1e-15);
}

TEST(ReluMechanismTest, CausalDividesByTheKeysSeen) {
  ReluMechanism<double> relu;
  ASSERT_TRUE(relu.Setup(Heads(1, 1, /*causal=*/true)).ok());
  Mat x(2, 1), v(2, 1), a(2, 2), h(2, 1);
  x << 1, 2;
  v << 1, 2;
  relu.Prepare(1);
  relu.Forward(0, x, x, v, 0.5, a, h);
  EXPECT_EQ(a(0, 1), 0.0);
  EXPECT_NEAR(h(0, 0), 0.5, 1e-16);                      // 0.5 * 1 * 1 / 1
  EXPECT_NEAR(h(1, 0), (1.0 * 1 + 2.0 * 2) / 2, 1e-15);  // scores (1, 2), two keys
}

TEST(ReluMechanismTest, GradientsInEveryLayer) {
  absl::Status status = CheckMechanismInEveryLayer("relu", "");
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace attnlab
