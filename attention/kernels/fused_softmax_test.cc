#include "attention/kernels/fused_softmax.h"

#include <cmath>
#include <limits>
#include <random>

#include "attention/kernels/reference_product.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// softmax(scale q k^T) row by row, by plain loops in long double.
Mat DirectProbs(const Mat& q, const Mat& k, long double scale) {
  Mat probs(q.rows(), k.rows());
  for (int i = 0; i < q.rows(); ++i) {
    long double max = -INFINITY;
    for (int j = 0; j < k.rows(); ++j) {
      long double dot = 0;
      for (int e = 0; e < q.cols(); ++e) dot += q(i, e) * k(j, e);
      probs(i, j) = scale * dot;
      max = std::max(max, probs(i, j));
    }
    long double total = 0;
    for (int j = 0; j < k.rows(); ++j) total += (probs(i, j) = std::exp(probs(i, j) - max));
    for (int j = 0; j < k.rows(); ++j) probs(i, j) /= total;
  }
  return probs;
}

// The textbook softmax backward p_j (u_j - sum_k p_k u_k), u = g v^T, in long double.
Mat DirectScoreGradient(const Mat& probs, const Mat& g, const Mat& v) {
  Mat u(g.rows(), v.rows());
  for (int i = 0; i < g.rows(); ++i) {
    for (int j = 0; j < v.rows(); ++j) u(i, j) = g.row(i).dot(v.row(j));
  }
  Mat out(probs.rows(), probs.cols());
  for (int i = 0; i < probs.rows(); ++i) {
    long double mean = 0;
    for (int j = 0; j < probs.cols(); ++j) mean += probs(i, j) * u(i, j);
    for (int j = 0; j < probs.cols(); ++j) out(i, j) = probs(i, j) * (u(i, j) - mean);
  }
  return out;
}

template <typename T>
Matrix<T> Random(int rows, int cols, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Matrix<T> m(rows, cols);
  for (int64_t i = 0; i < m.size(); ++i) m.data()[i] = T(normal(rng));
  return m;
}

template <typename T>
class FusedSoftmaxTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FusedSoftmaxTest, Scalars);

TEST(FusedSoftmaxScores, HandComputedCase) {
  // q = k = I (2 x 2), scale 2: scores [[2, 0], [0, 2]], rows [e^2, 1] / (e^2 + 1).
  const Matrix<double> q = Matrix<double>::Identity(2, 2);
  Matrix<double> probs(2, 2);
  FusedSoftmaxScores<double>(2, 2, 2, 2.0, q.data(), 2, q.data(), 2, probs.data(), 2);
  const double e2 = std::exp(2.0);
  EXPECT_NEAR(probs(0, 0), e2 / (e2 + 1), 1e-15);
  EXPECT_NEAR(probs(0, 1), 1 / (e2 + 1), 1e-15);
  EXPECT_NEAR(probs(1, 0), 1 / (e2 + 1), 1e-15);
  EXPECT_NEAR(probs(1, 1), e2 / (e2 + 1), 1e-15);
}

// Every packet count whole and partial, every row-tile tail, strided operands, and nothing
// written past a row's keys.
TYPED_TEST(FusedSoftmaxTest, ForwardAndBackwardMatchDirectLoops) {
  using T = TypeParam;
  const double tolerance = std::is_same_v<T, float> ? 2e-6 : 1e-14;
  constexpr int L = kPacketSize<T>;
  std::mt19937 rng(7);
  const T sentinel = T(12345);
  for (int keys : {1, 2, L / 2, L / 2 + 1, L - 1, L, L + 1, 2 * L + 3, 3 * L, 3 * L + 2,
                   3 * L + L / 2, 4 * L - 1, 4 * L}) {
    for (int rows : {1, 2, 5, 7, 13, 50}) {
      for (int depth : {1, 3, 16, 17, 40}) {
        SCOPED_TRACE(testing::Message()
                     << "keys " << keys << " rows " << rows << " depth " << depth);
        // Operands inside wider matrices: row strides past their widths.
        const Matrix<T> q = Random<T>(rows, depth + 2, rng), k = Random<T>(keys, depth + 5, rng);
        const Matrix<T> g = Random<T>(rows, depth + 1, rng), v = Random<T>(keys, depth + 3, rng);
        const T scale = T(0.7);
        Matrix<T> probs = Matrix<T>::Constant(rows, keys + 3, sentinel);
        FusedSoftmaxScores<T>(rows, keys, depth, scale, q.data(), q.cols(), k.data(), k.cols(),
                              probs.data(), probs.cols());
        const Mat qd = q.leftCols(depth).template cast<long double>();
        const Mat kd = k.leftCols(depth).template cast<long double>();
        const Mat expected = DirectProbs(qd, kd, scale);
        EXPECT_LE(
            (probs.leftCols(keys).template cast<long double>() - expected).cwiseAbs().maxCoeff(),
            tolerance);
        EXPECT_TRUE((probs.rightCols(3).array() == sentinel).all());

        Matrix<T> grad = Matrix<T>::Constant(rows, keys + 2, sentinel);
        FusedSoftmaxScoresBackward<T>(rows, keys, depth, g.data(), g.cols(), v.data(), v.cols(),
                                      probs.data(), probs.cols(), grad.data(), grad.cols());
        const Mat expected_grad =
            DirectScoreGradient(probs.leftCols(keys).template cast<long double>(),
                                g.leftCols(depth).template cast<long double>(),
                                v.leftCols(depth).template cast<long double>());
        const long double size = std::max<long double>(1, expected_grad.cwiseAbs().maxCoeff());
        EXPECT_LE((grad.leftCols(keys).template cast<long double>() - expected_grad)
                      .cwiseAbs()
                      .maxCoeff(),
                  tolerance * 10 * size);
        EXPECT_TRUE((grad.rightCols(2).array() == sentinel).all());
      }
    }
  }
}

