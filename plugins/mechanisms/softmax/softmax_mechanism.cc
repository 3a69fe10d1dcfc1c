#include "plugins/mechanisms/softmax/softmax_mechanism.h"

#include "attention/kernels/fused_softmax.h"
#include "attention/kernels/softmax.h"

namespace attnlab {

template <typename T>
void SoftmaxMechanism<T>::Map(HeadBlock<T> scores, HeadBlock<T>) const {
  SoftmaxRows(scores, scores);
}

template <typename T>
void SoftmaxMechanism<T>::MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>,
                                      HeadBlock<T> grad) const {
  SoftmaxRowsBackward(weights, grad, grad);
}

template <typename T>
void SoftmaxMechanism<T>::Forward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k,
                                  ConstHeadBlock<T> v, T scale, HeadBlock<T> a, HeadBlock<T> h) {
  if (this->shape_.causal) {  // the mask comes between the scores and their softmax
    WeightsMap<T>::Forward(index, q, k, v, scale, a, h);
    return;
  }
  SoftmaxOfScores(q, k, scale, a);
  Product(a, v, h, /*accumulate=*/false);
}

template <typename T>
void SoftmaxMechanism<T>::Backward(int, ConstHeadBlock<T> q, ConstHeadBlock<T> k,
                                   ConstHeadBlock<T> v, T scale, ConstHeadBlock<T> a,
                                   ConstHeadBlock<T> dh, HeadBlock<T>* dq, HeadBlock<T> dk,
                                   HeadBlock<T> dv) {
  Product(a.transpose(), dh, dv, /*accumulate=*/false);
  Matrix<T>& grad = this->Scratch();
  grad.resize(a.rows(), a.cols());
  SoftmaxOfScoresBackward(a, dh, v, grad);  // masked keys have weight 0: gradient 0
  this->ScoresBackward(q, k, scale, grad, dq, dk);
}

template <typename T>
void SoftmaxMechanism<T>::CudaForward(const float* q, const float* k, const float* v, int count,
                                      int n, float scale, bool causal, float* weights, float* h) {
  if (gpu_ == nullptr) gpu_ = std::make_unique<GpuAttention>();
  gpu_->Forward(q, k, v, count, n, n, this->shape_.qk_dim, this->shape_.value_dim, scale, causal,
                weights, h);
}

template <typename T>
void SoftmaxMechanism<T>::CudaBackward(const float* dh, float* q, float* k, float* v) {
  gpu_->Backward(dh, q, k, v);
}

template class SoftmaxMechanism<float>;
template class SoftmaxMechanism<double>;

ATTNLAB_REGISTER_MECHANISM("softmax", plugins::SoftmaxConfig, SoftmaxMechanism,
                           "weights softmax(scale Q K^T): each row sums to 1 (the transformer's)",
                           {});

}  // namespace attnlab
