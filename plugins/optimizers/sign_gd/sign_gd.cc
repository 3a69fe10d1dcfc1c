#include "plugins/optimizers/sign_gd/sign_gd.h"

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<SignGd<T>>> SignGd<T>::Create(const plugins::SignGdConfig& config) {
  if (!(config.momentum() >= 0 && config.momentum() < 1)) {
    return FieldError("momentum", absl::StrCat("must be in [0, 1), got ", config.momentum()));
  }
  return std::unique_ptr<SignGd<T>>(new SignGd<T>(config));
}

template <typename T>
void SignGd<T>::Apply(const std::vector<Parameter<T>*>& params, T lr, ExecContext& ctx) {
  if (momentum_.empty()) {
    for (const Parameter<T>* p : params) {
      momentum_.push_back(Matrix<T>::Zero(p->value.rows(), p->value.cols()));
    }
  }
  const T beta = static_cast<T>(config_.momentum());
  for (size_t k = 0; k < params.size(); ++k) {
    Parameter<T>& p = *params[k];
    if (p.frozen) continue;
    T* x = p.value.data();
    T* m = momentum_[k].data();
    const T* g = p.grad.data();
    this->ForEachBlock(ctx, p.value.size(), [&](Eigen::Index start, Eigen::Index n) {
      for (Eigen::Index i = start; i < start + n; ++i) {
        m[i] = beta * m[i] + (1 - beta) * g[i];
        x[i] -= lr * static_cast<T>((m[i] > 0) - (m[i] < 0));
      }
    });
  }
}

template class SignGd<float>;
template class SignGd<double>;

ATTNLAB_REGISTER_OPTIMIZER("sign_gd", plugins::SignGdConfig, SignGd,
                           "sign descent with momentum (signSGD / Signum): x -= lr sign(m)",
                           {"momentum: 0.9"});

}  // namespace attnlab
