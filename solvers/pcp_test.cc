#include "solvers/pcp.h"

#include <random>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(PcpTest, ShrinkAndSvtByHand) {
  Eigen::MatrixXd x(1, 4);
  x << 3, -0.5, -2, 1;
  Eigen::MatrixXd s = Shrink(x, 1);
  EXPECT_EQ(s(0, 0), 2);
  EXPECT_EQ(s(0, 1), 0);
  EXPECT_EQ(s(0, 2), -1);
  EXPECT_EQ(s(0, 3), 0);
  // diag(5, 2, 0.5) thresholded at 1 -> diag(4, 1, 0).
  Eigen::MatrixXd d = Eigen::Vector3d(5, 2, 0.5).asDiagonal();
  EXPECT_LT((SingularValueThreshold(d, 1) - Eigen::MatrixXd(Eigen::Vector3d(4, 1, 0).asDiagonal()))
                .norm(),
            1e-12);
}

// TARGETS 4c: a planted rank-2 matrix plus 5% gross sparse errors is recovered exactly.
TEST(PcpTest, RecoversAPlantedLowRankPlusSparseMatrix) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  const int n = 60;
  Eigen::MatrixXd a(n, 2), b(2, n);
  for (int i = 0; i < a.size(); ++i) a.data()[i] = normal(rng);
  for (int i = 0; i < b.size(); ++i) b.data()[i] = normal(rng);
  const Eigen::MatrixXd low_rank = a * b;
  Eigen::MatrixXd sparse = Eigen::MatrixXd::Zero(n, n);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (int i = 0; i < sparse.size(); ++i) {
    if (uniform(rng) < 0.05) sparse.data()[i] = uniform(rng) < 0.5 ? -10 : 10;
  }
  auto result = SolvePcp(low_rank + sparse);
  ASSERT_TRUE(result.ok()) << result.status();
  const double error_l = (result->low_rank - low_rank).norm() / low_rank.norm();
  const double error_s = (result->sparse - sparse).norm() / sparse.norm();
  EXPECT_LT(error_l, 1e-6);
  EXPECT_LT(error_s, 1e-6);
  std::printf("PCP: %d iterations, relative errors L %.2e, S %.2e\n", result->iterations, error_l,
              error_s);
}

TEST(PcpTest, BadInputIsAnError) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Ones(3, 3);
  m(1, 1) = std::nan("");
  EXPECT_FALSE(SolvePcp(m).ok());
  EXPECT_FALSE(SolvePcp(Eigen::MatrixXd()).ok());
  PcpOptions few;
  few.max_iterations = 1;
  EXPECT_FALSE(SolvePcp(Eigen::MatrixXd::Random(10, 10), few).ok());
}

}  // namespace
}  // namespace attnlab
