// PAP's elementwise inner steps (plugins/rpc): the split into sparse and low-rank parts, the
// dual update, and the shrink's backward.
#include <cuda_runtime.h>

#include "attention/cuda/kernels.h"
#include "attention/cuda/launch.cuh"
#include "attention/cuda/reduce.cuh"

namespace attnlab {
namespace cuda {
namespace {

int Blocks(int n) { return (n + kThreads - 1) / kThreads; }

__device__ inline float Shrink(float x, float threshold) {
  return x > threshold ? x - threshold : (x < -threshold ? x + threshold : 0.f);
}

__global__ void PapSplitKernel(const float* k, const float* l, const float* y, int n, float mu,
                               float threshold, float* r, float* s, float* k2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float y_over_mu = y[i] / mu;
  const float ri = k[i] - l[i] + y_over_mu;
  const float si = Shrink(ri, threshold);
  r[i] = ri;
  s[i] = si;
  k2[i] = k[i] - si - y_over_mu;
}

__global__ void PapDualUpdateKernel(const float* k, const float* l, const float* s, int n,
                                    float mu, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += mu * (k[i] - l[i] - s[i]);
}

__global__ void ShrinkBackwardKernel(const float* r, const float* grad_s, int n, float threshold,
                                     float* grad_r, float* grad_threshold) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float moved = 0;  // dS/dthreshold = -sign(R) where the shrink passes
  if (i < n) {
    const bool passes = fabsf(r[i]) > threshold;
    grad_r[i] = passes ? grad_s[i] : 0.f;
    if (passes) moved = r[i] > 0 ? -grad_s[i] : grad_s[i];
  }
  moved = BlockSum(moved);
  if (threadIdx.x == 0) atomicAdd(grad_threshold, moved);
}

}  // namespace

const char* PapSplit(const float* k, const float* l, const float* y, int n, float mu,
                     float threshold, float* r, float* s, float* k2) {
  PapSplitKernel<<<Blocks(n), kThreads>>>(k, l, y, n, mu, threshold, r, s, k2);
  return LastError();
}

const char* PapDualUpdate(const float* k, const float* l, const float* s, int n, float mu,
                          float* y) {
  PapDualUpdateKernel<<<Blocks(n), kThreads>>>(k, l, s, n, mu, y);
  return LastError();
}

const char* ShrinkBackward(const float* r, const float* grad_s, int n, float threshold,
                           float* grad_r, float* grad_threshold) {
  ShrinkBackwardKernel<<<Blocks(n), kThreads>>>(r, grad_s, n, threshold, grad_r, grad_threshold);
  return LastError();
}

}  // namespace cuda
}  // namespace attnlab
