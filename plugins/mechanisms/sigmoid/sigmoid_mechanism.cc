#include "plugins/mechanisms/sigmoid/sigmoid_mechanism.h"

#include <cmath>

#include "attention/base/field_error.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<SigmoidMechanism<T>>> SigmoidMechanism<T>::Create(
    const Config& config) {
  auto mechanism = std::make_unique<SigmoidMechanism<T>>();
  if (config.has_bias()) {
    if (!std::isfinite(config.bias())) return FieldError("bias", "must be finite");
    mechanism->bias_ = static_cast<T>(config.bias());
  }
  return mechanism;
}

template <typename T>
void SigmoidMechanism<T>::Map(HeadBlock<T> scores, HeadBlock<T>) const {
  const T bias = bias_ ? *bias_ : -std::log(static_cast<T>(scores.cols()));
  // 1 / (1 + e^-(s + b)): masked scores (-infinity) give e^inf = inf and weight 0.
  scores = (T(1) + (-(scores.array() + bias)).exp()).inverse();
}

template <typename T>
void SigmoidMechanism<T>::MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>,
                                      HeadBlock<T> grad) const {
  grad.array() *= weights.array() * (T(1) - weights.array());
}

template class SigmoidMechanism<float>;
template class SigmoidMechanism<double>;

ATTNLAB_REGISTER_MECHANISM("sigmoid", plugins::SigmoidConfig, SigmoidMechanism,
                           "weights sigmoid(scale Q K^T + b), b = -log T by default; rows need "
                           "not sum to 1",
                           {"bias: 0", "bias: -1.5"});

}  // namespace attnlab
