// ScaleRowsAndSumColumns against a plain loop: every width up to 40 (each tail) and the LM
// head's 126 and 128, rows strided, with and without the column sums.
#include "attention/kernels/scale_rows.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(ScaleRowsTest, MatchesAPlainLoop) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-1, 1);
  constexpr int kRows = 9, kStride = 130;
  std::vector<int> widths = {126, 128};
  for (int w = 1; w <= 40; ++w) widths.push_back(w);
  for (int width : widths) {
    std::vector<float> rows(kRows * kStride), factor(kRows), sums(width), initial(width);
    for (float& x : rows) x = uniform(rng);
    for (float& x : factor) x = uniform(rng);
    for (int j = 0; j < width; ++j) initial[j] = sums[j] = uniform(rng);
    std::vector<float> want = rows, unsummed = rows;
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < width; ++j) want[i * kStride + j] *= factor[i];
    }
    ScaleRowsAndSumColumns(rows.data(), kRows, width, kStride, factor.data(), sums.data());
    EXPECT_EQ(rows, want) << width;  // the columns past `width` untouched too
    for (int j = 0; j < width; ++j) {
      double sum = initial[j];
      for (int i = 0; i < kRows; ++i) sum += want[i * kStride + j];
      EXPECT_NEAR(sums[j], sum, 1e-5) << width << " " << j;
    }
    ScaleRowsAndSumColumns<float>(unsummed.data(), kRows, width, kStride, factor.data(), nullptr);
    EXPECT_EQ(unsummed, want) << width;
  }
}

}  // namespace
}  // namespace attnlab
