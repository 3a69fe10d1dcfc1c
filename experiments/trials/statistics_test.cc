#include "experiments/trials/statistics.h"

#include <cmath>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(StatisticsTest, MeanAndSampleStddev) {
  const MeanAndSpread s = Summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stddev, std::sqrt(32.0 / 7), 1e-15);
  EXPECT_EQ(Summarize({3}).stddev, 0.0);
}

TEST(StatisticsTest, SpearmanByHand) {
  // Monotone but not linear: rho = 1; reversed: -1.
  EXPECT_NEAR(SpearmanCorrelation({1, 2, 3, 4}, {1, 8, 27, 64}), 1, 1e-15);
  EXPECT_NEAR(SpearmanCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1, 1e-15);
  // Ranks x (1 2 3 4 5), y (2 1 4 3 5): 1 - 6 * sum d^2 / (n (n^2 - 1)) = 1 - 6*4/120 = 0.8.
  EXPECT_NEAR(SpearmanCorrelation({10, 20, 30, 40, 50}, {2, 1, 4, 3, 5}), 0.8, 1e-15);
  // Ties share their average rank: y ranks (1.5 1.5 3).
  EXPECT_NEAR(SpearmanCorrelation({1, 2, 3}, {5, 5, 9}), std::sqrt(0.75), 1e-15);
  EXPECT_TRUE(std::isnan(SpearmanCorrelation({1, 2}, {3, 3})));
}

}  // namespace
}  // namespace attnlab
