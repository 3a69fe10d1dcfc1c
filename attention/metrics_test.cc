#include "attention/metrics.h"

#include <cmath>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(CorrelationTest, HandComputed) {
  Eigen::VectorXd a(2), b(2);
  a << 1, 0;
  b << 1, 1;
  EXPECT_NEAR(Correlation(a, b), 1 / std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(Correlation(a, -3 * a), -1.0, 1e-15);
  EXPECT_EQ(Correlation(a, Eigen::VectorXd::Zero(2)), 0.0);
}

TEST(AttentionMetricsTest, HandComputed) {
  // Two samples, one query each, three keys.
  Tensor<double> probs({2, 1, 3});
  probs.sample(0) << 1, 0, 0;
  probs.sample(1) << 0.5, 0.25, 0.25;
  EXPECT_NEAR(AttentionEntropy(probs), (0 + 1.5 * std::log(2.0)) / 2, 1e-15);
  EXPECT_NEAR(MaxSoftmax(probs), 0.75, 1e-15);
  EXPECT_NEAR(SelectedTokenProbability(probs, {0, 2}), (1 + 0.25) / 2, 1e-15);
}

TEST(AttentionMetricsTest, SelectionIsPerSampleAcrossHeads) {
  Tensor<float> probs({4, 1, 2});  // 2 samples x 2 heads
  probs.flat() << 1, 0, 0.5, 0.5, 0, 1, 0.25, 0.75;
  EXPECT_NEAR(SelectedTokenProbability(probs, {0, 1}, 2), (1 + 0.5 + 1 + 0.75) / 4, 1e-7);
}

}  // namespace
}  // namespace attnlab
