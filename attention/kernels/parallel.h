// Data parallelism inside one trial: a loop over independent items (samples of a batch) run on
// the ExecContext's thread budget. Results must not depend on the split: each item writes only
// its own outputs, and reductions happen afterwards, in a fixed order.
#ifndef ATTNLAB_ATTENTION_KERNELS_PARALLEL_H_
#define ATTNLAB_ATTENTION_KERNELS_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "attention/exec_context.h"
#include "attention/kernels/subnormal_mode.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "tbb/partitioner.h"

namespace attnlab {

// Calls body(begin, end) over disjoint ranges covering [0, n), in the current TBB arena, each
// of at least half a `grain` of items (TBB splits a range while it holds more than a grain;
// n <= grain: on the calling thread alone), every range in the calling thread's subnormal mode
// (so the bits do not depend on which thread ran it). The body is taken as it is, not as a
// std::function (which allocates for a lambda that captures more than two pointers, at every
// call of every step).
template <typename Body>
void ParallelFor(ExecContext& ctx, int n, const Body& body, int grain = 1) {
  if (ctx.threads() <= 1 || n <= std::max(grain, 1)) {
    body(0, n);
    return;
  }
  const bool flush_subnormals = FlushesSubnormals();
  tbb::parallel_for(tbb::blocked_range<int>(0, n, std::max(grain, 1)),
                    [&](const tbb::blocked_range<int>& r) {
                      ScopedSubnormalMode mode(flush_subnormals);
                      body(r.begin(), r.end());
                    });
}

// As ParallelFor, but in runs of consecutive items handed out in order, largest first: each
// thread takes the next run of (items left) / (2 threads), at least `grain`, when it is free
// (OpenMP's guided schedule). For a loop that streams its items from memory and prefetches the
// next item as it computes one: long runs keep the streams going (a stolen TBB task restarts
// one cold mid-range), and a thread that starts late (a TBB worker waking takes tens of
// microseconds) or runs slower takes fewer runs, so both finish within one small run.
template <typename Body>
void ParallelForGuided(ExecContext& ctx, int n, const Body& body, int grain = 1) {
  grain = std::max(grain, 1);
  const int threads = std::min(ctx.threads(), n / grain);
  if (threads <= 1) {
    body(0, n);
    return;
  }
  const bool flush_subnormals = FlushesSubnormals();
  std::atomic<int> next{0};
  tbb::parallel_for(0, threads, [&](int) {
    ScopedSubnormalMode mode(flush_subnormals);
    int begin = next.load(std::memory_order_relaxed);
    while (begin < n) {
      const int size = std::min(n - begin, std::max(grain, (n - begin) / (2 * threads)));
      if (!next.compare_exchange_weak(begin, begin + size, std::memory_order_relaxed)) continue;
      body(begin, begin + size);
      begin = next.load(std::memory_order_relaxed);
    }
  }, tbb::static_partitioner());
}

// The grain for items of `elements` values each: a task of fewer than about 32K values costs
// less to run than to hand to another thread (PyTorch's at::parallel_for uses the same size).
inline int GrainFor(int64_t elements) {
  constexpr int64_t kTaskElements = 32768;
  return static_cast<int>(std::max<int64_t>(1, kTaskElements / std::max<int64_t>(1, elements)));
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PARALLEL_H_
