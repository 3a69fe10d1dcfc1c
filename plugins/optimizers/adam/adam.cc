#include "plugins/optimizers/adam/adam.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"

namespace attnlab {

template <typename T>
absl::Status AdamOptimizer<T>::Check(const plugins::AdamConfig& config) {
  for (auto [name, has, value] : {std::tuple{"beta1", config.has_beta1(), config.beta1()},
                                  std::tuple{"beta2", config.has_beta2(), config.beta2()}}) {
    if (has && !(value >= 0 && value < 1)) {
      return FieldError(name, absl::StrCat("must be in [0, 1), got ", value));
    }
  }
  if (config.has_eps() && !(config.eps() > 0)) return FieldError("eps", "must be > 0");
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<std::unique_ptr<AdamOptimizer<T>>> AdamOptimizer<T>::Create(
    const plugins::AdamConfig& config) {
  RETURN_IF_ERROR(Check(config));
  return std::unique_ptr<AdamOptimizer<T>>(new AdamOptimizer<T>(config, false));
}

template <typename T>
absl::StatusOr<std::unique_ptr<AdamWOptimizer<T>>> AdamWOptimizer<T>::Create(
    const plugins::AdamConfig& config) {
  RETURN_IF_ERROR(AdamOptimizer<T>::Check(config));
  return std::unique_ptr<AdamWOptimizer<T>>(new AdamWOptimizer<T>(config));
}

template <typename T>
AdamOptimizer<T>::AdamOptimizer(const plugins::AdamConfig& config, bool decoupled)
    : beta1_(static_cast<T>(config.has_beta1() ? config.beta1() : 0.9)),
      beta2_(static_cast<T>(config.has_beta2() ? config.beta2() : 0.999)),
      eps_(static_cast<T>(config.has_eps() ? config.eps() : 1e-8)),
      weight_decay_(static_cast<T>(config.weight_decay())),
      decoupled_(decoupled) {}

template <typename T>
void AdamOptimizer<T>::Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) {
  if (m_.empty()) {
    for (const Parameter<T>* p : params) {
      m_.push_back(Matrix<T>::Zero(p->value.rows(), p->value.cols()));
      v_.push_back(Matrix<T>::Zero(p->value.rows(), p->value.cols()));
    }
  }
  ++t_;
  const T correction1 = 1 - std::pow(beta1_, static_cast<T>(t_));
  const T correction2 = 1 - std::pow(beta2_, static_cast<T>(t_));
  for (size_t i = 0; i < params.size(); ++i) {
    Parameter<T>& p = *params[i];
    if (p.frozen) continue;
    this->ForEachBlock(ctx, p.value.size(), [&](Eigen::Index start, Eigen::Index n) {
      auto value = Eigen::Map<Vector<T>>(p.value.data() + start, n).array();
      auto grad = Eigen::Map<Vector<T>>(p.grad.data() + start, n).array();
      auto m = Eigen::Map<Vector<T>>(m_[i].data() + start, n).array();
      auto v = Eigen::Map<Vector<T>>(v_[i].data() + start, n).array();
      if (weight_decay_ != 0) {
        if (decoupled_) {
          value *= 1 - lr * weight_decay_;
        } else {
          grad += weight_decay_ * value;
        }
      }
      m = beta1_ * m + (1 - beta1_) * grad;
      v = beta2_ * v + (1 - beta2_) * grad.square();
      value -= (lr / correction1) * m / ((v / correction2).sqrt() + eps_);
    });
  }
}

template <typename T>
void AdamOptimizer<T>::SaveState(StateWriter* out) const {
  out->Int(t_);
  this->SaveMatrices(m_, out);
  this->SaveMatrices(v_, out);
}

template <typename T>
absl::Status AdamOptimizer<T>::RestoreState(const std::vector<Parameter<T>*>& params,
                                            StateReader* in) {
  ASSIGN_OR_RETURN(t_, in->Int());
  RETURN_IF_ERROR(this->RestoreMatrices(params, &m_, in));
  return this->RestoreMatrices(params, &v_, in);
}

template class AdamOptimizer<float>;
template class AdamOptimizer<double>;
template class AdamWOptimizer<float>;
template class AdamWOptimizer<double>;

ATTNLAB_REGISTER_OPTIMIZER("adam", plugins::AdamConfig, AdamOptimizer,
                           "Adam with bias correction; weight_decay adds an L2 penalty to the "
                           "gradient",
                           {"beta2: 0.98 weight_decay: 0.01"});
ATTNLAB_REGISTER_OPTIMIZER("adamw", plugins::AdamConfig, AdamWOptimizer,
                           "AdamW: Adam with decoupled weight decay, x -= lr weight_decay x",
                           {"weight_decay: 0.05"});

}  // namespace attnlab
