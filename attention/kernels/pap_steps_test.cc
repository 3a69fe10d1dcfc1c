#include "attention/kernels/pap_steps.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T>
class PapStepsTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PapStepsTest, Types);

// Values of either sign, some inside the threshold, and exact zeros (as in S where the shrink
// cut R).
template <typename T>
std::vector<T> Random(int n, std::mt19937_64& rng, double zero_fraction = 0) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  std::vector<T> x(n);
  for (T& v : x) v = uniform(rng) < zero_fraction ? T(0) : static_cast<T>(normal(rng));
  return x;
}

// 5 rows of 19: full packets and a row end for both types; K with row stride 23 (a head's block
// of a wider matrix), the rest contiguous.
constexpr int kRows = 5, kCols = 19, kLdk = 23, kN = kRows * kCols;
constexpr double kMu = 0.8, kThreshold = 0.6;

template <typename T>
T Shrink(T r, T t) { return r > t ? r - t : r < -t ? r + t : T(0); }

// The first iteration (Y = 0, R = K) by hand: the shrink takes t off above t, adds it below -t,
// and gives exactly 0 in between, the boundary +-t included.
TYPED_TEST(PapStepsTest, FirstIterationByHand) {
  using T = TypeParam;
  const std::vector<T> k = {1.5, -1.5, 0.2, 0.6, -0.6, 0};
  std::vector<T> y(6, T(9)), s(6, T(9)), k2(6, T(9));
  PapForwardStep<T>(1, 6, k.data(), 6, nullptr, nullptr, nullptr, T(2), T(0.5), T(0.6),
                    y.data(), s.data(), k2.data());
  const std::vector<double> shrunk = {0.9, -0.9, 0, 0, 0, 0};
  const std::vector<double> kept = {0.6, -0.6, 0.2, 0.6, -0.6, 0};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(y[i], T(0));
    EXPECT_NEAR(s[i], shrunk[i], 1e-6) << i;
    EXPECT_NEAR(k2[i], kept[i], 1e-6) << i;
  }
  EXPECT_EQ(s[3], T(0));
  EXPECT_EQ(s[4], T(0));
}

// Against the formulas entry by entry, written as in the paper's iteration.
TYPED_TEST(PapStepsTest, ForwardStepMatchesTheIteration) {
  using T = TypeParam;
  std::mt19937_64 rng(1);
  const std::vector<T> k = Random<T>(kRows * kLdk, rng), l = Random<T>(kN, rng),
                       s_prev = Random<T>(kN, rng, 0.5), y_prev = Random<T>(kN, rng);
  const T mu = T(kMu), t = T(kThreshold);
  for (bool first : {true, false}) {
    std::vector<T> y(kN, T(9)), s(kN, T(9)), k2(kN, T(9));
    PapForwardStep<T>(kRows, kCols, k.data(), kLdk, first ? nullptr : l.data(),
                      first ? nullptr : s_prev.data(), first ? nullptr : y_prev.data(), mu, 1 / mu,
                      t, y.data(), s.data(), k2.data());
    int cut = 0;
    for (int i = 0; i < kN; ++i) {
      const double key = k[i / kCols * kLdk + i % kCols];
      const double dual = first ? 0.0 : y_prev[i] + kMu * (key - l[i] - s_prev[i]);
      const double r = first ? key : key - l[i] + dual / kMu;
      const double sparse = Shrink<double>(r, kThreshold);
      cut += sparse == 0;
      EXPECT_NEAR(y[i], dual, 1e-5) << i;
      EXPECT_NEAR(s[i], sparse, 1e-5) << i;
      EXPECT_NEAR(k2[i], key - sparse - dual / kMu, 1e-5) << i;
      if (sparse == 0) {
        EXPECT_EQ(s[i], T(0)) << i;  // exactly: the backward's mask
      }
    }
    EXPECT_GT(cut, 3);
    EXPECT_LT(cut, kN - 3);
  }
}

// The mechanism updates its dual in place (y = y_prev): the same bits as into another matrix.
TYPED_TEST(PapStepsTest, ForwardStepUpdatesTheDualInPlace) {
  using T = TypeParam;
  std::mt19937_64 rng(2);
  const std::vector<T> k = Random<T>(kRows * kLdk, rng), l = Random<T>(kN, rng),
                       s_prev = Random<T>(kN, rng, 0.5), y_prev = Random<T>(kN, rng);
  const T mu = T(kMu);
  std::vector<T> y(kN), s(kN), k2(kN), y_in_place = y_prev, s2(kN), k2_in_place(kN);
  PapForwardStep<T>(kRows, kCols, k.data(), kLdk, l.data(), s_prev.data(), y_prev.data(), mu,
                    1 / mu, T(kThreshold), y.data(), s.data(), k2.data());
  PapForwardStep<T>(kRows, kCols, k.data(), kLdk, l.data(), s_prev.data(), y_in_place.data(), mu,
                    1 / mu, T(kThreshold), y_in_place.data(), s2.data(), k2_in_place.data());
  EXPECT_EQ(y_in_place, y);
  EXPECT_EQ(s2, s);
  EXPECT_EQ(k2_in_place, k2);
}

// Against the adjoint formulas entry by entry, and the three sums for dL/dmu.
TYPED_TEST(PapStepsTest, BackwardStepMatchesTheAdjoints) {
  using T = TypeParam;
  std::mt19937_64 rng(2);
  const std::vector<T> k = Random<T>(kRows * kLdk, rng), l = Random<T>(kN, rng),
                       s = Random<T>(kN, rng, 0.4), y_prev = Random<T>(kN, rng),
                       dk2 = Random<T>(kN, rng), dy_in = Random<T>(kN, rng),
                       dk_in = Random<T>(kN, rng);
  const T mu = T(kMu);
  for (bool last : {true, false}) {
    std::vector<T> dy = dy_in, dk = dk_in, dl(kN, T(9));
    if (last) std::fill(dy.begin(), dy.end(), T(0));
    const PapMuSums<T> sums =
        PapBackwardStep<T>(kRows, kCols, k.data(), kLdk, last ? nullptr : l.data(), s.data(),
                           y_prev.data(), dk2.data(), mu, 1 / mu, dy.data(), dk.data(), dl.data());
    double sum_y = 0, sum_threshold = 0, sum_residual = 0;
    for (int i = 0; i < kN; ++i) {
      const double key = k[i / kCols * kLdk + i % kCols];
      const double d_dual = last ? 0.0 : dy_in[i];
      const double ds = -(kMu * d_dual + dk2[i]);
      const double dr = s[i] != 0 ? ds : 0.0;
      const double d_dual_prev = d_dual + (dr - dk2[i]) / kMu;
      EXPECT_NEAR(dk[i], dk_in[i] + kMu * d_dual + dk2[i] + dr, 1e-5) << i;
      EXPECT_NEAR(dy[i], d_dual_prev, 1e-5) << i;
      EXPECT_NEAR(dl[i], -dr - kMu * d_dual_prev, 1e-5) << i;
      sum_y += (dk2[i] - dr) * y_prev[i];
      if (s[i] != 0) sum_threshold -= s[i] > 0 ? ds : -ds;
      if (!last) sum_residual += d_dual * (key - l[i] - s[i]);
    }
    EXPECT_NEAR(sums.y, sum_y, 1e-4);
    EXPECT_NEAR(sums.threshold, sum_threshold, 1e-4);
    EXPECT_NEAR(sums.residual, sum_residual, 1e-4);
    if (!last) {
      EXPECT_GT(std::abs(sum_residual), 0.1);
    }
  }
}

}  // namespace
}  // namespace attnlab
