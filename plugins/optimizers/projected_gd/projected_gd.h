// The `projected_gd` optimizer: gradient descent projected onto a norm ball (paper 1's
// regularization path).
#ifndef ATTNLAB_PLUGINS_OPTIMIZERS_PROJECTED_GD_PROJECTED_GD_H_
#define ATTNLAB_PLUGINS_OPTIMIZERS_PROJECTED_GD_PROJECTED_GD_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/optimizers/projected_gd/projected_gd.pb.h"
#include "solvers/optimizer_registry.h"

namespace attnlab {

template <typename T>
class ProjectedGd : public Optimizer<T> {
 public:
  static absl::StatusOr<std::unique_ptr<ProjectedGd<T>>> Create(
      const plugins::ProjectedGdConfig& config);

  // Stateless: nothing to checkpoint.
  void SaveState(StateWriter*) const override {}
  absl::Status RestoreState(const std::vector<Parameter<T>*>&, StateReader*) override {
    return absl::OkStatus();
  }

 protected:
  void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) override;

 private:
  explicit ProjectedGd(plugins::ProjectedGdConfig config) : config_(std::move(config)) {}

  plugins::ProjectedGdConfig config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_OPTIMIZERS_PROJECTED_GD_PROJECTED_GD_H_
