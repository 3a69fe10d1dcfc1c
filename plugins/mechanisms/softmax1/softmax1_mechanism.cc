#include "plugins/mechanisms/softmax1/softmax1_mechanism.h"

#include <algorithm>

namespace attnlab {

template <typename T>
void Softmax1Mechanism<T>::Map(HeadBlock<T> scores, HeadBlock<T>) const {
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    auto row = scores.row(i);
    // Shifted by the largest score, the extra zero score included: no overflow.
    const T shift = std::max(T(0), row.maxCoeff());
    row = (row.array() - shift).exp();
    row /= std::exp(-shift) + row.sum();
  }
}

template <typename T>
void Softmax1Mechanism<T>::MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>,
                                       HeadBlock<T> grad) const {
  for (Eigen::Index i = 0; i < grad.rows(); ++i) {
    const T mean = weights.row(i).dot(grad.row(i));
    grad.row(i) = weights.row(i).array() * (grad.row(i).array() - mean);
  }
}

template class Softmax1Mechanism<float>;
template class Softmax1Mechanism<double>;

ATTNLAB_REGISTER_MECHANISM("softmax1", plugins::Softmax1Config, Softmax1Mechanism,
                           "weights e^s / (1 + sum e^s): softmax that may attend to nothing "
                           "(rows sum to < 1)",
                           {});

}  // namespace attnlab
