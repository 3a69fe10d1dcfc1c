// out = lhs * rhs on the ExecContext's threads, split into column blocks of a fixed width: every
// block is the same product whatever the thread count, so the result is bit-identical with 1
// or N threads (Eigen's own threaded GEMM picks its blocking by thread count).
#ifndef ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_
#define ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_

#include <algorithm>

#include "attention/exec_context.h"
#include "attention/parallel.h"

namespace attnlab {

template <typename L, typename R, typename O>
void ParallelProduct(ExecContext& ctx, const L& lhs, const R& rhs, O&& out) {
  constexpr int kBlock = 128;
  const int cols = static_cast<int>(rhs.cols());
  const int blocks = (cols + kBlock - 1) / kBlock;
  ParallelFor(ctx, blocks, [&](int begin, int end) {
    for (int block = begin; block < end; ++block) {
      const int col = block * kBlock, width = std::min(kBlock, cols - col);
      out.middleCols(col, width).noalias() = lhs * rhs.middleCols(col, width);
    }
  });
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_PARALLEL_PRODUCT_H_
