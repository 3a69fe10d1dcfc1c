#include "solvers/max_margin_reference.h"

#include "gtest/gtest.h"

namespace attnlab {
namespace {

// W = I, labels +1, token 0 selected in both sequences: x_1 = ((1, 0), (0, 1)),
// x_2 = ((2, 0), (0, -3)). The ATT-SVM's constraints are (1, -1) p >= 1 and (2, 3) p >= 1,
// both active at its solution: p = (0.8, -0.2). The SVM of the selected tokens (1, 0) and
// (2, 0) is v_mm = (1, 0), with only the first on its margin: the relaxation keeps sequence 1's
// constraint and asks (2, 3) p >= 0 of sequence 2, both active at p = (0.6, -0.4).
class MaxMarginReferenceTest : public ::testing::Test {
 protected:
  MaxMarginReferenceTest()
      : w_(Eigen::MatrixXd::Identity(2, 2)), labels_(Eigen::VectorXd::Ones(2)) {
    Eigen::MatrixXd a(2, 2), b(2, 2);
    a << 1, 0, 0, 1;
    b << 2, 0, 0, -3;
    tokens_ = {a, b};
  }

  MaxMarginReference Solve(MaxMarginKind kind) {
    auto reference = SolveMaxMarginReference(kind, tokens_, labels_, w_, {0, 0});
    EXPECT_TRUE(reference.ok()) << reference.status();
    return *reference;
  }

  std::vector<Eigen::MatrixXd> tokens_;
  Eigen::MatrixXd w_;
  Eigen::VectorXd labels_;
};

TEST_F(MaxMarginReferenceTest, AttSvmByHand) {
  const MaxMarginReference r = Solve(MaxMarginKind::kAttSvm);
  EXPECT_NEAR(r.p.x[0], 0.8, 1e-9);
  EXPECT_NEAR(r.p.x[1], -0.2, 1e-9);
  EXPECT_EQ(r.margins, Eigen::VectorXd::Ones(2));
  EXPECT_EQ(r.v_mm.x.size(), 0);  // not solved
}

TEST_F(MaxMarginReferenceTest, ValueSvmByHand) {
  const MaxMarginReference r = Solve(MaxMarginKind::kValueSvm);
  EXPECT_NEAR(r.v_mm.x[0], 1, 1e-9);
  EXPECT_NEAR(r.v_mm.x[1], 0, 1e-9);
  EXPECT_EQ(r.p.x.size(), 0);  // not solved
}

TEST_F(MaxMarginReferenceTest, RelaxedAttSvmDropsTheMarginOffV) {
  const MaxMarginReference r = Solve(MaxMarginKind::kRelaxedAttSvm);
  EXPECT_EQ(r.margins[0], 1.0);
  EXPECT_EQ(r.margins[1], 0.0);  // v_mm^T (2, 0) = 2: not a support vector
  EXPECT_NEAR(r.p.x[0], 0.6, 1e-9);
  EXPECT_NEAR(r.p.x[1], -0.4, 1e-9);
}

TEST_F(MaxMarginReferenceTest, InfeasibleSelectionIsAnError) {
  // Two equal tokens: (x_s - x_t)^T W p = 0 can never reach 1.
  tokens_[1] << 1, 1, 1, 1;
  EXPECT_FALSE(SolveMaxMarginReference(MaxMarginKind::kAttSvm, tokens_, labels_, w_, {0, 0}).ok());
}

}  // namespace
}  // namespace attnlab
