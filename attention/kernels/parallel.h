// Data parallelism inside one trial: a loop over independent items (samples of a batch) run on
// the ExecContext's thread budget. Results must not depend on the split: each item writes only
// its own outputs, and reductions happen afterwards, in a fixed order.
#ifndef ATTNLAB_ATTENTION_KERNELS_PARALLEL_H_
#define ATTNLAB_ATTENTION_KERNELS_PARALLEL_H_

#include "attention/exec_context.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace attnlab {

// Calls body(begin, end) over disjoint ranges covering [0, n), in the current TBB arena. The
// body is taken as it is, not as a std::function (which allocates for a lambda that captures
// more than two pointers, at every call of every step).
template <typename Body>
void ParallelFor(ExecContext& ctx, int n, const Body& body) {
  if (ctx.threads() <= 1 || n <= 1) {
    body(0, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int>(0, n),
                    [&](const tbb::blocked_range<int>& r) { body(r.begin(), r.end()); });
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PARALLEL_H_
