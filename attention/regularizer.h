// Penalties on the query-key matrices W_QK of attention layers (paper 2's LocAteR family).
// They see only M = AttentionLayer::QueryKeyMatrix(head), and hand back dPenalty/dM, which the
// layer routes into its own parameters (AddQueryKeyGradient): any regularizer works on any
// attention plugin.
#ifndef ATTNLAB_ATTENTION_REGULARIZER_H_
#define ATTNLAB_ATTENTION_REGULARIZER_H_

#include "attention/tensor.h"

namespace attnlab {

template <typename T>
class Regularizer {
 public:
  virtual ~Regularizer() = default;
  // The penalty of one square query-key matrix M; sets *grad = d(penalty)/dM.
  virtual T Penalty(const Matrix<T>& m, Matrix<T>* grad) const = 0;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_REGULARIZER_H_
