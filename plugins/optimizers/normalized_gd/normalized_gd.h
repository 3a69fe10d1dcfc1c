// The `normalized_gd` optimizer: x <- x - lr * g / (||g|| + eps), per parameter or globally.
// Paper 1 uses it: with a normalized step ||p|| grows linearly and the direction of p converges
// to the max-margin solution fast; plain GD's ||p|| grows only logarithmically.
#ifndef ATTNLAB_PLUGINS_OPTIMIZERS_NORMALIZED_GD_NORMALIZED_GD_H_
#define ATTNLAB_PLUGINS_OPTIMIZERS_NORMALIZED_GD_NORMALIZED_GD_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/optimizers/normalized_gd/normalized_gd.pb.h"
#include "solvers/optimizer_registry.h"

namespace attnlab {

template <typename T>
class NormalizedGdOptimizer : public Optimizer<T> {
 public:
  static absl::StatusOr<std::unique_ptr<NormalizedGdOptimizer<T>>> Create(
      const plugins::NormalizedGdConfig& config);

 protected:
  void Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) override;

 private:
  explicit NormalizedGdOptimizer(plugins::NormalizedGdConfig config) : config_(std::move(config)) {}

  plugins::NormalizedGdConfig config_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_OPTIMIZERS_NORMALIZED_GD_NORMALIZED_GD_H_
