#include "solvers/normalized_gd.h"

#include <cmath>

namespace attnlab {

template <typename T>
void NormalizedGdOptimizer<T>::Apply(const std::vector<Parameter<T>*>& params, T lr,
                                     ExecContext& /*ctx*/) {
  const T eps = static_cast<T>(config_.eps());
  T global_norm = 0;
  if (config_.normalization() == NormalizedGradientDescent::GLOBAL) {
    for (const Parameter<T>* p : params) {
      if (!p->frozen) global_norm += p->grad.squaredNorm();
    }
    global_norm = std::sqrt(global_norm);
  }
  for (Parameter<T>* p : params) {
    if (p->frozen) continue;
    const T norm =
        config_.normalization() == NormalizedGradientDescent::GLOBAL ? global_norm : p->grad.norm();
    if (norm + eps == 0) continue;  // no direction to follow
    p->value -= (lr / (norm + eps)) * p->grad;
  }
}

template class NormalizedGdOptimizer<float>;
template class NormalizedGdOptimizer<double>;

}  // namespace attnlab
