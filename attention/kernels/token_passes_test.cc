// TokenDots and WeightedTokenSums against ReferenceProduct, over shapes that exercise every
// tile and tail (rows not a multiple of 8, dims not a multiple of the packet, odd counts).
#include "attention/kernels/token_passes.h"

#include <vector>

#include "attention/kernels/reference_product.h"
#include "attention/tensor.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T>
void CheckShapes(double tolerance) {
  for (int rows : {1, 3, 4, 5, 7, 8, 9, 17, 64}) {
    for (int dim : {1, 3, 8, 13, 17, 33, 64, 70}) {
      for (int count : {1, 2, 3}) {
        SCOPED_TRACE(testing::Message() << "rows " << rows << " dim " << dim << " count " << count);
        // Two samples' tokens: the first pass prefetches the second.
        const Matrix<T> tokens = Matrix<T>::Random(2 * rows, dim);
        const Matrix<T> vectors = Matrix<T>::Random(count, dim);
        const Matrix<T> weights = Matrix<T>::Random(count, rows);
        const auto sample = tokens.topRows(rows);
        Matrix<T> dots(count, rows), sums(count, dim);
        TokenDots(tokens.data(), rows, dim, vectors.data(), count, dots.data(),
                  {tokens.data() + int64_t(rows) * dim, tokens.data() + tokens.size()});
        const Matrix<T> want_dots = ReferenceProduct<T>(vectors, sample.transpose());
        EXPECT_LE((dots - want_dots).cwiseAbs().maxCoeff(),
                  tolerance * (1 + want_dots.cwiseAbs().maxCoeff()));
        WeightedTokenSums(tokens.data(), rows, dim, weights.data(), count, sums.data());
        const Matrix<T> want_sums = ReferenceProduct<T>(weights, sample);
        EXPECT_LE((sums - want_sums).cwiseAbs().maxCoeff(),
                  tolerance * (1 + want_sums.cwiseAbs().maxCoeff()));
      }
    }
  }
}

TEST(TokenPassesTest, MatchTheReferenceInDouble) { CheckShapes<double>(1e-13); }
TEST(TokenPassesTest, MatchTheReferenceInFloat) { CheckShapes<float>(1e-5); }

// The next sample's 100 lines: 50 in the first pass, 3 x 8 between the passes, 26 in the
// second; nothing when there is no next sample.
TEST(TokenPassesTest, NextSamplePrefetchSplitsTheSample) {
  std::vector<char> next(6400);
  NextSamplePrefetch prefetch(next.data(), 6400, /*steps_between=*/3);
  EXPECT_EQ(prefetch.first_pass().begin, next.data());
  EXPECT_EQ(prefetch.first_pass().end, next.data() + 50 * 64);
  EXPECT_EQ(prefetch.second_pass().begin, next.data() + 74 * 64);
  EXPECT_EQ(prefetch.second_pass().end, next.data() + 6400);
  NextSamplePrefetch none(nullptr, 6400, 3);
  EXPECT_EQ(none.first_pass().begin, none.first_pass().end);
  EXPECT_EQ(none.second_pass().begin, none.second_pass().end);
  none.BetweenPasses();  // prefetches nothing
  NextSamplePrefetch small(next.data(), 200, 3);  // fewer lines than the steps between take
  EXPECT_EQ(small.second_pass().begin, next.data() + 200);
}

TEST(TokenPassesTest, ByHand) {
  // Tokens (1, 2), (3, 4), (5, 6); vectors (1, 0), (1, -1); weights (1, 1, 1),
  // (0, 2, -1).
  const Matrix<double> tokens = (Matrix<double>(3, 2) << 1, 2, 3, 4, 5, 6).finished();
  const Matrix<double> vectors = (Matrix<double>(2, 2) << 1, 0, 1, -1).finished();
  const Matrix<double> weights = (Matrix<double>(2, 3) << 1, 1, 1, 0, 2, -1).finished();
  Matrix<double> dots(2, 3), sums(2, 2);
  TokenDots(tokens.data(), 3, 2, vectors.data(), 2, dots.data());
  EXPECT_EQ(dots, (Matrix<double>(2, 3) << 1, 3, 5, -1, -1, -1).finished());
  WeightedTokenSums(tokens.data(), 3, 2, weights.data(), 2, sums.data());
  EXPECT_EQ(sums, (Matrix<double>(2, 2) << 9, 12, 1, 2).finished());
}

}  // namespace
}  // namespace attnlab
