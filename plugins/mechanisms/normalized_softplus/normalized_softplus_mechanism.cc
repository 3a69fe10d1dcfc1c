#include "plugins/mechanisms/normalized_softplus/normalized_softplus_mechanism.h"

#include <cmath>

namespace attnlab {

template <typename T>
void NormalizedSoftplusMechanism<T>::Map(HeadBlock<T> scores, HeadBlock<T> state) const {
  // log(1 + e^s) = max(s, 0) + log1p(e^-|s|): no overflow; a masked score (-infinity) gives 0.
  scores = scores.cwiseMax(T(0)) + (-scores.cwiseAbs()).array().exp().log1p().matrix();
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const T sum = scores.row(i).sum();
    state(i, 0) = sum;
    if (sum > 0) scores.row(i) /= sum;
  }
}

template <typename T>
void NormalizedSoftplusMechanism<T>::MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T> state,
                                                 HeadBlock<T> grad) const {
  for (Eigen::Index i = 0; i < grad.rows(); ++i) {
    const T sum = state(i, 0);
    if (!(sum > 0)) {
      grad.row(i).setZero();
      continue;
    }
    const T mean = weights.row(i).dot(grad.row(i));
    // sigmoid(s_j) = 1 - e^(-softplus(s_j)) = -expm1(-w_j Z)
    grad.row(i) =
        (-(-sum * weights.row(i).array()).expm1() * (grad.row(i).array() - mean) / sum).matrix();
  }
}

template class NormalizedSoftplusMechanism<float>;
template class NormalizedSoftplusMechanism<double>;

ATTNLAB_REGISTER_MECHANISM("normalized_softplus", plugins::NormalizedSoftplusConfig,
                           NormalizedSoftplusMechanism,
                           "weights softplus(scale Q K^T) / their row sum: rows sum to 1, "
                           "linear growth in the scores",
                           {});

}  // namespace attnlab
