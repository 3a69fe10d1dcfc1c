#include "plugins/mechanisms/sparsemax/sparsemax_mechanism.h"

#include <algorithm>
#include <functional>
#include <vector>

namespace attnlab {

template <typename T>
void SparsemaxMechanism<T>::Map(HeadBlock<T> scores, HeadBlock<T>) const {
  std::vector<T> sorted(scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    auto z = scores.row(i);
    for (Eigen::Index j = 0; j < z.size(); ++j) sorted[j] = z(j);
    std::sort(sorted.begin(), sorted.end(), std::greater<T>());
    // The support is the k largest, k the last with 1 + k z_(k) > z_(1) + ... + z_(k);
    // masked scores (-infinity) never qualify.
    T prefix = 0, threshold = 0;
    for (size_t k = 0; k < sorted.size(); ++k) {
      if (T(1) + T(k + 1) * sorted[k] <= prefix + sorted[k]) break;
      prefix += sorted[k];
      threshold = (prefix - T(1)) / T(k + 1);
    }
    z = (z.array() - threshold).cwiseMax(T(0));
  }
}

template <typename T>
void SparsemaxMechanism<T>::MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>,
                                        HeadBlock<T> grad) const {
  for (Eigen::Index i = 0; i < grad.rows(); ++i) {
    const auto in_support = weights.row(i).array() > T(0);
    const T count = static_cast<T>(in_support.count());
    const T mean = in_support.select(grad.row(i).array(), T(0)).sum() / count;
    grad.row(i) = in_support.select(grad.row(i).array() - mean, T(0));
  }
}

template class SparsemaxMechanism<float>;
template class SparsemaxMechanism<double>;

ATTNLAB_REGISTER_MECHANISM("sparsemax", plugins::SparsemaxConfig, SparsemaxMechanism,
                           "weights sparsemax(scale Q K^T): the scores' projection onto the "
                           "simplex, exact zeros",
                           {});

}  // namespace attnlab
