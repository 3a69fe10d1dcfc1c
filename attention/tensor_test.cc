#include "attention/tensor.h"

#include <cmath>
#include <limits>

#include "attention/kernels/softmax.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(TensorTest, SamplesAreRowBlocksOfTheFlatMatrix) {
  Tensor<double> t({2, 3, 4});
  for (int i = 0; i < 24; ++i) t.data()[i] = i;
  EXPECT_EQ(t.flat().rows(), 6);
  EXPECT_EQ(t.sample(1)(0, 0), 12.0);  // row-major: sample 1 starts at row 3
  EXPECT_EQ(t.sample(1)(2, 3), 23.0);
  t.sample(0)(1, 2) = -1;
  EXPECT_EQ(t.data()[6], -1.0);
}

TEST(TensorTest, ResizeToSameSizeKeepsTheAllocation) {
  Tensor<float> t({4, 2, 3});
  const float* before = t.data();
  t.Resize({2, 4, 3});
  EXPECT_EQ(t.data(), before);
  EXPECT_EQ(t.shape(), (Shape{2, 4, 3}));
}

TEST(SoftmaxTest, MatchesHandComputedValues) {
  Matrix<double> s(1, 3);
  s << 0, std::log(2.0), std::log(5.0);  // exp: 1, 2, 5
  Matrix<double> p(1, 3);
  SoftmaxRows(s, p);
  EXPECT_NEAR(p(0, 0), 1.0 / 8, 1e-15);
  EXPECT_NEAR(p(0, 1), 2.0 / 8, 1e-15);
  EXPECT_NEAR(p(0, 2), 5.0 / 8, 1e-15);
}

TEST(SoftmaxTest, StableForHugeScoresAndMasks) {
  Matrix<float> s(2, 3);
  const float inf = std::numeric_limits<float>::infinity();
  s << 1000, 1000, -inf, -1e30f, 0, -inf;
  SoftmaxRows(s, s);
  EXPECT_FLOAT_EQ(s(0, 0), 0.5f);
  EXPECT_FLOAT_EQ(s(0, 2), 0.0f);
  EXPECT_FLOAT_EQ(s(1, 1), 1.0f);
  EXPECT_TRUE(s.allFinite());
}

TEST(SoftmaxTest, BackwardMatchesJacobian) {
  Matrix<double> p(1, 3);
  p << 0.2, 0.3, 0.5;
  Matrix<double> g(1, 3);
  g << 1, -2, 0.5;
  Matrix<double> ds(1, 3);
  SoftmaxRowsBackward(p, g, ds);
  // Jacobian J_ij = p_i (delta_ij - p_j); ds = J^T g.
  for (int j = 0; j < 3; ++j) {
    double expected = 0;
    for (int i = 0; i < 3; ++i) expected += g(0, i) * p(0, i) * ((i == j) - p(0, j));
    EXPECT_NEAR(ds(0, j), expected, 1e-15);
  }
}

TEST(SoftmaxTest, BackwardKeepsPrecisionWhenSaturated) {
  // probs ~ (1, 4e-31, 2e-35): the dominant token's gradient is ~ -1e-30. The textbook
  // p_m (g_m - <g, p>) returns rounding noise of size 1e-16 (or 0) here.
  Matrix<double> s(1, 3);
  s << 0, -70, -80;
  Matrix<double> p(1, 3), ds(1, 3);
  SoftmaxRows(s, p);
  Matrix<double> g(1, 3);
  g << 1, 2, 3;
  SoftmaxRowsBackward(p, g, ds);
  // sum_j ds_j = 0, and for j != m the tiny entries are p_j (g_j - g_m) to full precision.
  const double expected = -(p(0, 1) * (g(0, 1) - g(0, 0)) + p(0, 2) * (g(0, 2) - g(0, 0)));
  EXPECT_NEAR(ds(0, 0) / expected, 1.0, 1e-12);
  EXPECT_NEAR(ds(0, 1) / (p(0, 1) * (g(0, 1) - g(0, 0))), 1.0, 1e-12);
}

TEST(SoftmaxTest, LogSumExpDoesNotOverflow) {
  Eigen::VectorXd x(3);
  x << 1000, 1000, 999;
  EXPECT_NEAR(LogSumExp(x), 1000 + std::log(2 + std::exp(-1.0)), 1e-12);
}

}  // namespace
}  // namespace attnlab
