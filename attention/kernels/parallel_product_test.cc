// ParallelProduct against ReferenceProduct in blocks of rows (narrow outputs) and of columns
// (wide ones), for every operand layout the layers pass, overwrite and accumulate; and the same
// bits with 1 and 2 threads; the same for ParallelAffine(Add) and TokenProducts. (Product's own
// paths: product_test.)
#include "attention/kernels/parallel_product.h"

#include "attention/kernels/library_product.h"
#include "attention/kernels/reference_product.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

struct Case {
  int rows, depth, cols;
};

// out = lhs * rhs (or +=) with lhs given as a (rows x depth) or as the transpose of b (depth x
// rows), and rhs as r (depth x cols) or as the transpose of s (cols x depth).
template <typename T>
void Check(const Case& shape, bool lhs_transposed, bool rhs_transposed, bool accumulate,
           double tolerance) {
  SCOPED_TRACE(testing::Message() << shape.rows << " x " << shape.depth << " by " << shape.depth
                                  << " x " << shape.cols << (lhs_transposed ? ", lhs^T" : "")
                                  << (rhs_transposed ? ", rhs^T" : "")
                                  << (accumulate ? ", +=" : ""));
  const Matrix<T> a = Matrix<T>::Random(shape.rows, shape.depth);
  const Matrix<T> r = Matrix<T>::Random(shape.depth, shape.cols);
  const Matrix<T> a_t = a.transpose(), r_t = r.transpose();
  const Matrix<T> start = Matrix<T>::Random(shape.rows, shape.cols);
  Matrix<T> want = start;
  if (!accumulate) want.setZero();
  want += ReferenceProduct(a, r);
  Matrix<T> one_thread;
  for (int threads : {1, 2}) {
    Matrix<T> got = start;
    tbb::task_arena arena(threads);
    arena.execute([&] {
      ExecContext ctx(1, threads);
      if (lhs_transposed && rhs_transposed) {
        ParallelProduct(ctx, a_t.transpose(), r_t.transpose(), got, accumulate);
      } else if (lhs_transposed) {
        ParallelProduct(ctx, a_t.transpose(), r, got, accumulate);
      } else if (rhs_transposed) {
        ParallelProduct(ctx, a, r_t.transpose(), got, accumulate);
      } else {
        ParallelProduct(ctx, a, r, got, accumulate);
      }
    });
    EXPECT_LE((got - want).cwiseAbs().maxCoeff(), tolerance * (1 + want.cwiseAbs().maxCoeff()));
    if (threads == 1) {
      one_thread = got;
    } else {
      EXPECT_EQ(got, one_thread) << "2 threads changed the bits";
    }
  }
}

template <typename T>
void CheckAll(double tolerance) {
  // Narrow outputs in blocks of rows (a ViT's 6400 x 64 by 64 x 64 in small), wide ones in
  // blocks of columns (the LM's vocabulary; 1200 in blocks of the widest, 512, with a tail),
  // column tails, a transposed rhs too large to copy.
  for (const Case& shape :
       {Case{1, 1, 1}, Case{7, 3, 16}, Case{600, 64, 64}, Case{300, 40, 50}, Case{64, 700, 48},
        Case{8, 600, 200}, Case{40, 20, 600}, Case{20, 300, 270}, Case{12, 9, 1200}}) {
    for (bool lhs_transposed : {false, true}) {
      for (bool rhs_transposed : {false, true}) {
        for (bool accumulate : {false, true}) {
          Check<T>(shape, lhs_transposed, rhs_transposed, accumulate, tolerance);
        }
      }
    }
  }
}

// Float products on each ProductBackend (bit-identical across thread counts on each).
template <typename F>
void OnEachBackend(F check) {
  for (ProductBackend backend : {ProductBackend::kChosen, ProductBackend::kTiled,
                                 ProductBackend::kLibxsmm, ProductBackend::kOneDnn}) {
    SCOPED_TRACE(ProductBackendName(backend));
    SetProductBackend(backend);
    check();
  }
  SetProductBackend(ProductBackend::kChosen);
}

TEST(ParallelProductTest, MatchesTheReferenceInFloat) {
  OnEachBackend([] { CheckAll<float>(1e-5); });
}
TEST(ParallelProductTest, MatchesTheReferenceInDouble) { CheckAll<double>(1e-13); }

