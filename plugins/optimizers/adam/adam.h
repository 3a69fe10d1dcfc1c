// The `adam` and `adamw` optimizers: Adam (Kingma & Ba) with bias correction, and AdamW's
// decoupled weight decay (Loshchilov & Hutter).
#ifndef ATTNLAB_PLUGINS_OPTIMIZERS_ADAM_ADAM_H_
#define ATTNLAB_PLUGINS_OPTIMIZERS_ADAM_ADAM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/optimizers/adam/adam.pb.h"
#include "solvers/optimizer_registry.h"

namespace attnlab {

template <typename T>
class AdamOptimizer : public Optimizer<T> {
 public:
  static absl::StatusOr<std::unique_ptr<AdamOptimizer<T>>> Create(
      const plugins::AdamConfig& config);

  void SaveState(StateWriter* out) const override;
  absl::Status RestoreState(const std::vector<Parameter<T>*>& params, StateReader* in) override;

 protected:
  AdamOptimizer(const plugins::AdamConfig& config, bool decoupled);
  // The config's errors, as FieldErrors relative to it.
  static absl::Status Check(const plugins::AdamConfig& config);
  void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) override;

 private:
  T beta1_, beta2_, eps_, weight_decay_;
  bool decoupled_;
  int64_t t_ = 0;
  std::vector<Matrix<T>> m_, v_;
};

// `adamw`: the weight decay decoupled from the gradient's moments.
template <typename T>
class AdamWOptimizer : public AdamOptimizer<T> {
 public:
  static absl::StatusOr<std::unique_ptr<AdamWOptimizer<T>>> Create(
      const plugins::AdamConfig& config);

 private:
  explicit AdamWOptimizer(const plugins::AdamConfig& config) : AdamOptimizer<T>(config, true) {}
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_OPTIMIZERS_ADAM_ADAM_H_
