// TiledProduct against ReferenceProduct: every column-tile width (1-5 packets, whole and with a
// partial last packet), row counts that leave tails of every tile height, depths in one chunk
// and across chunks, op(A) = A and A^T, overwrite, accumulate and add a matrix D, with and
// without a bias, float and double; nothing past C's columns is written.
#include "attention/kernels/tiled_product.h"

#include <vector>

#include "attention/kernels/packet.h"
#include "attention/kernels/reference_product.h"
#include "attention/tensor.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T>
void CheckAgainstTheReference(double tolerance) {
  constexpr int kLanes = kPacketSize<T>;
  for (int rows : {1, 5, 7, 8, 9, 13, 50}) {
    for (int cols : {1, kLanes - 1, kLanes, 2 * kLanes + 3, 3 * kLanes, 4 * kLanes - 2, 4 * kLanes,
                     4 * kLanes + 1, 5 * kLanes, 7 * kLanes + 2}) {
      for (int depth : {1, 16, 50, 128, 129, 300}) {
        for (bool transpose : {false, true}) {
          for (int variant = 0; variant < 6; ++variant) {
            // C = ..., C += ..., C = D + ...; each with and without a bias.
            const bool accumulate = variant % 3 == 1, with_addend = variant % 3 == 2;
            const bool with_bias = variant >= 3;
            SCOPED_TRACE(testing::Message()
                         << rows << " x " << cols << ", depth " << depth
                         << (transpose ? ", A^T" : "") << (accumulate ? ", +=" : "")
                         << (with_addend ? ", addend" : "") << (with_bias ? ", bias" : ""));
            const Matrix<T> addend_wide = Matrix<T>::Random(rows, cols + 2);
            // Operands inside wider matrices, as a head's blocks are.
            const Matrix<T> a_wide =
                transpose ? Matrix<T>::Random(depth, rows + 3) : Matrix<T>::Random(rows, depth + 3);
            const auto a = transpose ? a_wide.leftCols(rows) : a_wide.leftCols(depth);
            const Matrix<T> b_wide = Matrix<T>::Random(depth, cols + kLanes);
            const auto b = b_wide.leftCols(cols);
            Matrix<T> c_wide = Matrix<T>::Random(rows, cols + 5);
            const Matrix<T> c_before = c_wide;
            Matrix<T> want = c_wide.leftCols(cols);
            const T alpha = T(0.7);
            if (transpose) {
              if (!accumulate) want.setZero();
              want += alpha * ReferenceProduct<T>(a.transpose(), b);
            } else {
              if (!accumulate) want.setZero();
              want += alpha * ReferenceProduct<T>(a, b);
            }
            // Exactly cols entries: a read past them shows under ASan.
            std::vector<T> bias_values(cols);
            for (int j = 0; j < cols; ++j) bias_values[j] = T(0.25) * j - 1;
            if (with_bias) {
              for (int j = 0; j < cols; ++j) want.col(j).array() += bias_values[j];
            }
            if (with_addend) want += addend_wide.leftCols(cols);
            const int64_t stride = a_wide.cols();
            TiledProduct<T>(rows, cols, depth, alpha, a_wide.data(), transpose ? 1 : stride,
                            transpose ? stride : 1, b_wide.data(), b_wide.cols(), c_wide.data(),
                            c_wide.cols(), accumulate, with_bias ? bias_values.data() : nullptr,
                            with_addend ? addend_wide.data() : nullptr, addend_wide.cols());
            EXPECT_LE((c_wide.leftCols(cols) - want).cwiseAbs().maxCoeff(),
                      tolerance * (1 + want.cwiseAbs().maxCoeff()));
            EXPECT_EQ(c_wide.rightCols(5), c_before.rightCols(5));
          }
        }
      }
    }
  }
}

TEST(TiledProductTest, MatchesTheReferenceInFloat) { CheckAgainstTheReference<float>(1e-5); }
TEST(TiledProductTest, MatchesTheReferenceInDouble) { CheckAgainstTheReference<double>(1e-13); }

TEST(TiledProductTest, LeavesColumnsPastTheProductAlone) {
  constexpr int kLanes = kPacketSize<float>;
  Matrix<float> a = Matrix<float>::Ones(3, 2), b = Matrix<float>::Ones(2, kLanes);
  Matrix<float> c = Matrix<float>::Constant(3, kLanes + 1, -1);
  TiledProduct<float>(3, kLanes, 2, 1.0f, a.data(), 2, 1, b.data(), kLanes, c.data(), kLanes + 1,
                      false);
  EXPECT_EQ(c.leftCols(kLanes), Matrix<float>::Constant(3, kLanes, 2));
  EXPECT_EQ(c.col(kLanes), Matrix<float>::Constant(3, 1, -1));
  EXPECT_EQ(PaddedColumns<float>(2 * kLanes), 2 * kLanes);
  EXPECT_EQ(PaddedColumns<float>(kLanes + 1), 2 * kLanes);
}

TEST(TiledProductTest, EmptyDepthClearsOrKeeps) {
  constexpr int kLanes = kPacketSize<float>;
  Matrix<float> c = Matrix<float>::Constant(2, kLanes, 3);
  TiledProduct<float>(2, kLanes, 0, 1.0f, nullptr, 0, 1, nullptr, kLanes, c.data(), kLanes, true);
  EXPECT_EQ(c, Matrix<float>::Constant(2, kLanes, 3));
  TiledProduct<float>(2, kLanes, 0, 1.0f, nullptr, 0, 1, nullptr, kLanes, c.data(), kLanes, false);
  EXPECT_EQ(c, Matrix<float>::Zero(2, kLanes));
  const std::vector<float> bias(kLanes, 1.5f);
  TiledProduct<float>(2, kLanes, 0, 1.0f, nullptr, 0, 1, nullptr, kLanes, c.data(), kLanes, true,
                      bias.data());
  EXPECT_EQ(c, Matrix<float>::Constant(2, kLanes, 1.5f));
}

}  // namespace
}  // namespace attnlab
