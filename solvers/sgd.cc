#include "solvers/sgd.h"

namespace attnlab {

template <typename T>
void SgdOptimizer<T>::Apply(const std::vector<Parameter<T>*>& params, T lr) {
  const T momentum = static_cast<T>(config_.momentum());
  const T decay = static_cast<T>(config_.weight_decay());
  if (momentum != 0 && velocity_.empty()) {
    for (Parameter<T>* p : params) velocity_.push_back(Matrix<T>::Zero(p->value.rows(), p->value.cols()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    Parameter<T>& p = *params[i];
    if (p.frozen) continue;
    if (decay != 0) p.grad += decay * p.value;
    if (momentum == 0) {
      p.value -= lr * p.grad;
      continue;
    }
    Matrix<T>& v = velocity_[i];
    v = momentum * v + p.grad;
    if (config_.nesterov()) {
      p.value -= lr * (p.grad + momentum * v);
    } else {
      p.value -= lr * v;
    }
  }
}

template class SgdOptimizer<float>;
template class SgdOptimizer<double>;

}  // namespace attnlab
