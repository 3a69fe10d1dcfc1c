#include "plugins/metrics/pap_agreement/pap_reference.h"

#include <cmath>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(PapReferenceTest, OneIterationWithoutShrinkageIsSoftmaxAttention) {
  // A threshold past every entry leaves S = 0, so K2 = K and L = softmax(scale K K^T) V.
  Eigen::MatrixXd k(2, 1), v(2, 1);
  k << 1, 2;
  v << 3, 5;
  const PapReference pap = DirectPap(k, v, 1, 1e6, 1, false, 0.5);
  // Row 0: scores 0.5 * (1, 2) -> weights (1, e^0.5) / (1 + e^0.5).
  const double e = std::exp(0.5);
  EXPECT_NEAR(pap.attention(0, 0), 1 / (1 + e), 1e-15);
  EXPECT_NEAR(pap.output(0, 0), (3 + 5 * e) / (1 + e), 1e-14);
  // Row 1: scores 0.5 * (2, 4) -> weights (1, e) / (1 + e).
  EXPECT_NEAR(pap.attention(1, 1), std::exp(1.0) / (1 + std::exp(1.0)), 1e-15);
}

TEST(PapReferenceTest, ShrinkageRemovesALargeEntry) {
  // mu = N C / (4 ||K||_1) = 2 / (4 * 11) = 1/22; lambda mu = 4/22 with lambda 4. Entry 10 of K
  // exceeds it: S keeps 10 - 4/22 of it, so K2's second row is 4/22 and the attention nearly
  // uniform, where plain softmax attention would put all weight on the large token.
  Eigen::MatrixXd k(2, 1), v(2, 1);
  k << 1, 10;
  v << 0, 1;
  const PapReference pap = DirectPap(k, v, 1, 4, 1, false, 1);
  EXPECT_LT(pap.attention(1, 1), 0.6);
  EXPECT_GT(pap.attention(1, 1), 0.4);
}

}  // namespace
}  // namespace attnlab
