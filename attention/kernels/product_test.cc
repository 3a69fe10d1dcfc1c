// Product against ReferenceProduct on every path it takes: row-major and transposed lhs (a
// head's A^T), row-major and transposed rhs (K^T, small enough to copy, and too large to),
// outputs with and without columns past the last whole packet, strided blocks of wider matrices
// (a head's K inside the layer's keys), alpha, overwrite and +=, with and without a bias row;
// in float on each ProductBackend (libxsmm's kernels take alpha = 1 only); oneDNN's copy of an
// rhs whose rows are 2 KiB apart.
#include "attention/kernels/product.h"

#include "attention/kernels/library_product.h"
#include "attention/kernels/reference_product.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

struct Case {
  int rows, depth, cols;
};

template <typename T>
void Check(const Case& shape, bool lhs_transposed, bool rhs_transposed, bool accumulate,
           bool with_bias, T alpha, double tolerance) {
  SCOPED_TRACE(testing::Message() << shape.rows << " x " << shape.depth << " by " << shape.depth
                                  << " x " << shape.cols << (lhs_transposed ? ", lhs^T" : "")
                                  << (rhs_transposed ? ", rhs^T" : "")
                                  << (accumulate ? ", +=" : "") << (with_bias ? ", bias" : "")
                                  << ", alpha " << alpha);
  // Every operand a block of a wider matrix, as a head's blocks are.
  const Matrix<T> a_wide = Matrix<T>::Random(shape.rows + 1, shape.depth + 3);
  const Matrix<T> r_wide = Matrix<T>::Random(shape.depth + 2, shape.cols + 5);
  const Matrix<T> a_t_wide = a_wide.transpose(), r_t_wide = r_wide.transpose();
  const auto a = a_wide.block(1, 2, shape.rows, shape.depth);
  const auto r = r_wide.block(2, 1, shape.depth, shape.cols);
  const auto a_t = a_t_wide.block(2, 1, shape.depth, shape.rows);
  const auto r_t = r_t_wide.block(1, 2, shape.cols, shape.depth);
  Matrix<T> out_wide = Matrix<T>::Random(shape.rows + 2, shape.cols + 7);
  const Matrix<T> before = out_wide;
  Matrix<T> want = out_wide.block(1, 3, shape.rows, shape.cols);
  if (!accumulate) want.setZero();
  want += alpha * ReferenceProduct<T>(a, r);
  const Matrix<T> bias_row = Matrix<T>::Random(1, shape.cols);
  const T* bias = with_bias ? bias_row.data() : nullptr;
  if (with_bias) want.rowwise() += bias_row.row(0);
  auto out = out_wide.block(1, 3, shape.rows, shape.cols);
  if (lhs_transposed && rhs_transposed) {
    Product(a_t.transpose(), r_t.transpose(), out, accumulate, alpha, bias);
  } else if (lhs_transposed) {
    Product(a_t.transpose(), r, out, accumulate, alpha, bias);
  } else if (rhs_transposed) {
    Product(a, r_t.transpose(), out, accumulate, alpha, bias);
  } else {
    Product(a, r, out, accumulate, alpha, bias);
  }
  EXPECT_LE((out - want).cwiseAbs().maxCoeff(), tolerance * (1 + want.cwiseAbs().maxCoeff()));
  // Nothing outside the output block is touched.
  out_wide.block(1, 3, shape.rows, shape.cols) = before.block(1, 3, shape.rows, shape.cols);
  EXPECT_EQ(out_wide, before);
}

