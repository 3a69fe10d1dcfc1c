// out = lhs * rhs on the ExecContext's threads, split into blocks of fixed size (128 columns,
// or 256 rows when the output is narrow): every block is the same product whatever the thread
// count, so the result is bit-identical with 1 or N threads (Eigen's own threaded GEMM picks
// its blocking by thread count). Each block is a Product (attention/product.h).
#ifndef ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_
#define ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_

#include <algorithm>

#include "attention/exec_context.h"
#include "attention/parallel.h"
#include "attention/product.h"

namespace attnlab {

// With accumulate, out += lhs * rhs.
template <typename L, typename R, typename O>
void ParallelProduct(ExecContext& ctx, const L& lhs, const R& rhs, O&& out,
                     bool accumulate = false) {
  constexpr int kColumns = 128, kRows = 256;
  const int cols = static_cast<int>(rhs.cols()), rows = static_cast<int>(lhs.rows());
  if constexpr (product_internal::CopiedRhs<R>()) {
    // A transposed weight matrix is copied row-major once here, not once per block.
    using Buffer = product_internal::ThreadBuffer<typename R::Scalar, 1>;
    Buffer& buffer = Buffer::Get();
    if (rows > kRows && cols < 2 * kColumns && rhs.size() <= product_internal::kMaxCopiedRhs &&
        !buffer.in_use) {
      const auto copy = product_internal::PaddedCopy(rhs, buffer.values);
      buffer.in_use = true;
      ParallelProduct(ctx, lhs, copy.leftCols(cols), out, accumulate);
      buffer.in_use = false;
      return;
    }
  }
  if (cols >= 2 * kColumns) {
    const int blocks = (cols + kColumns - 1) / kColumns;
    ParallelFor(ctx, blocks, [&](int begin, int end) {
      for (int block = begin; block < end; ++block) {
        const int col = block * kColumns, width = std::min(kColumns, cols - col);
        Product(lhs, rhs.middleCols(col, width), out.middleCols(col, width), accumulate);
      }
    });
    return;
  }
  const int blocks = (rows + kRows - 1) / kRows;
  ParallelFor(ctx, blocks, [&](int begin, int end) {
    for (int block = begin; block < end; ++block) {
      const int row = block * kRows, height = std::min(kRows, rows - row);
      Product(lhs.middleRows(row, height), rhs, out.middleRows(row, height), accumulate);
    }
  });
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_
