// Gradient descent with optional momentum and L2 weight decay (`gd` is the plain case).
#ifndef ATTNLAB_SOLVERS_SGD_H_
#define ATTNLAB_SOLVERS_SGD_H_

#include <vector>

#include "solvers/optimizer.h"

namespace attnlab {

template <typename T>
class SgdOptimizer : public Optimizer<T> {
 public:
  SgdOptimizer(const OptimizerSpec& spec, const Sgd& config)
      : Optimizer<T>(spec), config_(config) {}
  void SaveState(StateWriter* out) const override { this->SaveMatrices(velocity_, out); }
  absl::Status RestoreState(const std::vector<Parameter<T>*>& params, StateReader* in) override {
    return this->RestoreMatrices(params, &velocity_, in);
  }

 protected:
  void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) override;

 private:
  Sgd config_;
  std::vector<Matrix<T>> velocity_;
};

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_SGD_H_
