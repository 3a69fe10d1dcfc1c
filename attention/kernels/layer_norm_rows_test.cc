// LayerNormRow and its backward against the formulas written with Eigen, over row lengths that
// exercise whole packets and the last partial one, and by hand.
#include "attention/kernels/layer_norm_rows.h"

#include <cmath>

#include "attention/tensor.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T>
void CheckLengths(double tolerance) {
  for (int n : {1, 3, 8, 16, 17, 33, 64, 70}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    using Row = Eigen::Array<T, 1, Eigen::Dynamic>;
    const Row x = Row::Random(n) * T(3) + T(1), gamma = Row::Random(n), beta = Row::Random(n);
    const Row dy = Row::Random(n), residual = Row::Random(n);
    const T eps = T(1e-5);
    const T want_mean = x.mean();
    const T want_inv_std = T(1) / std::sqrt((x - want_mean).square().mean() + eps);
    const Row xhat = (x - want_mean) * want_inv_std;
    Row out(n);
    T mean, inv_std;
    LayerNormRow(x.data(), n, eps, gamma.data(), beta.data(), out.data(), &mean, &inv_std);
    EXPECT_NEAR(mean, want_mean, tolerance);
    EXPECT_NEAR(inv_std, want_inv_std, tolerance * want_inv_std);
    EXPECT_LE((out - (xhat * gamma + beta)).abs().maxCoeff(), tolerance * 10);

    const Row dn = dy * gamma;
    const Row want_dx = want_inv_std * (dn - dn.mean() - xhat * (dn * xhat).mean());
    Row gamma_sum = Row::Constant(n, T(0.5)), beta_sum = Row::Constant(n, T(-0.25)), dx(n);
    LayerNormRowBackward(x.data(), dy.data(), n, mean, inv_std, gamma.data(), residual.data(),
                         gamma_sum.data(), beta_sum.data(), dx.data());
    EXPECT_LE((gamma_sum - (T(0.5) + dy * xhat)).abs().maxCoeff(), tolerance * 10);
    EXPECT_LE((beta_sum - (T(-0.25) + dy)).abs().maxCoeff(), tolerance * 10);
    EXPECT_LE((dx - (want_dx + residual)).abs().maxCoeff(), tolerance * 10);
    // Without a residual, and without dx (only the parameter sums).
    LayerNormRowBackward(x.data(), dy.data(), n, mean, inv_std, gamma.data(),
                         static_cast<const T*>(nullptr), gamma_sum.data(), beta_sum.data(),
                         dx.data());
    EXPECT_LE((dx - want_dx).abs().maxCoeff(), tolerance * 10);
    EXPECT_LE((gamma_sum - (T(0.5) + 2 * dy * xhat)).abs().maxCoeff(), tolerance * 10);
    LayerNormRowBackward(x.data(), dy.data(), n, mean, inv_std, gamma.data(),
                         static_cast<const T*>(nullptr), gamma_sum.data(), beta_sum.data(),
                         static_cast<T*>(nullptr));
    EXPECT_LE((beta_sum - (T(-0.25) + 3 * dy)).abs().maxCoeff(), tolerance * 10);
  }
}

TEST(LayerNormRowsTest, MatchEigenInDouble) { CheckLengths<double>(1e-13); }
TEST(LayerNormRowsTest, MatchEigenInFloat) { CheckLengths<float>(1e-5); }

TEST(LayerNormRowsTest, ByHand) {
  // x = (1, 3): mean 2, variance 1 (eps 0), xhat = (-1, 1); gamma (2, 1), beta (0, 5).
  const double x[] = {1, 3}, gamma[] = {2, 1}, beta[] = {0, 5};
  double out[2], mean, inv_std;
  LayerNormRow(x, 2, 0.0, gamma, beta, out, &mean, &inv_std);
  EXPECT_EQ(mean, 2);
  EXPECT_EQ(inv_std, 1);
  EXPECT_EQ(out[0], -2);
  EXPECT_EQ(out[1], 6);
  // dy = (1, 0): dn = (2, 0), mean(dn) = 1, mean(dn xhat) = -1:
  // dx = (2 - 1 - (-1)(-1), 0 - 1 - (1)(-1)) = (0, 0); gamma_sum = dy xhat = (-1, 0).
  const double dy[] = {1, 0};
  double gamma_sum[] = {0, 0}, beta_sum[] = {0, 0}, dx[2];
  LayerNormRowBackward(x, dy, 2, mean, inv_std, gamma, static_cast<const double*>(nullptr),
                       gamma_sum, beta_sum, dx);
  EXPECT_EQ(dx[0], 0);
  EXPECT_EQ(dx[1], 0);
  EXPECT_EQ(gamma_sum[0], -1);
  EXPECT_EQ(gamma_sum[1], 0);
  EXPECT_EQ(beta_sum[0], 1);
  EXPECT_EQ(beta_sum[1], 0);
}

}  // namespace
}  // namespace attnlab
