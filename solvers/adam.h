// Adam (Kingma & Ba) with bias correction; AdamW's decoupled weight decay when `decoupled`.
#ifndef ATTNLAB_SOLVERS_ADAM_H_
#define ATTNLAB_SOLVERS_ADAM_H_

#include <cstdint>
#include <vector>

#include "solvers/optimizer.h"

namespace attnlab {

template <typename T>
class AdamOptimizer : public Optimizer<T> {
 public:
  AdamOptimizer(const OptimizerSpec& spec, const Adam& config, bool decoupled);
  void SaveState(StateWriter* out) const override;
  absl::Status RestoreState(const std::vector<Parameter<T>*>& params, StateReader* in) override;

 protected:
  void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) override;

 private:
  T beta1_, beta2_, eps_, weight_decay_;
  bool decoupled_;
  int64_t t_ = 0;
  std::vector<Matrix<T>> m_, v_;
};

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_ADAM_H_
