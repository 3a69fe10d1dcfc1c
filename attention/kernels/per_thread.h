// One value per thread of the current TBB arena, kept from call to call: the scratch that a
// layer's ParallelFor bodies reuse step after step without allocating.
#ifndef ATTNLAB_ATTENTION_KERNELS_PER_THREAD_H_
#define ATTNLAB_ATTENTION_KERNELS_PER_THREAD_H_

#include <vector>

#include "tbb/task_arena.h"

namespace attnlab {

template <typename T>
class PerThread {
 public:
  // Call outside the parallel loop: makes room for every thread of the current arena.
  void Prepare() {
    const int threads = tbb::this_task_arena::max_concurrency();
    if (static_cast<int>(slots_.size()) < threads) slots_.resize(threads);
  }
  // Inside the loop: this thread's value. A thread that has not joined an arena yet (index
  // task_arena::not_initialized) runs the loop by itself, serially: it takes slot 0.
  T& Local() {
    const int index = tbb::this_task_arena::current_thread_index();
    return slots_[index < 0 ? 0 : index].value;
  }

 private:
  // Each value on lines of its own: a small value (an Eigen matrix's pointer and sizes, which
  // resize() rewrites) beside another thread's would bounce their cache line between the cores
  // at every write. 128 bytes: the spatial prefetcher fetches lines in pairs.
  struct alignas(128) Slot {
    T value;
  };
  std::vector<Slot> slots_;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PER_THREAD_H_
