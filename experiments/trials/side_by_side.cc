#include "experiments/trials/side_by_side.h"

#include "tbb/parallel_for.h"
#include "tbb/partitioner.h"
#include "tbb/task_arena.h"

namespace attnlab {

void ForEachSideBySide(int threads, int n, const std::function<void(int)>& item) {
  tbb::task_arena arena(threads);
  arena.execute([&] {
    // The simple partitioner splits down to single items, so every unstarted item can be
    // stolen; the default one runs a chunk of items one after another on one thread.
    tbb::parallel_for(
        0, n, [&](int k) { tbb::this_task_arena::isolate([&] { item(k); }); },
        tbb::simple_partitioner());
  });
}

}  // namespace attnlab
