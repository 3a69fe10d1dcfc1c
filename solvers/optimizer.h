// Optimizers update a model's parameters from their gradients. Which one, and its schedule, are
// data in the spec (OptimizerSpec).
#ifndef ATTNLAB_SOLVERS_OPTIMIZER_H_
#define ATTNLAB_SOLVERS_OPTIMIZER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/parameter.h"
#include "attention/base/state_io.h"
#include "solvers/optimizer.pb.h"

namespace attnlab {

template <typename T>
class Optimizer {
 public:
  explicit Optimizer(const OptimizerSpec& spec) : spec_(spec) {}
  virtual ~Optimizer() = default;

  // One update of every parameter that is not frozen, at 0-based step `step`. The parameter list
  // must be the same (same order) at every call: per-parameter state is kept by position.
  void Step(const std::vector<Parameter<T>*>& params, int64_t step);

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
  virtual void Apply(const std::vector<Parameter<T>*>& params, T lr) = 0;

  // Per-parameter state matrices (empty before the first step), saved and restored.
  static void SaveMatrices(const std::vector<Matrix<T>>& state, StateWriter* out);
  static absl::Status RestoreMatrices(const std::vector<Parameter<T>*>& params,
                                      std::vector<Matrix<T>>* state, StateReader* in);

 private:
  OptimizerSpec spec_;
};

// Errors are FieldErrors relative to the OptimizerSpec.
template <typename T>
absl::StatusOr<std::unique_ptr<Optimizer<T>>> CreateOptimizer(const OptimizerSpec& spec);

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_OPTIMIZER_H_
