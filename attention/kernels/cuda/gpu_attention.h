// The softmax plugin's attention core on the GPU, for `device: CUDA`: batch independent heads
// of S = scale Q K^T (optionally causal), P = softmax(S), O = P V, and their backward, through
// the kernels of kernels.h. Inputs and outputs are host arrays (row-major, one contiguous block
// per head); the copies happen here, explicitly, and the device buffers are reused across steps.
#ifndef ATTNLAB_ATTENTION_KERNELS_CUDA_GPU_ATTENTION_H_
#define ATTNLAB_ATTENTION_KERNELS_CUDA_GPU_ATTENTION_H_

#include <memory>

namespace attnlab {

class GpuAttention {
 public:
  GpuAttention();
  ~GpuAttention();

  // probs: batch x queries x keys, out: batch x queries x value_dim (host).
  void Forward(const float* q, const float* k, const float* v, int batch, int queries, int keys,
               int qk_dim, int value_dim, float scale, bool causal, float* probs, float* out);
  // For the last Forward, given dL/dO (host): dL/dQ, dL/dK, dL/dV (host).
  void Backward(const float* grad_out, float* grad_q, float* grad_k, float* grad_v);

 private:
  struct Device;  // the cuBLAS handle and device tensors; empty in builds without CUDA
  std::unique_ptr<Device> device_;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_CUDA_GPU_ATTENTION_H_
