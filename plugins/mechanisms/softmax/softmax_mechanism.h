// The `softmax` mechanism (config: softmax.proto): softmax(scale Q K^T) V, with the scores and
// their softmax fused in register tiles for rows of up to 64 keys (kernels/fused_softmax.h),
// and the stable backward of kernels/softmax.h.
#ifndef ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_MECHANISM_H_
#define ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_MECHANISM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/kernels/cuda/gpu_attention.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/softmax/softmax.pb.h"

namespace attnlab {

template <typename T>
class SoftmaxMechanism : public WeightsMap<T> {
 public:
  using Config = plugins::SoftmaxConfig;

  static absl::StatusOr<std::unique_ptr<SoftmaxMechanism<T>>> Create(const Config&) {
    return std::make_unique<SoftmaxMechanism<T>>();
  }

  void Map(HeadBlock<T> scores, HeadBlock<T>) const override;
  void MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>, HeadBlock<T> grad) const override;
  bool SoftmaxJacobian() const override { return true; }
  bool SoftmaxWeights() const override { return true; }
  bool CudaHeads() const override { return true; }
  void CudaForward(const float* q, const float* k, const float* v, int count, int n, float scale,
                   bool causal, float* weights, float* h) override;
  void CudaBackward(const float* dh, float* q, float* k, float* v) override;
  void Forward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
               HeadBlock<T> a, HeadBlock<T> h) override;
  void Backward(int index, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v, T scale,
                ConstHeadBlock<T> a, ConstHeadBlock<T> dh, HeadBlock<T>* dq, HeadBlock<T> dk,
                HeadBlock<T> dv) override;

 private:
  std::unique_ptr<GpuAttention> gpu_;  // the device's buffers, from the first CudaForward
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SOFTMAX_SOFTMAX_MECHANISM_H_