template <typename T>
void CheckAll(double tolerance) {
  // A head (50 x 16 by 16 x 50, 50 x 50 by 50 x 16), whole packets only, columns past the last
  // packet, depth across TiledProduct's chunks, a transposed rhs too large to copy (Eigen).
  for (const Case& shape : {Case{50, 16, 50}, Case{50, 50, 16}, Case{1, 1, 1}, Case{9, 7, 3},
                            Case{33, 300, 32}, Case{300, 40, 21}, Case{10, 70, 1000}}) {
    for (bool lhs_transposed : {false, true}) {
      for (bool rhs_transposed : {false, true}) {
        for (bool accumulate : {false, true}) {
          for (bool with_bias : {false, true}) {
            for (T alpha : {T(1), T(-0.75)}) {
              Check<T>(shape, lhs_transposed, rhs_transposed, accumulate, with_bias, alpha,
                       tolerance);
            }
          }
        }
      }
    }
  }
}

TEST(ProductTest, MatchesTheReferenceInFloat) {
  for (ProductBackend backend : {ProductBackend::kChosen, ProductBackend::kTiled,
                                 ProductBackend::kLibxsmm, ProductBackend::kOneDnn}) {
    SCOPED_TRACE(ProductBackendName(backend));
    SetProductBackend(backend);
    CheckAll<float>(1e-5);
  }
  SetProductBackend(ProductBackend::kChosen);
}
TEST(ProductTest, MatchesTheReferenceInDouble) { CheckAll<double>(1e-13); }

// oneDNN's rhs copied to another row stride (library_product.cc) where its rows are 2 KiB
// apart: blocks of a 512-column matrix, as ParallelProduct cuts a wide weight matrix, with its
// tail columns, a bias and +=.
TEST(ProductTest, OneDnnWithRhsRowsTwoKibApart) {
  SetProductBackend(ProductBackend::kOneDnn);
  const Matrix<float> a = Matrix<float>::Random(70, 90);
  const Matrix<float> r_wide = Matrix<float>::Random(90, 512);
  const Matrix<float> bias = Matrix<float>::Random(1, 300);
  for (int cols : {256, 300}) {
    for (bool accumulate : {false, true}) {
      SCOPED_TRACE(testing::Message() << cols << " columns" << (accumulate ? ", +=" : ""));
      const auto r = r_wide.middleCols(5, cols);
      Matrix<float> out = Matrix<float>::Random(70, cols);
      Matrix<float> want = accumulate ? out : Matrix<float>::Zero(70, cols);
      want += ReferenceProduct<float>(a, r);
      want.rowwise() += bias.leftCols(cols).row(0);
      Product(a, r, out, accumulate, 1.0f, bias.data());
      EXPECT_LE((out - want).cwiseAbs().maxCoeff(), 1e-5 * (1 + want.cwiseAbs().maxCoeff()));
    }
  }
  SetProductBackend(ProductBackend::kChosen);
}

TEST(ProductTest, ByHandWithAColumnTail) {
  // 2 x 2 by 2 x 17: one whole packet of floats and one column past it.
  Matrix<float> a(2, 2), b(2, 17), out = Matrix<float>::Ones(2, 17);
  a << 1, 2, 3, 4;
  b.row(0).setConstant(1);
  b.row(1).setLinSpaced(17, 0, 16);
  Product(a, b, out, /*accumulate=*/true, 2.0f);
  for (int j = 0; j < 17; ++j) {
    EXPECT_EQ(out(0, j), 1 + 2 * (1 + 2 * j));
    EXPECT_EQ(out(1, j), 1 + 2 * (3 + 4 * j));
  }
}

// Product does not resize its output (an Eigen assignment would): operands that do not fit end
// the program with their shapes, not a write past out's memory.
TEST(ProductDeathTest, ShapesThatDoNotFitAbortWithTheShapes) {
  Matrix<float> a = Matrix<float>::Ones(2, 3), b = Matrix<float>::Ones(3, 4), out(2, 5);
  EXPECT_DEATH(Product(a, b, out, /*accumulate=*/false),
               "Product of a 2 x 3 and a 3 x 4 matrix into a 2 x 5 one");
  Matrix<double> empty;
  EXPECT_DEATH(Product(a.cast<double>(), b.cast<double>(), empty, /*accumulate=*/false),
               "into a 0 x 0 one");
}

}  // namespace
}  // namespace attnlab
