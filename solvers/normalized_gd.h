// Normalized gradient descent, x <- x - lr * g / (||g|| + eps), per parameter or globally.
// Paper 1 uses it: with a normalized step ||p|| grows linearly and the direction of p converges
// to the max-margin solution fast; plain GD's ||p|| grows only logarithmically.
#ifndef ATTNLAB_SOLVERS_NORMALIZED_GD_H_
#define ATTNLAB_SOLVERS_NORMALIZED_GD_H_

#include <vector>

#include "solvers/optimizer.h"

namespace attnlab {

template <typename T>
class NormalizedGdOptimizer : public Optimizer<T> {
 public:
  NormalizedGdOptimizer(const OptimizerSpec& spec, const NormalizedGradientDescent& config)
      : Optimizer<T>(spec), config_(config) {}

 protected:
  void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) override;

 private:
  NormalizedGradientDescent config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_NORMALIZED_GD_H_
