#include "plugins/mechanisms/standardized_softmax/standardized_softmax_mechanism.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/kernels/fused_softmax.h"
#include "attention/kernels/product.h"
#include "attention/kernels/softmax.h"

namespace attnlab {

template <typename T>
void StandardizeRows(ConstHeadBlock<T> x, Matrix<T>* y, Vector<T>* sd) {
  const Eigen::Index n = x.cols();
  y->resize(x.rows(), n);
  sd->resize(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    y->row(i) = x.row(i).array() - x.row(i).mean();
    (*sd)(i) = std::sqrt(y->row(i).squaredNorm() / static_cast<T>(n - 1));
    y->row(i) /= (*sd)(i);
  }
}

template <typename T>
void StandardizeRowsBackward(const Matrix<T>& y, const Vector<T>& sd, const Matrix<T>& dy,
                             HeadBlock<T> dx) {
  const T n_minus_1 = static_cast<T>(y.cols() - 1);
  for (Eigen::Index i = 0; i < y.rows(); ++i) {
    const T along_y = y.row(i).dot(dy.row(i)) / n_minus_1;
    dx.row(i) = ((dy.row(i).array() - dy.row(i).mean()) - along_y * y.row(i).array()) / sd(i);
  }
}

template <typename T>
absl::Status StandardizedSoftmaxMechanism<T>::Setup(const HeadShape& shape) {
  if (shape.qk_dim < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "standardized_softmax divides each query and key by its standard deviation over its "
        "qk_dim features: needs qk_dim >= 2, got ",
        shape.qk_dim));
  }
  return Mechanism<T>::Setup(shape);
}

template <typename T>
typename StandardizedSoftmaxMechanism<T>::Scratch& StandardizedSoftmaxMechanism<T>::Standardized(
    ConstHeadBlock<T> q, ConstHeadBlock<T> k) {
  Scratch& s = scratch_.Local();
  StandardizeRows<T>(q, &s.q_hat, &s.q_sd);
  if (!this->shape_.symmetric) StandardizeRows<T>(k, &s.k_hat, &s.k_sd);
  return s;
}

template <typename T>
void StandardizedSoftmaxMechanism<T>::Forward(int, ConstHeadBlock<T> q, ConstHeadBlock<T> k,
                                              ConstHeadBlock<T> v, T scale, HeadBlock<T> a,
                                              HeadBlock<T> h) {
  Scratch& s = Standardized(q, k);
  const Matrix<T>& k_hat = this->shape_.symmetric ? s.q_hat : s.k_hat;
  if (this->shape_.causal) {  // the mask comes between the scores and their softmax
    Product(s.q_hat, k_hat.transpose(), a, /*accumulate=*/false, scale);
    WeightsMap<T>::MaskFuture(a);
    SoftmaxRows(a, a);
  } else {
    SoftmaxOfScores(s.q_hat, k_hat, scale, a);
  }
  Product(a, v, h, /*accumulate=*/false);
}

template <typename T>
void StandardizedSoftmaxMechanism<T>::Backward(int, ConstHeadBlock<T> q, ConstHeadBlock<T> k,
                                               ConstHeadBlock<T> v, T scale, ConstHeadBlock<T> a,
                                               ConstHeadBlock<T> dh, HeadBlock<T>* dq,
                                               HeadBlock<T> dk, HeadBlock<T> dv) {
  Product(a.transpose(), dh, dv, /*accumulate=*/false);
  Scratch& s = Standardized(q, k);
  s.grad_scores.resize(a.rows(), a.cols());
  SoftmaxOfScoresBackward(a, dh, v, s.grad_scores);  // masked keys have weight 0: gradient 0
  s.dk_hat.resize(k.rows(), k.cols());
  if (dq == nullptr) {  // symmetric: one standardized matrix, both roles' gradients in dk^
    WeightsMap<T>::ScoresBackward(s.q_hat, s.q_hat, scale, s.grad_scores, nullptr, s.dk_hat);
    StandardizeRowsBackward<T>(s.q_hat, s.q_sd, s.dk_hat, dk);
    return;
  }
  s.dq_hat.resize(q.rows(), q.cols());
  HeadBlock<T> dq_hat(s.dq_hat);
  WeightsMap<T>::ScoresBackward(s.q_hat, s.k_hat, scale, s.grad_scores, &dq_hat, s.dk_hat);
  StandardizeRowsBackward<T>(s.q_hat, s.q_sd, s.dq_hat, *dq);
  StandardizeRowsBackward<T>(s.k_hat, s.k_sd, s.dk_hat, dk);
}

template void StandardizeRows<float>(ConstHeadBlock<float>, Matrix<float>*, Vector<float>*);
template void StandardizeRows<double>(ConstHeadBlock<double>, Matrix<double>*, Vector<double>*);
template class StandardizedSoftmaxMechanism<float>;
template class StandardizedSoftmaxMechanism<double>;

ATTNLAB_REGISTER_MECHANISM("standardized_softmax", plugins::StandardizedSoftmaxConfig,
                           StandardizedSoftmaxMechanism,
                           "softmax(scale Q^ K^T) for queries and keys standardized per token "
                           "(paper 4's authors' Reconstruction model)",
                           {});

}  // namespace attnlab
