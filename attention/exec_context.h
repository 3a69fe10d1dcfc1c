// Everything a layer may need besides its inputs and parameters, passed explicitly: the random
// stream, the thread budget (and its TBB arena) and whether we are training. There is no hidden global state, so a
// trial's result depends only on its spec and seed.
#ifndef ATTNLAB_ATTENTION_EXEC_CONTEXT_H_
#define ATTNLAB_ATTENTION_EXEC_CONTEXT_H_

#include <cstdint>
#include <memory>
#include <random>

#include "tbb/task_arena.h"

namespace attnlab {

class ExecContext {
 public:
  explicit ExecContext(uint64_t seed, int threads = 1) : rng_(seed), threads_(threads) {}

  // std::mt19937_64, not absl::BitGen: BitGen is salted per process and not reproducible.
  std::mt19937_64& rng() { return rng_; }
  void Reseed(uint64_t seed) {
    rng_.seed(seed);
    normal_.reset();  // drop the cached second Box-Muller value
  }
  double Normal() { return normal_(rng_); }

  int threads() const { return threads_; }
  // A TBB arena of threads() threads, so nested parallel loops never oversubscribe.
  tbb::task_arena& arena() {
    if (!arena_) arena_ = std::make_unique<tbb::task_arena>(threads_);
    return *arena_;
  }
  bool training() const { return training_; }
  void set_training(bool training) { training_ = training; }

 private:
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_;
  int threads_;
  std::unique_ptr<tbb::task_arena> arena_;
  bool training_ = true;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_EXEC_CONTEXT_H_
