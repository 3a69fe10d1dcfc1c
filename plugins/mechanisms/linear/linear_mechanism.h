// The `linear` mechanism (config: linear.proto): kernelized attention with phi = elu + 1,
// outputs from key sums (running sums when causal). The weights matrix A the layer shows is
// still written, T x T, for metrics.
#ifndef ATTNLAB_PLUGINS_LINEAR_LINEAR_MECHANISM_H_
#define ATTNLAB_PLUGINS_LINEAR_LINEAR_MECHANISM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/kernels/per_thread.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/linear/linear.pb.h"

namespace attnlab {

template <typename T>
class LinearMechanism : public Mechanism<T> {
 public:
  using Config = plugins::LinearConfig;

  static absl::StatusOr<std::unique_ptr<LinearMechanism<T>>> Create(const Config&) {
    return std::make_unique<LinearMechanism<T>>();
  }

  void Prepare(int) override { scratch_.Prepare(); }
  void Forward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
               HeadBlock<T> a, HeadBlock<T> h) override;
  void Backward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
                ConstHeadBlock<T> a, ConstHeadBlock<T> dh, HeadBlock<T>* dq, HeadBlock<T> dk,
                HeadBlock<T> dv) override;

 private:
  struct Scratch {
    Matrix<T> phi_q, phi_k, grad_phi_q, grad_phi_k, state, state_grad, grad_numerators, outputs;
    Vector<T> denominators, normalizer, normalizer_grad, grad_denominators;
  };
  PerThread<Scratch> scratch_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_LINEAR_LINEAR_MECHANISM_H_
