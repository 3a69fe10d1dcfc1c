// Runs many trials on one thread budget.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_SIDE_BY_SIDE_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_SIDE_BY_SIDE_H_

#include <functional>

namespace attnlab {

// Calls item(k) for every k in [0, n) on `threads` threads, each item a task of its own. A
// thread that runs out of items starts one that no thread has started before it helps a running
// item's parallel loops: one thread per trial computes more per second than two on one trial.
// While an item waits for its own parallel loops, its thread does not start another item.
void ForEachSideBySide(int threads, int n, const std::function<void(int)>& item);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_SIDE_BY_SIDE_H_
