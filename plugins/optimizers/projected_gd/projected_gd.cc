#include "plugins/optimizers/projected_gd/projected_gd.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<ProjectedGd<T>>> ProjectedGd<T>::Create(
    const plugins::ProjectedGdConfig& config) {
  if (!(config.radius() > 0 && std::isfinite(config.radius()))) {
    return FieldError("radius", absl::StrCat("must be > 0, got ", config.radius()));
  }
  return std::unique_ptr<ProjectedGd<T>>(new ProjectedGd<T>(config));
}

template <typename T>
void ProjectedGd<T>::Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext&) {
  const T radius = static_cast<T>(config_.radius());
  for (Parameter<T>* p : params) {
    if (p->frozen) continue;
    T step = lr;
    if (config_.normalized()) {
      const T norm = p->grad.norm();
      if (norm == 0) continue;  // a stationary point stays
      step /= norm;
    }
    p->value -= step * p->grad;
    const T norm = p->value.norm();
    if (norm > radius) p->value *= radius / norm;
  }
}

template class ProjectedGd<float>;
template class ProjectedGd<double>;

ATTNLAB_REGISTER_OPTIMIZER("projected_gd", plugins::ProjectedGdConfig, ProjectedGd,
                           "gradient descent projected onto the ball ||x||_F <= radius (paper "
                           "1's regularization path)",
                           {"radius: 2 normalized: true"});

}  // namespace attnlab
