// Everything a layer may need besides its inputs and parameters, passed explicitly: the random
// stream, the thread budget and whether we are training. There is no hidden global state, so a
// trial's result depends only on its spec and seed.
#ifndef ATTNLAB_ATTENTION_EXEC_CONTEXT_H_
#define ATTNLAB_ATTENTION_EXEC_CONTEXT_H_

#include <cstdint>
#include <random>
#include <sstream>
#include <string>

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

  // The random stream's exact state (the engine and the normal sampler's cached value), for
  // checkpoints; SetRandomState returns false on text RandomState did not write.
  std::string RandomState() const {
    std::ostringstream out;
    out << rng_ << ' ' << normal_;
    return out.str();
  }
  bool SetRandomState(const std::string& state) {
    std::istringstream in(state);
    in >> rng_ >> normal_;
    return !in.fail();
  }

  // Whether data-parallel loops may use threads (ParallelFor). They run in the caller's TBB
  // arena: the runner executes a whole sweep inside one arena of --threads threads, so trials
  // running side by side and the loops inside them share that budget.
  int threads() const { return threads_; }
  bool training() const { return training_; }
  void set_training(bool training) { training_ = training; }
  // Whether layers with a CUDA path use it (ModelSpec.device: CUDA, checked by Model::Create).
  bool cuda() const { return cuda_; }
  void set_cuda(bool cuda) { cuda_ = cuda; }

 private:
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_;
  int threads_;
  bool training_ = true;
  bool cuda_ = false;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_EXEC_CONTEXT_H_
