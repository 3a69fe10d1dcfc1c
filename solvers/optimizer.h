// Optimizers update a model's parameters from their gradients. Optimizers are plugins
// (plugins/optimizers/, solvers/optimizer_registry.h), built from their config message and then
// given the spec's learning rate and schedule (OptimizerSpec).
#ifndef ATTNLAB_SOLVERS_OPTIMIZER_H_
#define ATTNLAB_SOLVERS_OPTIMIZER_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/base/state_io.h"
#include "attention/exec_context.h"
#include "attention/kernels/parallel.h"
#include "attention/parameter.h"
#include "solvers/optimizer.pb.h"
#include "solvers/schedule.h"

namespace attnlab {

template <typename T>
class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // The base learning rate and its schedule (null: constant); CreateOptimizer gives the spec's.
  void UseRate(double lr, std::shared_ptr<const Schedule> schedule = nullptr) {
    lr_ = lr;
    schedule_ = std::move(schedule);
  }

  // One update of every parameter that is not frozen, at 0-based step `step`, on ctx's threads
  // (element-wise updates: the result does not depend on the thread count). The parameter list
  // must be the same (same order) at every call: per-parameter state is kept by position.
  void Step(const std::vector<Parameter<T>*>& params, int64_t step, ExecContext& ctx);

  // The learning rate the schedule gives at `step`.
  double LearningRate(int64_t step) const;

  // The optimizer's own state (moments, velocities, step counts) for checkpoints. Restore
  // takes the parameter list Step gets, to check the saved shapes against it.
  virtual void SaveState(StateWriter* /*out*/) const {}
  virtual absl::Status RestoreState(const std::vector<Parameter<T>*>& /*params*/,
                                    StateReader* /*in*/) {
    return absl::OkStatus();
  }

 protected:
  Optimizer() = default;

  // One update with learning rate `lr`.
  virtual void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) = 0;

  // Calls body(start, n) for consecutive blocks of `size` entries, on ctx's threads. Each
  // block's updates run while it is in L1: one pass over memory (an LM's 4M-entry matrices),
  // not one per term of the update.
  template <typename Body>
  static void ForEachBlock(ExecContext& ctx, Eigen::Index size, const Body& body) {
    constexpr int kBlock = 1024;
    const int blocks = static_cast<int>((size + kBlock - 1) / kBlock);
    ParallelFor(ctx, blocks, [&](int begin, int end) {
      for (int block = begin; block < end; ++block) {
        const Eigen::Index start = Eigen::Index{block} * kBlock;
        body(start, std::min<Eigen::Index>(kBlock, size - start));
      }
    }, GrainFor(kBlock));
  }

  // Per-parameter state matrices (empty before the first step), saved and restored.
  static void SaveMatrices(const std::vector<Matrix<T>>& state, StateWriter* out);
  static absl::Status RestoreMatrices(const std::vector<Parameter<T>*>& params,
                                      std::vector<Matrix<T>>* state, StateReader* in);

 private:
  double lr_ = 0;
  std::shared_ptr<const Schedule> schedule_;
};

// The optimizer plugin the spec names, with its learning rate and schedule. Errors are
// FieldErrors relative to the OptimizerSpec.
template <typename T>
absl::StatusOr<std::unique_ptr<Optimizer<T>>> CreateOptimizer(const OptimizerSpec& spec);

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_OPTIMIZER_H_
