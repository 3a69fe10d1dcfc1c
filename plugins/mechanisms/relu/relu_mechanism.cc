#include "plugins/mechanisms/relu/relu_mechanism.h"

namespace attnlab {

template <typename T>
void ReluMechanism<T>::Map(HeadBlock<T> scores, HeadBlock<T>) const {
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    scores.row(i) = scores.row(i).cwiseMax(T(0)) * Normalizer(i, scores.cols());
  }
}

template <typename T>
void ReluMechanism<T>::MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>,
                                   HeadBlock<T> grad) const {
  // A weight is positive exactly where its score is (relu's derivative there is 1).
  for (Eigen::Index i = 0; i < grad.rows(); ++i) {
    grad.row(i) = (weights.row(i).array() > T(0))
                      .select(grad.row(i).array() * Normalizer(i, grad.cols()), T(0));
  }
}

template class ReluMechanism<float>;
template class ReluMechanism<double>;

ATTNLAB_REGISTER_MECHANISM("relu", plugins::ReluConfig, ReluMechanism,
                           "weights relu(scale Q K^T) / (number of keys seen)", {});

}  // namespace attnlab
