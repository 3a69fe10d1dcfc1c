#include "attention/analysis/metrics.h"

#include <cmath>

#include "Eigen/LU"

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

TEST(EigenSpectrumTest, ClosedForms) {
  Eigen::MatrixXd diag = Eigen::Vector3d(1, 2, 3).asDiagonal();
  Spectrum s = EigenSpectrum(diag);
  EXPECT_NEAR(s.mean, 2, 1e-12);
  EXPECT_NEAR(s.variance, 2.0 / 3, 1e-12);
  EXPECT_NEAR(s.spread, 1, 1e-12);
  // A rotation-scaling block has eigenvalues a +- ib.
  Eigen::MatrixXd rotation(2, 2);
  rotation << 0.5, -2, 2, 0.5;
  s = EigenSpectrum(rotation);
  EXPECT_NEAR(s.mean, 0.5, 1e-12);
  EXPECT_NEAR(s.variance, 4, 1e-12);
  EXPECT_NEAR(s.spread, 2, 1e-12);
  // Similar matrices have the same spectrum.
  Eigen::MatrixXd p = Eigen::MatrixXd::Random(3, 3) + 3 * Eigen::MatrixXd::Identity(3, 3);
  s = EigenSpectrum(p * diag * p.inverse());
  EXPECT_NEAR(s.variance, 2.0 / 3, 1e-9);
}

}  // namespace
}  // namespace attnlab
