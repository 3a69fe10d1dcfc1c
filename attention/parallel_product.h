// out = lhs * rhs on the ExecContext's threads, split into blocks of fixed size (128 columns,
// or 256 rows when the output is narrow): every block is the same product whatever the thread
// count, so the result is bit-identical with 1 or N threads (Eigen's own threaded GEMM picks
// its blocking by thread count).
#ifndef ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_
#define ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_

#include <algorithm>

#include "attention/exec_context.h"
#include "attention/parallel.h"

namespace attnlab {

// With accumulate, out += lhs * rhs.
template <typename L, typename R, typename O>
void ParallelProduct(ExecContext& ctx, const L& lhs, const R& rhs, O&& out,
                     bool accumulate = false) {
  constexpr int kColumns = 128, kRows = 256;
  const int cols = static_cast<int>(rhs.cols()), rows = static_cast<int>(lhs.rows());
  if (cols >= 2 * kColumns) {
    const int blocks = (cols + kColumns - 1) / kColumns;
    ParallelFor(ctx, blocks, [&](int begin, int end) {
      for (int block = begin; block < end; ++block) {
        const int col = block * kColumns, width = std::min(kColumns, cols - col);
        if (accumulate) {
          out.middleCols(col, width).noalias() += lhs * rhs.middleCols(col, width);
        } else {
          out.middleCols(col, width).noalias() = lhs * rhs.middleCols(col, width);
        }
      }
    });
    return;
  }
  const int blocks = (rows + kRows - 1) / kRows;
  ParallelFor(ctx, blocks, [&](int begin, int end) {
    for (int block = begin; block < end; ++block) {
      const int row = block * kRows, height = std::min(kRows, rows - row);
      if (accumulate) {
        out.middleRows(row, height).noalias() += lhs.middleRows(row, height) * rhs;
      } else {
        out.middleRows(row, height).noalias() = lhs.middleRows(row, height) * rhs;
      }
    }
  });
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_
