#include "solvers/sgd.h"

namespace attnlab {

template <typename T>
void SgdOptimizer<T>::Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) {
  const T momentum = static_cast<T>(config_.momentum());
  const T decay = static_cast<T>(config_.weight_decay());
  if (momentum != 0 && velocity_.empty()) {
    for (Parameter<T>* p : params) {
      velocity_.push_back(Matrix<T>::Zero(p->value.rows(), p->value.cols()));
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    Parameter<T>& p = *params[i];
    if (p.frozen) continue;
    this->ForEachBlock(ctx, p.value.size(), [&](Eigen::Index start, Eigen::Index n) {
      auto value = Eigen::Map<Vector<T>>(p.value.data() + start, n).array();
      auto grad = Eigen::Map<Vector<T>>(p.grad.data() + start, n).array();
      if (decay != 0) grad += decay * value;
      if (momentum == 0) {
        value -= lr * grad;
        return;
      }
      auto v = Eigen::Map<Vector<T>>(velocity_[i].data() + start, n).array();
      v = momentum * v + grad;
      if (config_.nesterov()) {
        value -= lr * (grad + momentum * v);
      } else {
        value -= lr * v;
      }
    });
  }
}

template class SgdOptimizer<float>;
template class SgdOptimizer<double>;

}  // namespace attnlab
