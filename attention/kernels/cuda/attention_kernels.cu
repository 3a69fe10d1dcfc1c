// Softmax attention on the GPU: the products through cuBLAS (strided-batched, one matrix per
// head), the row softmax and its backward as kernels of one block per row.
#include <cfloat>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "attention/kernels/cuda/kernels.h"
#include "attention/kernels/cuda/launch.cuh"
#include "attention/kernels/cuda/reduce.cuh"

namespace attnlab {
namespace cuda {
namespace {

// Row r of a batch of `queries` x `cols` blocks; with `causal`, entries j > i + cols - queries
// (i = r % queries) are masked to probability 0.
__global__ void SoftmaxRowsKernel(float* s, int cols, int queries, bool causal) {
  float* row = s + static_cast<long long>(blockIdx.x) * cols;
  const int last = causal ? (blockIdx.x % queries) + cols - queries : cols - 1;
  float max = -FLT_MAX;
  for (int j = threadIdx.x; j <= last; j += blockDim.x) max = fmaxf(max, row[j]);
  max = BlockMax(max);
  float sum = 0;
  for (int j = threadIdx.x; j <= last; j += blockDim.x) {
    const float e = expf(row[j] - max);
    row[j] = e;
    sum += e;
  }
  sum = BlockSum(sum);
  for (int j = threadIdx.x; j < cols; j += blockDim.x) row[j] = j <= last ? row[j] / sum : 0.f;
}

// In place on g (dL/dP -> dL/dS): measured from the dominant entry m, without the
// cancellation of g_j - <g, p> once the softmax saturates (see attention/softmax.h).
__global__ void SoftmaxRowsBackwardKernel(const float* p, float* g, int cols, float scale) {
  const long long offset = static_cast<long long>(blockIdx.x) * cols;
  const float* prow = p + offset;
  float* grow = g + offset;
  float best = -1.f;
  int m = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    if (prow[j] > best) {
      best = prow[j];
      m = j;
    }
  }
  m = BlockArgMax(best, m);
  const float gm = grow[m];
  __syncthreads();  // every thread has read g[m] before any writes it
  float tail = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) tail += prow[j] * (grow[j] - gm);
  tail = BlockSum(tail);
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    grow[j] = scale * prow[j] * ((grow[j] - gm) - tail);
  }
}

const char* CublasError(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS ? nullptr : cublasGetStatusString(status);
}

// Row-major C (rows x cols, per batch entry) = op(A) op(B), written as cuBLAS's column-major
// C^T = op(B)^T op(A)^T. a_t / b_t: whether A / B enter transposed.
const char* BatchedProduct(void* cublas, bool a_t, bool b_t, int rows, int cols, int inner,
                           float alpha, const float* a, long long a_stride, const float* b,
                           long long b_stride, float* c, long long c_stride, int batch) {
  const int lda = a_t ? rows : inner, ldb = b_t ? inner : cols;
  const float beta = 0.f;
  return CublasError(cublasSgemmStridedBatched(
      static_cast<cublasHandle_t>(cublas), b_t ? CUBLAS_OP_T : CUBLAS_OP_N,
      a_t ? CUBLAS_OP_T : CUBLAS_OP_N, cols, rows, inner, &alpha, b, ldb, b_stride, a, lda,
      a_stride, &beta, c, cols, c_stride, batch));
}

}  // namespace

const char* AttentionForward(void* cublas, const float* q, const float* k, const float* v,
                             int batch, int queries, int keys, int qk_dim, int value_dim,
                             float scale, bool causal, float* probs, float* out) {
  const long long qs = 1LL * queries * qk_dim, ks = 1LL * keys * qk_dim,
                  vs = 1LL * keys * value_dim, ps = 1LL * queries * keys,
                  os = 1LL * queries * value_dim;
  // S = scale Q K^T
  if (const char* e = BatchedProduct(cublas, false, true, queries, keys, qk_dim, scale, q, qs, k,
                                     ks, probs, ps, batch)) {
    return e;
  }
  SoftmaxRowsKernel<<<batch * queries, kThreads>>>(probs, keys, queries, causal);
  if (const char* e = LastError()) return e;
  // O = P V
  return BatchedProduct(cublas, false, false, queries, value_dim, keys, 1.f, probs, ps, v, vs,
                        out, os, batch);
}

const char* AttentionBackward(void* cublas, const float* q, const float* k, const float* v,
                              const float* probs, const float* grad_out, int batch, int queries,
                              int keys, int qk_dim, int value_dim, float scale, float* scratch,
                              float* grad_q, float* grad_k, float* grad_v) {
  const long long qs = 1LL * queries * qk_dim, ks = 1LL * keys * qk_dim,
                  vs = 1LL * keys * value_dim, ps = 1LL * queries * keys,
                  os = 1LL * queries * value_dim;
  // dV = P^T dO
  if (const char* e = BatchedProduct(cublas, true, false, keys, value_dim, queries, 1.f, probs,
                                     ps, grad_out, os, grad_v, vs, batch)) {
    return e;
  }
  // dP = dO V^T, then dS in place
  if (const char* e = BatchedProduct(cublas, false, true, queries, keys, value_dim, 1.f,
                                     grad_out, os, v, vs, scratch, ps, batch)) {
    return e;
  }
  SoftmaxRowsBackwardKernel<<<batch * queries, kThreads>>>(probs, scratch, keys, scale);
  if (const char* e = LastError()) return e;
  // dQ = dS K, dK = dS^T Q
  if (const char* e = BatchedProduct(cublas, false, false, queries, qk_dim, keys, 1.f, scratch,
                                     ps, k, ks, grad_q, qs, batch)) {
    return e;
  }
  return BatchedProduct(cublas, true, false, keys, qk_dim, queries, 1.f, scratch, ps, q, qs,
                        grad_k, ks, batch);
}

const char* DeviceCount(int* count) {
  const cudaError_t error = cudaGetDeviceCount(count);
  if (error != cudaSuccess) {
    *count = 0;
    return cudaGetErrorString(error);
  }
  return nullptr;
}

}  // namespace cuda
}  // namespace attnlab
