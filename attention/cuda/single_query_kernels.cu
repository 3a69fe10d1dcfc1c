// One query per sample: one block per sample, the T scores in shared memory.
#include <cfloat>

#include <cuda_runtime.h>

#include "attention/cuda/kernels.h"
#include "attention/cuda/launch.cuh"
#include "attention/cuda/reduce.cuh"

namespace attnlab {
namespace cuda {
namespace {

__global__ void SingleQueryForwardKernel(const float* keys, const float* query,
                                         const float* values, int seq_len, int qk_dim,
                                         int value_dim, float* probs, float* out) {
  extern __shared__ float a[];  // seq_len scores, then probabilities
  const int b = blockIdx.x;
  const float* k = keys + 1LL * b * seq_len * qk_dim;
  const float* u = query + 1LL * b * qk_dim;
  const float* v = values + 1LL * b * seq_len * value_dim;
  float max = -FLT_MAX;
  for (int t = threadIdx.x; t < seq_len; t += blockDim.x) {
    float s = 0;
    for (int i = 0; i < qk_dim; ++i) s += k[1LL * t * qk_dim + i] * u[i];
    a[t] = s;
    max = fmaxf(max, s);
  }
  max = BlockMax(max);
  float sum = 0;
  for (int t = threadIdx.x; t < seq_len; t += blockDim.x) {
    a[t] = expf(a[t] - max);
    sum += a[t];
  }
  sum = BlockSum(sum);
  for (int t = threadIdx.x; t < seq_len; t += blockDim.x) {
    a[t] /= sum;
    probs[1LL * b * seq_len + t] = a[t];
  }
  __syncthreads();
  for (int j = threadIdx.x; j < value_dim; j += blockDim.x) {
    float o = 0;
    for (int t = 0; t < seq_len; ++t) o += a[t] * v[1LL * t * value_dim + j];
    out[1LL * b * value_dim + j] = o;
  }
}

__global__ void SingleQueryBackwardKernel(const float* keys, const float* query,
                                          const float* values, const float* probs,
                                          const float* grad_out, int seq_len, int qk_dim,
                                          int value_dim, float* grad_query, float* grad_keys,
                                          float* grad_values) {
  extern __shared__ float ds[];  // per position: dL/dp, then dL/ds
  const int b = blockIdx.x;
  const float* k = keys + 1LL * b * seq_len * qk_dim;
  const float* u = query + 1LL * b * qk_dim;
  const float* v = values + 1LL * b * seq_len * value_dim;
  const float* a = probs + 1LL * b * seq_len;
  const float* g = grad_out + 1LL * b * value_dim;
  float best = -1.f;
  int m = 0;
  for (int t = threadIdx.x; t < seq_len; t += blockDim.x) {
    float dp = 0;
    for (int j = 0; j < value_dim; ++j) {
      dp += v[1LL * t * value_dim + j] * g[j];
      grad_values[(1LL * b * seq_len + t) * value_dim + j] = a[t] * g[j];
    }
    ds[t] = dp;
    if (a[t] > best) {
      best = a[t];
      m = t;
    }
  }
  m = BlockArgMax(best, m);  // synchronizes: every ds[t] is written
  const float gm = ds[m];
  float tail = 0;
  for (int t = threadIdx.x; t < seq_len; t += blockDim.x) tail += a[t] * (ds[t] - gm);
  tail = BlockSum(tail);  // synchronizes: every thread has read ds[m]
  for (int t = threadIdx.x; t < seq_len; t += blockDim.x) ds[t] = a[t] * ((ds[t] - gm) - tail);
  __syncthreads();
  for (int i = threadIdx.x; i < qk_dim; i += blockDim.x) {
    float du = 0;
    for (int t = 0; t < seq_len; ++t) du += ds[t] * k[1LL * t * qk_dim + i];
    grad_query[1LL * b * qk_dim + i] = du;
  }
  if (grad_keys != nullptr) {
    for (long long e = threadIdx.x; e < 1LL * seq_len * qk_dim; e += blockDim.x) {
      grad_keys[1LL * b * seq_len * qk_dim + e] = ds[e / qk_dim] * u[e % qk_dim];
    }
  }
}

}  // namespace

const char* SingleQueryForward(const float* keys, const float* query, const float* values,
                               int batch, int seq_len, int qk_dim, int value_dim, float* probs,
                               float* out) {
  SingleQueryForwardKernel<<<batch, kThreads, seq_len * sizeof(float)>>>(
      keys, query, values, seq_len, qk_dim, value_dim, probs, out);
  return LastError();
}

const char* SingleQueryBackward(const float* keys, const float* query, const float* values,
                                const float* probs, const float* grad_out, int batch, int seq_len,
                                int qk_dim, int value_dim, float* grad_query, float* grad_keys,
                                float* grad_values) {
  SingleQueryBackwardKernel<<<batch, kThreads, seq_len * sizeof(float)>>>(
      keys, query, values, probs, grad_out, seq_len, qk_dim, value_dim, grad_query, grad_keys,
      grad_values);
  return LastError();
}

}  // namespace cuda
}  // namespace attnlab
