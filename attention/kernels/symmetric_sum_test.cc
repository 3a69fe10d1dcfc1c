#include "attention/kernels/symmetric_sum.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T>
class SymmetricSumTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SymmetricSumTest, Types);

// A 3 x 3 block of a 3 x 4 matrix (row stride 4), scale 0.5: g_ij <- (g_ij + g_ji) / 2; the
// fourth column is left alone.
TYPED_TEST(SymmetricSumTest, ThreeByThreeByHand) {
  using T = TypeParam;
  std::vector<T> g = {1, 2, 3, 9,  //
                      4, 5, 6, 9,  //
                      7, 8, 0, 9};
  ScaledSymmetricSum<T>(3, T(0.5), g.data(), 4);
  const std::vector<T> expected = {1, 3, 5, 9,  //
                                   3, 5, 7, 9,  //
                                   5, 7, 0, 9};
  EXPECT_EQ(g, expected);
}

// Sizes around the 16 x 16 tiles (a ViT head's 50 keys: three full tiles and an edge of 2),
// inside a wider matrix whose other entries must not change.
TYPED_TEST(SymmetricSumTest, MatchesTheDefinitionAroundTileEdges) {
  using T = TypeParam;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (int n : {1, 2, 15, 16, 17, 33, 50, 64}) {
    const int ld = n + 5, rows = n + 1;
    std::vector<T> g(rows * ld);
    for (T& v : g) v = T(normal(rng));
    std::vector<T> before = g;
    const T scale = T(0.25);
    ScaledSymmetricSum<T>(n, scale, g.data(), ld);
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < ld; ++j) {
        const T expected = i < n && j < n ? scale * (before[i * ld + j] + before[j * ld + i])
                                          : before[i * ld + j];
        ASSERT_EQ(g[i * ld + j], expected) << "n " << n << " at (" << i << ", " << j << ")";
      }
    }
  }
}

}  // namespace
}  // namespace attnlab
