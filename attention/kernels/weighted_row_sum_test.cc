#include "attention/kernels/weighted_row_sum.h"

#include "attention/kernels/reference_product.h"
#include "attention/tensor.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T>
void Check(int n, int k, int width) {
  Matrix<T> weights = Matrix<T>::Random(n, k), rows = Matrix<T>::Random(n, width);
  Matrix<T> out(k, width);
  WeightedRowSum(weights, rows, out);
  const Matrix<T> expected = ReferenceProduct<T>(weights.transpose(), rows);
  EXPECT_LT((out - expected).cwiseAbs().maxCoeff(), 1e-4 * n) << n << " " << k << " " << width;
}

TEST(WeightedRowSumTest, MatchesTheProductForEveryWidthAndColumnCount) {
  for (int k = 1; k <= 9; ++k) {
    for (int width : {1, 15, 16, 32, 33, 170}) {
      Check<float>(37, k, width);
      Check<double>(37, k, width);
    }
  }
}

TEST(WeightedRowSumTest, WorksOnBlocks) {
  Matrix<float> weights = Matrix<float>::Random(20, 6), big = Matrix<float>::Random(60, 40);
  Matrix<float> out_big = Matrix<float>::Zero(12, 40);
  WeightedRowSum(weights, big.middleRows(20, 20), out_big.middleRows(6, 6));
  const Matrix<float> expected =
      ReferenceProduct<float>(weights.transpose(), big.middleRows(20, 20));
  EXPECT_LT((out_big.middleRows(6, 6) - expected).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_EQ(out_big.topRows(6).cwiseAbs().maxCoeff(), 0.0f);
}

}  // namespace
}  // namespace attnlab
