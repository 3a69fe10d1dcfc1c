#include "plugins/optimizers/sgd/sgd.h"

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<SgdOptimizer<T>>> SgdOptimizer<T>::Create(
    const plugins::SgdConfig& config) {
  if (!(config.momentum() >= 0 && config.momentum() < 1)) {
    return FieldError("momentum", absl::StrCat("must be in [0, 1), got ", config.momentum()));
  }
  if (config.nesterov() && config.momentum() == 0) {
    return FieldError("nesterov", "needs momentum > 0");
  }
  return std::unique_ptr<SgdOptimizer<T>>(new SgdOptimizer<T>(config));
}

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

ATTNLAB_REGISTER_OPTIMIZER("gd", plugins::GdConfig, GdOptimizer, "gradient descent: x -= lr g", {});
ATTNLAB_REGISTER_OPTIMIZER("sgd", plugins::SgdConfig, SgdOptimizer,
                           "gradient descent with heavy-ball or Nesterov momentum and L2 weight "
                           "decay",
                           {"momentum: 0.9", "momentum: 0.5 nesterov: true weight_decay: 0.01"});

}  // namespace attnlab
