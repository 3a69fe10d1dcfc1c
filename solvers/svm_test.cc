#include <random>
#include <vector>

#include "Eigen/Dense"
#include "gtest/gtest.h"
#include "solvers/att_svm.h"
#include "solvers/min_norm_qp.h"
#include "solvers/nnls.h"

namespace attnlab {
namespace {

TEST(NnlsTest, ClosedForm) {
  Eigen::MatrixXd e = Eigen::MatrixXd::Identity(2, 2);
  Eigen::VectorXd f(2);
  f << 1, -1;
  auto x = SolveNnls(e, f);
  ASSERT_TRUE(x.ok());
  EXPECT_NEAR((*x)[0], 1, 1e-15);
  EXPECT_EQ((*x)[1], 0);
}

TEST(MinNormQpTest, OneConstraintIsAProjection) {
  Eigen::MatrixXd a(1, 3);
  a << 1, 2, 2;
  auto s = SolveMinNormQp(a, Eigen::VectorXd::Ones(1));
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR((s->x - a.row(0).transpose() / 9).norm(), 0, 1e-14);
  EXPECT_NEAR(s->multipliers[0], 1.0 / 9, 1e-14);
  EXPECT_LT(s->kkt.Max(), 1e-12);
}

TEST(MinNormQpTest, NonPositiveMarginsGiveZero) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Random(4, 3);
  auto s = SolveMinNormQp(a, Eigen::VectorXd::Zero(4));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->x.norm(), 0);
}

TEST(MinNormQpTest, InfeasibleIsDetected) {
  Eigen::MatrixXd a(2, 2);
  a << 1, 0, -1, 0;  // x1 >= 1 and -x1 >= 1
  auto s = SolveMinNormQp(a, Eigen::VectorXd::Ones(2));
  EXPECT_TRUE(absl::IsFailedPrecondition(s.status())) << s.status();
}

// Brute force over active sets: the optimum is the feasible point x = A_S^T mu, A_S x = b_S,
// mu >= 0 with the smallest norm.
Eigen::VectorXd BruteForce(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  const int m = a.rows();
  double best = INFINITY;
  Eigen::VectorXd best_x;
  for (int mask = 0; mask < (1 << m); ++mask) {
    std::vector<int> rows;
    for (int i = 0; i < m; ++i) {
      if (mask & (1 << i)) rows.push_back(i);
    }
    Eigen::VectorXd x = Eigen::VectorXd::Zero(a.cols());
    if (!rows.empty()) {
      Eigen::MatrixXd as(rows.size(), a.cols());
      Eigen::VectorXd bs(rows.size());
      for (size_t k = 0; k < rows.size(); ++k) {
        as.row(k) = a.row(rows[k]);
        bs[k] = b[rows[k]];
      }
      Eigen::MatrixXd gram = as * as.transpose();
      if (std::abs(gram.determinant()) < 1e-12) continue;
      Eigen::VectorXd mu = gram.ldlt().solve(bs);
      if ((mu.array() < -1e-12).any()) continue;
      x = as.transpose() * mu;
    }
    if (((a * x - b).array() < -1e-9).any()) continue;
    if (x.norm() < best) {
      best = x.norm();
      best_x = x;
    }
  }
  return best_x;
}

TEST(MinNormQpTest, MatchesBruteForceOnRandomProblems) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 50; ++trial) {
    Eigen::MatrixXd a(7, 3);
    for (int i = 0; i < a.size(); ++i) a.data()[i] = normal(rng);
    Eigen::VectorXd b(7);
    for (int i = 0; i < 7; ++i) b[i] = (i % 3 == 0) ? 0.0 : 1.0;
    // Make it feasible: constraints a_i . z >= b_i for a known z after flipping rows.
    Eigen::Vector3d z(1, 2, -1);
    for (int i = 0; i < 7; ++i) {
      if (a.row(i).dot(z) < 0) a.row(i) *= -1;
      a.row(i) *= (b[i] + 0.5) / a.row(i).dot(z);
    }
    auto s = SolveMinNormQp(a, b);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_LT((s->x - BruteForce(a, b)).norm(), 1e-9) << "trial " << trial;
    EXPECT_LT(s->kkt.Max(), 1e-10) << "trial " << trial;
  }
}

TEST(AttSvmTest, PaperSetup1aByHand) {
  // TARGETS 1a: W = diag(1, 1, 0), token 0 selected. The constraint from token 2,
  // (x0 - x2)^T W p = (-0.1, 1, 0) . p >= 1, is the only active one: p_mm = (-0.1, 1, 0) / 1.01.
  std::vector<Eigen::MatrixXd> tokens(1, Eigen::MatrixXd(3, 3));
  tokens[0] << -0.1, 1, 1, 1, 0, 0.9, 0, 0, 0.9;
  const Eigen::MatrixXd w = Eigen::Vector3d(1, 1, 0).asDiagonal();
  auto s = SolveAttSvm(tokens, w, {0}, Eigen::VectorXd::Ones(1));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_LT((s->x - Eigen::Vector3d(-0.1, 1, 0) / 1.01).norm(), 1e-12);
  EXPECT_LT(s->kkt.Max(), 1e-8);
  EXPECT_NEAR(s->multipliers[0], 0, 1e-12);
}

