#include "plugins/optimizers/normalized_gd/normalized_gd.h"

#include <cmath>

#include "attention/base/field_error.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<NormalizedGdOptimizer<T>>> NormalizedGdOptimizer<T>::Create(
    const plugins::NormalizedGdConfig& config) {
  if (!(config.eps() >= 0) || !std::isfinite(config.eps())) {
    return FieldError("eps", "must be a finite number >= 0");
  }
  return std::unique_ptr<NormalizedGdOptimizer<T>>(new NormalizedGdOptimizer<T>(config));
}

template <typename T>
void NormalizedGdOptimizer<T>::Apply(const std::vector<Parameter<T>*>& params, T lr,
                                     ExecContext& /*ctx*/) {
  const T eps = static_cast<T>(config_.eps());
  T global_norm = 0;
  if (config_.normalization() == plugins::NormalizedGdConfig::GLOBAL) {
    for (const Parameter<T>* p : params) {
      if (!p->frozen) global_norm += p->grad.squaredNorm();
    }
    global_norm = std::sqrt(global_norm);
  }
  for (Parameter<T>* p : params) {
    if (p->frozen) continue;
    const T norm = config_.normalization() == plugins::NormalizedGdConfig::GLOBAL ? global_norm
                                                                                  : p->grad.norm();
    if (norm + eps == 0) continue;  // no direction to follow
    p->value -= (lr / (norm + eps)) * p->grad;
  }
}

template class NormalizedGdOptimizer<float>;
template class NormalizedGdOptimizer<double>;

ATTNLAB_REGISTER_OPTIMIZER("normalized_gd", plugins::NormalizedGdConfig, NormalizedGdOptimizer,
                           "normalized gradient descent: x -= lr g / (||g|| + eps), per parameter "
                           "or over all (paper 1)",
                           {"normalization: GLOBAL", "eps: 1e-9"});

}  // namespace attnlab