// ParallelAffine: lhs * rhs + bias in every row, in blocks of rows and of columns, with the
// transposed weight copied once, the same bits with 1 and 2 threads.
template <typename T>
void CheckAffine(double tolerance) {
  for (const Case& shape : {Case{600, 64, 64}, Case{300, 40, 50}, Case{40, 20, 600}}) {
    for (bool rhs_transposed : {false, true}) {
      SCOPED_TRACE(testing::Message() << shape.rows << " x " << shape.depth << " by " << shape.depth
                                      << " x " << shape.cols << (rhs_transposed ? ", rhs^T" : ""));
      const Matrix<T> a = Matrix<T>::Random(shape.rows, shape.depth);
      const Matrix<T> r = Matrix<T>::Random(shape.depth, shape.cols);
      const Matrix<T> r_t = r.transpose();
      const Matrix<T> bias = Matrix<T>::Random(1, shape.cols);
      const Matrix<T> want = ReferenceProduct(a, r).rowwise() + bias.row(0);
      Matrix<T> one_thread;
      for (int threads : {1, 2}) {
        Matrix<T> got = Matrix<T>::Random(shape.rows, shape.cols);  // overwritten
        tbb::task_arena arena(threads);
        arena.execute([&] {
          ExecContext ctx(1, threads);
          if (rhs_transposed) {
            ParallelAffine(ctx, a, r_t.transpose(), bias, got);
          } else {
            ParallelAffine(ctx, a, r, bias, got);
          }
        });
        EXPECT_LE((got - want).cwiseAbs().maxCoeff(), tolerance * (1 + want.cwiseAbs().maxCoeff()));
        // With a residual: out = residual + lhs * rhs + bias.
        const Matrix<T> residual = Matrix<T>::Random(shape.rows, shape.cols);
        Matrix<T> sum(shape.rows, shape.cols);
        arena.execute([&] {
          ExecContext ctx(1, threads);
          ParallelAffineAdd(ctx, a, r, bias.data(), residual, sum);
        });
        EXPECT_LE((sum - want - residual).cwiseAbs().maxCoeff(),
                  tolerance * (1 + want.cwiseAbs().maxCoeff()));
        if (threads == 1) {
          one_thread = got;
        } else {
          EXPECT_EQ(got, one_thread) << "2 threads changed the bits";
        }
      }
    }
  }
}

TEST(ParallelProductTest, AffineMatchesTheReferenceInFloat) {
  OnEachBackend([] { CheckAffine<float>(1e-5); });
}
TEST(ParallelProductTest, AffineMatchesTheReferenceInDouble) { CheckAffine<double>(1e-13); }

// TokenProducts: a^T b and the column sums of a and b over token counts within one chunk,
// across chunks (not a multiple of the chunk) and across groups (a narrow output, split by
// tokens; a wide one, split by columns), the same bits with 1 and 2 threads.
template <typename T>
void CheckTokenProducts(double tolerance) {
  for (int width : {20, 300}) {
    for (int tokens : {1, 255, 700, 1700}) {
      SCOPED_TRACE(testing::Message() << tokens << " tokens, width " << width);
      const Matrix<T> a = Matrix<T>::Random(tokens, 48), b = Matrix<T>::Random(tokens, width);
      const Matrix<T> want = ReferenceProduct<T>(a.transpose(), b);
      const Matrix<T> want_a_sums = a.colwise().sum(), want_b_sums = b.colwise().sum();
      Matrix<T> one_thread, one_thread_a_sums, one_thread_b_sums;
      for (int threads : {1, 2}) {
        Matrix<T> got = Matrix<T>::Random(48, width), a_sums, b_sums;  // overwritten
        tbb::task_arena arena(threads);
        arena.execute([&] {
          ExecContext ctx(1, threads);
          TokenProducts(ctx, a, b, got, &a_sums, &b_sums);
        });
        EXPECT_LE((got - want).cwiseAbs().maxCoeff(), tolerance * (1 + want.cwiseAbs().maxCoeff()));
        EXPECT_LE((a_sums - want_a_sums).cwiseAbs().maxCoeff(), tolerance * tokens);
        EXPECT_LE((b_sums - want_b_sums).cwiseAbs().maxCoeff(), tolerance * tokens);
        if (threads == 1) {
          one_thread = got;
          one_thread_a_sums = a_sums;
          one_thread_b_sums = b_sums;
        } else {
          EXPECT_EQ(got, one_thread) << "2 threads changed the bits";
          EXPECT_EQ(a_sums, one_thread_a_sums) << "2 threads changed the bits";
          EXPECT_EQ(b_sums, one_thread_b_sums) << "2 threads changed the bits";
        }
      }
    }
  }
}

TEST(ParallelProductTest, TokenProductsMatchTheReferenceInFloat) {
  OnEachBackend([] { CheckTokenProducts<float>(1e-5); });
}
TEST(ParallelProductTest, TokenProductsMatchTheReferenceInDouble) {
  CheckTokenProducts<double>(1e-13);
}

TEST(ParallelProductTest, TokenProductsByHand) {
  // Tokens (1, 2) and (3, 4) against (1) and (10): a^T b = [31; 42], sums (4, 6) and (11).
  Matrix<float> a(2, 2), b(2, 1), out, a_sums, b_sums;
  a << 1, 2, 3, 4;
  b << 1, 10;
  out.resize(2, 1);
  ExecContext ctx(1);
  TokenProducts(ctx, a, b, out, &a_sums, &b_sums);
  EXPECT_EQ(out(0, 0), 31);
  EXPECT_EQ(out(1, 0), 42);
  EXPECT_EQ(a_sums(0, 0), 4);
  EXPECT_EQ(a_sums(0, 1), 6);
  EXPECT_EQ(b_sums(0, 0), 11);
}

TEST(ParallelProductTest, ByHand) {
  Matrix<float> a(2, 2), b(2, 16), out = Matrix<float>::Ones(2, 16);
  a << 1, 2, 3, 4;
  b.row(0).setConstant(1);
  b.row(1).setLinSpaced(16, 0, 15);
  ExecContext ctx(1);
  ParallelProduct(ctx, a, b, out, /*accumulate=*/true);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(out(0, j), 1 + 1 + 2 * j);
    EXPECT_EQ(out(1, j), 1 + 3 + 4 * j);
  }
}

}  // namespace
}  // namespace attnlab
