#include "attention/kernels/product.h"

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "attention/kernels/library_product.h"
#include "attention/kernels/tiled_product.h"

namespace attnlab {
namespace {

using product_internal::EigenProduct;
using product_internal::kMaxCopiedRhs;
using product_internal::PaddedCopy;
using product_internal::ThreadBuffer;

// LibraryProduct in float (false where it leaves the product to TiledProduct); false in double.
template <typename T>
bool FloatLibraryProduct(int rows, int cols, int depth, T alpha, const T* a, int64_t a_row,
                         int64_t a_col, const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate,
                         const T* bias, const T* addend, int64_t ld_addend) {
  if constexpr (std::is_same_v<T, float>) {
    return LibraryProduct(rows, cols, depth, alpha, a, a_row, a_col, b, ldb, c, ldc, accumulate,
                          bias, addend, ld_addend);
  }
  return false;
}

template <typename T, int kOrder>
using View = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, kOrder>, 0,
                        Eigen::OuterStride<>>;
using Eigen::ColMajor;
using Eigen::RowMajor;

// EigenProduct of the operands viewed in their storage orders.
template <typename T, int kLhsOrder, int kRhsOrder>
void ViewsProduct(int rows, int cols, int depth, T alpha, const T* a, int64_t lda, const T* b,
                  int64_t ldb, T* c, int64_t ldc, bool accumulate, const T* bias, const T* addend,
                  int64_t ld_addend) {
  Eigen::Map<Matrix<T>, 0, Eigen::OuterStride<>> out(c, rows, cols, Eigen::OuterStride<>(ldc));
  EigenProduct(View<T, kLhsOrder>(a, rows, depth, Eigen::OuterStride<>(lda)),
               View<T, kRhsOrder>(b, depth, cols, Eigen::OuterStride<>(ldb)), out, accumulate,
               alpha, bias, addend, ld_addend);
}

}  // namespace

namespace product_internal {

void ShapeMismatch(int64_t lhs_rows, int64_t lhs_cols, int64_t rhs_rows, int64_t rhs_cols,
                   int64_t out_rows, int64_t out_cols) {
  std::fprintf(stderr,
               "attnlab internal error: Product of a %lld x %lld and a %lld x %lld matrix into a "
               "%lld x %lld one\n",
               (long long)lhs_rows, (long long)lhs_cols, (long long)rhs_rows, (long long)rhs_cols,
               (long long)out_rows, (long long)out_cols);
  std::abort();
}

}  // namespace product_internal

template <typename T>
void StridedProduct(int rows, int cols, int depth, T alpha, const T* a, int64_t lda,
                    bool a_row_major, const T* b, int64_t ldb, bool b_row_major, T* c, int64_t ldc,
                    bool accumulate, const T* bias, const T* addend, int64_t ld_addend) {
  if (rows == 0 || cols == 0 || depth == 0 ||
      (!b_row_major && int64_t(depth) * cols > kMaxCopiedRhs)) {
    // Nothing to multiply, or a transposed rhs too large to copy (the LM's vocabulary matrix).
    auto views = a_row_major ? (b_row_major ? ViewsProduct<T, RowMajor, RowMajor>
                                            : ViewsProduct<T, RowMajor, ColMajor>)
                             : (b_row_major ? ViewsProduct<T, ColMajor, RowMajor>
                                            : ViewsProduct<T, ColMajor, ColMajor>);
    views(rows, cols, depth, alpha, a, lda, b, ldb, c, ldc, accumulate, bias, addend, ld_addend);
    return;
  }
  const int64_t a_row = a_row_major ? lda : 1;
  const int64_t a_col = a_row_major ? 1 : lda;
  if (!b_row_major) {
    const auto copy = PaddedCopy(View<T, ColMajor>(b, depth, cols, Eigen::OuterStride<>(ldb)),
                                 ThreadBuffer<T, 0>::Get().values);
    if (FloatLibraryProduct<T>(rows, cols, depth, alpha, a, a_row, a_col, copy.data(), copy.cols(),
                               c, ldc, accumulate, bias, addend, ld_addend)) {
      return;
    }
    TiledProduct<T>(rows, cols, depth, alpha, a, a_row, a_col, copy.data(), copy.cols(), c, ldc,
                    accumulate, bias, addend, ld_addend);
    return;
  }
  if (FloatLibraryProduct<T>(rows, cols, depth, alpha, a, a_row, a_col, b, ldb, c, ldc, accumulate,
                             bias, addend, ld_addend)) {
    return;
  }
  // TiledProduct reads a row-major rhs in place, but for the columns past its last whole
  // packet (which it may not have memory for).
  const int full = cols - cols % kPacketSize<T>;
  if (full > 0) {
    TiledProduct<T>(rows, full, depth, alpha, a, a_row, a_col, b, ldb, c, ldc, accumulate, bias,
                    addend, ld_addend);
  }
  if (full < cols) {
    const auto copy =
        PaddedCopy(View<T, RowMajor>(b + full, depth, cols - full, Eigen::OuterStride<>(ldb)),
                   ThreadBuffer<T, 0>::Get().values);
    TiledProduct<T>(rows, cols - full, depth, alpha, a, a_row, a_col, copy.data(), copy.cols(),
                    c + full, ldc, accumulate, bias == nullptr ? nullptr : bias + full,
                    addend == nullptr ? nullptr : addend + full, ld_addend);
  }
}

template void StridedProduct<float>(int, int, int, float, const float*, int64_t, bool, const float*,
                                    int64_t, bool, float*, int64_t, bool, const float*,
                                    const float*, int64_t);
template void StridedProduct<double>(int, int, int, double, const double*, int64_t, bool,
                                     const double*, int64_t, bool, double*, int64_t, bool,
                                     const double*, const double*, int64_t);

}  // namespace attnlab
