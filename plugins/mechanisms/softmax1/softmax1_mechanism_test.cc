#include "plugins/mechanisms/softmax1/softmax1_mechanism.h"

#include <cmath>
#include <limits>

#include "attention/mechanism_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

TEST(Softmax1MechanismTest, OneHeadByHand) {
  // q = 1, keys (1, 2), values (1, 2), scale 1: weights e, e^2 over 1 + e + e^2.
  Softmax1Mechanism<double> softmax1;
  ASSERT_TRUE(softmax1.Setup(Heads(1, 1)).ok());
  Mat q(1, 1), k(2, 1), v(2, 1), a(1, 2), h(1, 1);
  q << 1;
  k << 1, 2;
  v << 1, 2;
  softmax1.Prepare(1);
  softmax1.Forward(0, q, k, v, 1.0, a, h);
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), total = 1 + e1 + e2;
  EXPECT_NEAR(a(0, 0), e1 / total, 1e-15);
  EXPECT_NEAR(a(0, 1), e2 / total, 1e-15);
  EXPECT_NEAR(h(0, 0), (e1 + 2 * e2) / total, 1e-15);
}

TEST(Softmax1MechanismTest, VeryNegativeScoresAttendToNothingAndLargeOnesDoNotOverflow) {
  Softmax1Mechanism<double> softmax1;
  ASSERT_TRUE(softmax1.Setup(Heads(1, 1, /*causal=*/true)).ok());
  Mat scores(2, 2);
  scores << -800, -std::numeric_limits<double>::infinity(),  //
      800, 800;
  Mat no_state(2, 0);  // softmax1 keeps no row state
  softmax1.Map(scores, no_state);
  EXPECT_EQ(scores(0, 0), 0.0);  // e^-800 / (1 + e^-800): the head is quiet
  EXPECT_EQ(scores(0, 1), 0.0);
  EXPECT_NEAR(scores(1, 0), 0.5, 1e-15);
  EXPECT_NEAR(scores(1, 1), 0.5, 1e-15);
}

TEST(Softmax1MechanismTest, GradientsInEveryLayer) {
  absl::Status status = CheckMechanismInEveryLayer("softmax1", "");
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace attnlab
