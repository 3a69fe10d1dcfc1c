#include "plugins/metrics/kpca_value_alignment/kpca_value_alignment.h"

#include <cmath>

#include "Eigen/Eigenvalues"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(KpcaValueAlignmentTest, ByHand) {
  // Two orthogonal unit keys at scale ln 3: G = [[3, 1], [1, 3]], eigenvectors (1, 1) / sqrt 2
  // (eigenvalue 4, the top) and (1, -1) / sqrt 2. One value column along the top: 1; along the
  // other: 0; along (1, 0): cos^2 45 degrees = 1/2.
  const Eigen::MatrixXd k = Eigen::MatrixXd::Identity(2, 2);
  const double scale = std::log(3.0);
  Eigen::MatrixXd v(2, 1);
  v << 2, 2;
  EXPECT_NEAR(KpcaValueAlignment(k, v, scale), 1, 1e-12);
  v << 1, -1;
  EXPECT_NEAR(KpcaValueAlignment(k, v, scale), 0, 1e-12);
  v << 1, 0;
  EXPECT_NEAR(KpcaValueAlignment(k, v, scale), 0.5, 1e-12);
  // Values spanning everything: every eigenvector inside.
  EXPECT_NEAR(KpcaValueAlignment(k, Eigen::MatrixXd::Random(2, 2), scale), 1, 1e-12);
}

}  // namespace
}  // namespace attnlab
