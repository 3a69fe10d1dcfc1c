// The `sign_gd` optimizer. The template for a new optimizer: a config message, a class deriving
// from Optimizer<T> with Create, Apply and its state for checkpoints, and one
// ATTNLAB_REGISTER_OPTIMIZER line in the .cc.
#ifndef ATTNLAB_PLUGINS_SIGN_GD_SIGN_GD_H_
#define ATTNLAB_PLUGINS_SIGN_GD_SIGN_GD_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/optimizers/sign_gd/sign_gd.pb.h"
#include "solvers/optimizer_registry.h"

namespace attnlab {

template <typename T>
class SignGd : public Optimizer<T> {
 public:
  static absl::StatusOr<std::unique_ptr<SignGd<T>>> Create(const plugins::SignGdConfig& config);

  void SaveState(StateWriter* out) const override { this->SaveMatrices(momentum_, out); }
  absl::Status RestoreState(const std::vector<Parameter<T>*>& params, StateReader* in) override {
    return this->RestoreMatrices(params, &momentum_, in);
  }

 protected:
  void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) override;

 private:
  explicit SignGd(plugins::SignGdConfig config) : config_(std::move(config)) {}

  plugins::SignGdConfig config_;
  // One per parameter, from the first step on (empty before it).
  std::vector<Matrix<T>> momentum_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SIGN_GD_SIGN_GD_H_
