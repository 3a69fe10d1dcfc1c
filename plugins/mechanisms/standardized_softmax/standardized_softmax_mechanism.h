// The `standardized_softmax` mechanism (config: standardized_softmax.proto): softmax(scale
// Q^ K^T) V for queries and keys standardized per token, the attention paper 4's authors train
// when they measure the kernel-PCA reconstruction error
// (plugins/metrics/kpca_reconstruction_error).
#ifndef ATTNLAB_PLUGINS_MECHANISMS_STANDARDIZED_SOFTMAX_STANDARDIZED_SOFTMAX_MECHANISM_H_
#define ATTNLAB_PLUGINS_MECHANISMS_STANDARDIZED_SOFTMAX_STANDARDIZED_SOFTMAX_MECHANISM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/kernels/per_thread.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/standardized_softmax/standardized_softmax.pb.h"

namespace attnlab {

// Row by row: y = (x - mean(x)) / sd(x), sd with n - 1 (n = x.cols() >= 2); `sd` gets each sd.
template <typename T>
void StandardizeRows(ConstHeadBlock<T> x, Matrix<T>* y, Vector<T>* sd);

// dL/dx from dL/dy for y = StandardizeRows(x): (dy - mean(dy) - y (y . dy) / (n - 1)) / sd.
template <typename T>
void StandardizeRowsBackward(const Matrix<T>& y, const Vector<T>& sd, const Matrix<T>& dy,
                             HeadBlock<T> dx);

// A whole per-head computation, not a map from scores to weights: a layer that computes the
// scores itself (sparse_select) would skip the standardization, so it refuses this mechanism.
template <typename T>
class StandardizedSoftmaxMechanism : public Mechanism<T> {
 public:
  using Config = plugins::StandardizedSoftmaxConfig;

  static absl::StatusOr<std::unique_ptr<StandardizedSoftmaxMechanism<T>>> Create(const Config&) {
    return std::make_unique<StandardizedSoftmaxMechanism<T>>();
  }

  absl::Status Setup(const HeadShape& shape) override;
  void Prepare(int) override { scratch_.Prepare(); }
  void Forward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
               HeadBlock<T> a, HeadBlock<T> h) override;
  void Backward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
                ConstHeadBlock<T> a, ConstHeadBlock<T> dh, HeadBlock<T>* dq, HeadBlock<T> dk,
                HeadBlock<T> dv) override;

 private:
  struct Scratch {
    Matrix<T> q_hat, k_hat, grad_scores, dq_hat, dk_hat;
    Vector<T> q_sd, k_sd;
  };
  // q^ and k^ of a head into this thread's scratch (k^ is q^ for symmetric heads).
  Scratch& Standardized(ConstHeadBlock<T> q, ConstHeadBlock<T> k);

  PerThread<Scratch> scratch_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_MECHANISMS_STANDARDIZED_SOFTMAX_STANDARDIZED_SOFTMAX_MECHANISM_H_