// The Eigen-level entry points take the fused kernels and the unfused path (rows too long)
// to the same values.
TYPED_TEST(FusedSoftmaxTest, EigenEntryPointsAgreeAcrossThePathLimit) {
  using T = TypeParam;
  std::mt19937 rng(3);
  for (int keys : {kMaxFusedKeys<T>, kMaxFusedKeys<T> + 1}) {
    const Matrix<T> q = Random<T>(9, 4, rng), k = Random<T>(keys, 4, rng);
    const Matrix<T> g = Random<T>(9, 4, rng), v = Random<T>(keys, 4, rng);
    Matrix<T> probs(9, keys), grad(9, keys);
    SoftmaxOfScores(q, k, T(0.5), probs);
    SoftmaxOfScoresBackward(probs, g, v, grad);
    const Mat expected =
        DirectProbs(q.template cast<long double>(), k.template cast<long double>(), 0.5L);
    const double tolerance = std::is_same_v<T, float> ? 2e-6 : 1e-14;
    EXPECT_LE((probs.template cast<long double>() - expected).cwiseAbs().maxCoeff(), tolerance);
    const Mat expected_grad =
        DirectScoreGradient(probs.template cast<long double>(), g.template cast<long double>(),
                            v.template cast<long double>());
    EXPECT_LE((grad.template cast<long double>() - expected_grad).cwiseAbs().maxCoeff(),
              10 * tolerance);
  }
}

// Finite differences of L(q) = sum(u .* softmax(scale q k^T)), u = g v^T: dL/dq = scale dS k
// with dS from the backward kernel.
TEST(FusedSoftmaxScores, BackwardMatchesFiniteDifferences) {
  std::mt19937 rng(11);
  const int rows = 7, keys = 19, depth = 5;
  const double scale = 0.8;
  Matrix<double> q = Random<double>(rows, depth, rng);
  const Matrix<double> k = Random<double>(keys, depth, rng), g = Random<double>(rows, depth, rng),
                       v = Random<double>(keys, depth, rng);
  const Matrix<double> u = ReferenceProduct<double>(g, v.transpose());
  auto loss = [&](const Matrix<double>& query) {
    Matrix<double> probs(rows, keys);
    FusedSoftmaxScores<double>(rows, keys, depth, scale, query.data(), depth, k.data(), depth,
                               probs.data(), keys);
    return u.cwiseProduct(probs).sum();
  };
  Matrix<double> probs(rows, keys), grad_scores(rows, keys);
  FusedSoftmaxScores<double>(rows, keys, depth, scale, q.data(), depth, k.data(), depth,
                             probs.data(), keys);
  FusedSoftmaxScoresBackward<double>(rows, keys, depth, g.data(), depth, v.data(), depth,
                                     probs.data(), keys, grad_scores.data(), keys);
  const Matrix<double> grad_q = scale * ReferenceProduct(grad_scores, k);
  const double h = 1e-6;
  for (int i = 0; i < rows; ++i) {
    for (int e = 0; e < depth; ++e) {
      const double saved = q(i, e);
      q(i, e) = saved + h;
      const double up = loss(q);
      q(i, e) = saved - h;
      const double down = loss(q);
      q(i, e) = saved;
      EXPECT_NEAR(grad_q(i, e), (up - down) / (2 * h), 1e-8) << i << ", " << e;
    }
  }
}

// Once the softmax saturates, the textbook form's g_m - <g, p> cancels; measured from the
// dominant token the gradient keeps full relative precision (as SoftmaxRowsBackward).
TEST(FusedSoftmaxScores, SaturatedRowKeepsRelativePrecision) {
  // One query, three keys: scores 0, -40, -45 (scale 1, depth 1): p = (1, ~4e-18, ~3e-20).
  const Matrix<double> q = Matrix<double>::Constant(1, 1, 1.0);
  Matrix<double> k(3, 1);
  k << 0, -40, -45;
  Matrix<double> probs(1, 3), grad(1, 3);
  FusedSoftmaxScores<double>(1, 3, 1, 1.0, q.data(), 1, k.data(), 1, probs.data(), 3);
  // dL/dp = g v^T with g = 1, v = (1, 2, 3).
  const Matrix<double> g = Matrix<double>::Constant(1, 1, 1.0);
  Matrix<double> v(3, 1);
  v << 1, 2, 3;
  FusedSoftmaxScoresBackward<double>(1, 3, 1, g.data(), 1, v.data(), 1, probs.data(), 3,
                                     grad.data(), 3);
  // u_j - sum_k p_k u_k = sum_k p_k (u_j - u_k): no cancellation written this way.
  const double p0 = probs(0, 0), p1 = probs(0, 1), p2 = probs(0, 2);
  const double expected[3] = {p0 * (-p1 - 2 * p2), p1 * (p0 - p2), p2 * (2 * p0 + p1)};
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(grad(0, j) / expected[j], 1.0, 1e-12) << j;
}

}  // namespace
}  // namespace attnlab
