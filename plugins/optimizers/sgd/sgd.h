// The `gd` and `sgd` optimizers: gradient descent with optional momentum and L2 weight decay
// (`gd` is the plain case).
#ifndef ATTNLAB_PLUGINS_OPTIMIZERS_SGD_SGD_H_
#define ATTNLAB_PLUGINS_OPTIMIZERS_SGD_SGD_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/optimizers/sgd/sgd.pb.h"
#include "solvers/optimizer_registry.h"

namespace attnlab {

template <typename T>
class SgdOptimizer : public Optimizer<T> {
 public:
  static absl::StatusOr<std::unique_ptr<SgdOptimizer<T>>> Create(const plugins::SgdConfig& config);

  void SaveState(StateWriter* out) const override { this->SaveMatrices(velocity_, out); }
  absl::Status RestoreState(const std::vector<Parameter<T>*>& params, StateReader* in) override {
    return this->RestoreMatrices(params, &velocity_, in);
  }

 protected:
  explicit SgdOptimizer(plugins::SgdConfig config) : config_(std::move(config)) {}
  void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) override;

 private:
  plugins::SgdConfig config_;
  std::vector<Matrix<T>> velocity_;
};

// `gd`: SgdOptimizer without momentum or decay.
template <typename T>
class GdOptimizer : public SgdOptimizer<T> {
 public:
  static absl::StatusOr<std::unique_ptr<GdOptimizer<T>>> Create(const plugins::GdConfig&) {
    return std::unique_ptr<GdOptimizer<T>>(new GdOptimizer<T>());
  }

 private:
  GdOptimizer() : SgdOptimizer<T>(plugins::SgdConfig()) {}
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_OPTIMIZERS_SGD_SGD_H_
