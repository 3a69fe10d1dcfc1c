#include "attention/mechanism.h"

#include <limits>

#include "attention/kernels/product.h"
#include "attention/kernels/symmetric_sum.h"

namespace attnlab {

template <typename T>
void WeightsMap<T>::Prepare(int count) {
  scratch_.Prepare();
  row_states_.resize(count);
}

template <typename T>
void WeightsMap<T>::Forward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k,
                            ConstHeadBlock<T> v, T scale, HeadBlock<T> a, HeadBlock<T> h) {
  Product(q, k.transpose(), a, /*accumulate=*/false, scale);
  if (this->shape_.causal) MaskFuture(a);
  Map(a, RowState(index, a.rows()));
  Product(a, v, h, /*accumulate=*/false);
}

template <typename T>
void WeightsMap<T>::Backward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k,
                             ConstHeadBlock<T> v, T scale, ConstHeadBlock<T> a,
                             ConstHeadBlock<T> dh, HeadBlock<T>* dq, HeadBlock<T> dk,
                             HeadBlock<T> dv) {
  Product(a.transpose(), dh, dv, /*accumulate=*/false);
  Matrix<T>& grad = Scratch();
  grad.resize(a.rows(), a.cols());
  Product(dh, v.transpose(), grad, /*accumulate=*/false);  // dL/dA
  MapBackward(a, row_states_[index], grad);
  ScoresBackward(q, k, scale, grad, dq, dk);
}

template <typename T>
HeadBlock<T> WeightsMap<T>::RowState(int index, Eigen::Index rows) {
  Matrix<T>& state = row_states_[index];
  state.resize(rows, RowStateSize());
  return state;
}

template <typename T>
void WeightsMap<T>::MaskFuture(HeadBlock<T> scores) {
  for (Eigen::Index i = 0; i + 1 < scores.rows(); ++i) {
    scores.row(i).tail(scores.cols() - i - 1).setConstant(-std::numeric_limits<T>::infinity());
  }
}

template <typename T>
void WeightsMap<T>::ScoresBackward(ConstHeadBlock<T> q, ConstHeadBlock<T> k, T scale,
                                   Matrix<T>& grad_scores, HeadBlock<T>* dq, HeadBlock<T> dk) {
  if (dq == nullptr) {
    ScaledSymmetricSum(int(grad_scores.rows()), scale, grad_scores.data(),
                       grad_scores.outerStride());
    Product(grad_scores, k, dk, /*accumulate=*/false);
    return;
  }
  grad_scores *= scale;
  Product(grad_scores.transpose(), q, dk, /*accumulate=*/false);
  Product(grad_scores, k, *dq, /*accumulate=*/false);
}

template class Mechanism<float>;
template class Mechanism<double>;
template class WeightsMap<float>;
template class WeightsMap<double>;

}  // namespace attnlab
