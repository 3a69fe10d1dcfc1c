// LayerNormRows and its backward against the formulas written with Eigen, over row lengths that
// exercise whole packets and the last partial one, in a group of rows and alone, and by hand.
#include "attention/kernels/layer_norm_rows.h"

#include <cmath>

#include "attention/tensor.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T>
void CheckLengths(double tolerance) {
  // 7 rows: a group of four and three single rows; rows 3 values further apart than they are long.
  constexpr int kRows = 7;
  for (int n : {1, 3, 8, 16, 17, 33, 64, 70}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    using Rows = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Row = Eigen::Array<T, 1, Eigen::Dynamic>;
    const int ld = n + 3;
    const Rows x = Rows::Random(kRows, ld) * T(3) + T(1), dy = Rows::Random(kRows, ld),
               residual = Rows::Random(kRows, ld);
    const Row gamma = Row::Random(n), beta = Row::Random(n);
    const T eps = T(1e-5);
    Rows out = Rows::Zero(kRows, ld), dx = Rows::Zero(kRows, ld);
    T mean[kRows], inv_std[kRows];
    LayerNormRows(kRows, n, x.data(), ld, eps, gamma.data(), beta.data(), out.data(), ld, mean,
                  inv_std);
    Row gamma_sum = Row::Constant(n, T(0.5)), beta_sum = Row::Constant(n, T(-0.25));
    LayerNormRowsBackward(kRows, n, x.data(), ld, dy.data(), ld, mean, inv_std, gamma.data(),
                          residual.data(), ld, gamma_sum.data(), beta_sum.data(), dx.data(), ld);
    Row want_gamma_sum = Row::Constant(n, T(0.5)), want_beta_sum = Row::Constant(n, T(-0.25));
    for (int r = 0; r < kRows; ++r) {
      SCOPED_TRACE(testing::Message() << "row " << r);
      const Row xr = x.row(r).head(n), dyr = dy.row(r).head(n);
      const T want_mean = xr.mean();
      const T want_inv_std = T(1) / std::sqrt((xr - want_mean).square().mean() + eps);
      const Row xhat = (xr - want_mean) * want_inv_std;
      EXPECT_NEAR(mean[r], want_mean, tolerance);
      EXPECT_NEAR(inv_std[r], want_inv_std, tolerance * want_inv_std);
      EXPECT_LE((out.row(r).head(n) - (xhat * gamma + beta)).abs().maxCoeff(), tolerance * 10);
      EXPECT_TRUE((out.row(r).tail(3) == 0).all()) << "wrote past the row";
      const Row dn = dyr * gamma;
      const Row want_dx = want_inv_std * (dn - dn.mean() - xhat * (dn * xhat).mean());
      EXPECT_LE((dx.row(r).head(n) - (want_dx + residual.row(r).head(n))).abs().maxCoeff(),
                tolerance * 10);
      EXPECT_TRUE((dx.row(r).tail(3) == 0).all()) << "wrote past the row";
      want_gamma_sum += dyr * xhat;
      want_beta_sum += dyr;
    }
    EXPECT_LE((gamma_sum - want_gamma_sum).abs().maxCoeff(), tolerance * 10 * kRows);
    EXPECT_LE((beta_sum - want_beta_sum).abs().maxCoeff(), tolerance * 10 * kRows);

    // Without dx, the parameter sums are the same.
    Row gamma_no_dx = Row::Constant(n, T(0.5)), beta_no_dx = Row::Constant(n, T(-0.25));
    LayerNormRowsBackward(kRows, n, x.data(), ld, dy.data(), ld, mean, inv_std, gamma.data(),
                          static_cast<const T*>(nullptr), 0, gamma_no_dx.data(), beta_no_dx.data(),
                          static_cast<T*>(nullptr), 0);
    EXPECT_TRUE((gamma_no_dx == gamma_sum).all());
    EXPECT_TRUE((beta_no_dx == beta_sum).all());
  }
}

TEST(LayerNormRowsTest, MatchEigenInDouble) { CheckLengths<double>(1e-13); }
TEST(LayerNormRowsTest, MatchEigenInFloat) { CheckLengths<float>(1e-5); }

TEST(LayerNormRowsTest, ByHand) {
  // x = (1, 3): mean 2, variance 1 (eps 0), xhat = (-1, 1); gamma (2, 1), beta (0, 5).
  const double x[] = {1, 3}, gamma[] = {2, 1}, beta[] = {0, 5};
  double out[2], mean, inv_std;
  LayerNormRows(1, 2, x, 2, 0.0, gamma, beta, out, 2, &mean, &inv_std);
  EXPECT_EQ(mean, 2);
  EXPECT_EQ(inv_std, 1);
  EXPECT_EQ(out[0], -2);
  EXPECT_EQ(out[1], 6);
  // dy = (1, 0): dn = (2, 0), mean(dn) = 1, mean(dn xhat) = -1:
  // dx = (2 - 1 - (-1)(-1), 0 - 1 - (1)(-1)) = (0, 0); gamma_sum = dy xhat = (-1, 0).
  const double dy[] = {1, 0};
  double gamma_sum[] = {0, 0}, beta_sum[] = {0, 0}, dx[2];
  LayerNormRowsBackward(1, 2, x, 2, dy, 2, &mean, &inv_std, gamma,
                        static_cast<const double*>(nullptr), 0, gamma_sum, beta_sum, dx, 2);
  EXPECT_EQ(dx[0], 0);
  EXPECT_EQ(dx[1], 0);
  EXPECT_EQ(gamma_sum[0], -1);
  EXPECT_EQ(gamma_sum[1], 0);
  EXPECT_EQ(beta_sum[0], 1);
  EXPECT_EQ(beta_sum[1], 0);
}

}  // namespace
}  // namespace attnlab
