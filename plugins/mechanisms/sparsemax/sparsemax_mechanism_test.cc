#include "plugins/mechanisms/sparsemax/sparsemax_mechanism.h"

#include "attention/mechanism_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

TEST(SparsemaxMechanismTest, ProjectionByHand) {
  SparsemaxMechanism<double> sparsemax;
  ASSERT_TRUE(sparsemax.Setup(Heads(1, 1)).ok());
  Mat z(3, 3);
  // Support {1, 2}: threshold (1 + 0.5 - 1) / 2 = 0.25. One score far ahead: all its mass.
  // Equal scores: uniform.
  z << 1, 0.5, -1,  //
      3, 0, 0,      //
      2, 2, 2;
  Mat no_state(3, 0);  // sparsemax keeps no row state
  sparsemax.Map(z, no_state);
  Mat expected(3, 3);
  expected << 0.75, 0.25, 0, 1, 0, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3;
  EXPECT_LT((z - expected).cwiseAbs().maxCoeff(), 1e-15) << z;
}

TEST(SparsemaxMechanismTest, OneCausalHeadByHand) {
  // x = (1, 2), scale 0.5: row 1 scores (1, 2): support {2} alone (1 + 2*1 <= 3).
  SparsemaxMechanism<double> sparsemax;
  ASSERT_TRUE(sparsemax.Setup(Heads(1, 1, /*causal=*/true)).ok());
  Mat x(2, 1), v(2, 1), a(2, 2), h(2, 1);
  x << 1, 2;
  v << 5, 7;
  sparsemax.Prepare(1);
  sparsemax.Forward(0, x, x, v, 0.5, a, h);
  EXPECT_EQ(a(0, 0), 1.0);
  EXPECT_EQ(a(0, 1), 0.0);
  EXPECT_EQ(a(1, 0), 0.0);
  EXPECT_EQ(h(1, 0), 7.0);
}

// The Jacobian on the support is I - 1 1^T / |S|: dL/dz against finite differences of the map.
TEST(SparsemaxMechanismTest, MapBackwardMatchesFiniteDifferences) {
  SparsemaxMechanism<double> sparsemax;
  ASSERT_TRUE(sparsemax.Setup(Heads(1, 1)).ok());
  Mat z(1, 6), g(1, 6);
  z << 0.3, 0.9, -0.2, 0.75, 0.1, 0.6;
  g << 1, -2, 0.5, 3, -1, 2;
  Mat a = z, no_state(1, 0);
  sparsemax.Map(a, no_state);
  Mat grad = g;
  sparsemax.MapBackward(a, no_state, grad);
  for (int j = 0; j < 6; ++j) {
    Mat plus = z, minus = z;
    plus(0, j) += 1e-7;
    minus(0, j) -= 1e-7;
    sparsemax.Map(plus, no_state);
    sparsemax.Map(minus, no_state);
    EXPECT_NEAR(grad(0, j), (plus - minus).cwiseProduct(g).sum() / 2e-7, 1e-7) << j;
  }
}

TEST(SparsemaxMechanismTest, GradientsInEveryLayer) {
  absl::Status status = CheckMechanismInEveryLayer("sparsemax", "");
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace attnlab