TEST(AttSvmTest, RelaxedMarginsLoosenConstraints) {
  // TARGETS 1d non-tight: X_i = [(0,0), x_i], W = I; p_mm = argmin s.t. x_i . p >= 1 for all i,
  // the relaxed one needs >= 0 for sequence 3.
  std::vector<Eigen::MatrixXd> tokens(3, Eigen::MatrixXd::Zero(2, 2));
  tokens[0].row(1) << 1, 1;
  tokens[1].row(1) << 1, -1;
  tokens[2].row(1) << 0.5, 1.5;
  const Eigen::MatrixXd w = Eigen::MatrixXd::Identity(2, 2);
  auto relaxed = SolveAttSvm(tokens, w, {1, 1, 1}, Eigen::Vector3d(1, 1, 0));
  ASSERT_TRUE(relaxed.ok());
  EXPECT_LT((relaxed->x - Eigen::Vector2d(1, 0)).norm(), 1e-12);
  auto full = SolveAttSvm(tokens, w, {1, 1, 1}, Eigen::Vector3d(1, 1, 1));
  ASSERT_TRUE(full.ok());
  EXPECT_GT((full->x - Eigen::Vector2d(1, 0)).norm(), 0.1);
  EXPECT_LT(full->kkt.Max(), 1e-8);
}

TEST(AttSvmTest, IdenticalTokensAreInfeasible) {
  std::vector<Eigen::MatrixXd> tokens(1, Eigen::MatrixXd::Ones(2, 2));
  auto s = SolveAttSvm(tokens, Eigen::MatrixXd::Identity(2, 2), {0}, Eigen::VectorXd::Ones(1));
  EXPECT_TRUE(absl::IsFailedPrecondition(s.status()));
  EXPECT_NE(s.status().message().find("ATT-SVM infeasible"), std::string::npos);
}

TEST(WSvmTest, OneConstraintByHand) {
  // x_s = (1, 0), x_t = (0, 0), z = (1, 1): the constraint W_00 + W_01 >= 1, whose min-norm
  // solution splits it evenly.
  std::vector<Eigen::MatrixXd> tokens(1, Eigen::MatrixXd::Zero(2, 2));
  tokens[0].row(0) << 1, 0;
  const Eigen::MatrixXd queries = Eigen::RowVector2d(1, 1);
  auto s = SolveWSvm(tokens, queries, {0});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_LT((s->x - Eigen::Vector4d(0.5, 0.5, 0, 0)).norm(), 1e-12);
}

// With one query z for every sequence, W_mm = p_mm z^T / ||z||^2, p_mm the ATT-SVM with W = I:
// Wz must meet p's constraints, and ||W||_F >= ||W z|| / ||z||.
TEST(WSvmTest, ASharedQueryGivesTheAttSvmDirection) {
  std::vector<Eigen::MatrixXd> tokens;
  std::vector<int> selected;  // the tokens a direction p0 selects: feasible
  const Eigen::Vector3d p0(1, -0.5, 2);
  for (int i = 0; i < 4; ++i) {
    tokens.push_back(Eigen::MatrixXd::Random(5, 3));
    Eigen::Index best;
    (tokens.back() * p0).maxCoeff(&best);
    selected.push_back(static_cast<int>(best));
  }
  const Eigen::RowVector3d z(0.3, -1.2, 0.7);
  auto w = SolveWSvm(tokens, z.replicate(4, 1), selected);
  auto p = SolveAttSvm(tokens, Eigen::MatrixXd::Identity(3, 3), selected, Eigen::VectorXd::Ones(4));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(p.ok()) << p.status();
  const Eigen::MatrixXd expected = p->x * z / z.squaredNorm();
  const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> w_mm(w->x.data());
  EXPECT_LT((w_mm - expected).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT(w->kkt.Max(), 1e-8);
}

TEST(HardMarginSvmTest, ClosedForms) {
  Eigen::MatrixXd points(3, 2);
  points << 1, 1, 1, -1, 0.5, 1;  // TARGETS 1d: v_mm = (0, 1), all three on the margin
  auto s = SolveHardMarginSvm(points, Eigen::Vector3d(1, -1, 1));
  ASSERT_TRUE(s.ok());
  EXPECT_LT((s->x - Eigen::Vector2d(0, 1)).norm(), 1e-12);
  EXPECT_LT(s->kkt.Max(), 1e-8);
  points.row(0) << -1, 0;
  points.row(1) << 1, 0;
  EXPECT_TRUE(
      absl::IsFailedPrecondition(SolveHardMarginSvm(points, Eigen::Vector3d(1, 1, 1)).status()));
}

}  // namespace
}  // namespace attnlab
