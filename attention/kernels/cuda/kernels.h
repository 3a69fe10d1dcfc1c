// CUDA kernels for attention's hot paths, float32, on device pointers (row-major, one
// contiguous block per batch entry). Built only with --config=cuda (ATTNLAB_WITH_CUDA);
// compiled by nvcc, so this header uses no CUDA, Abseil or Eigen types. Every function returns
// nullptr on success or a static description of the CUDA or cuBLAS error. `cublas` is a
// cublasHandle_t. Each kernel is tested against the CPU path in cuda_kernels_test.
#ifndef ATTNLAB_ATTENTION_KERNELS_CUDA_KERNELS_H_
#define ATTNLAB_ATTENTION_KERNELS_CUDA_KERNELS_H_

namespace attnlab {
namespace cuda {

// --- Softmax attention, the general (multi-head) form: `batch` independent heads. ---
// S = scale Q K^T (queries x keys; with `causal`, query i sees keys j <= i + keys - queries),
// P = softmax over each row, O = P V. probs: batch x queries x keys (kept for the backward).
const char* AttentionForward(void* cublas, const float* q, const float* k, const float* v,
                             int batch, int queries, int keys, int qk_dim, int value_dim,
                             float scale, bool causal, float* probs, float* out);

// Given dL/dO: dV = P^T dO, dS = scale * softmax'(P)[dO V^T] (the stable form of
// attention/softmax.h), dQ = dS K, dK = dS^T Q. scratch: batch x queries x keys.
const char* AttentionBackward(void* cublas, const float* q, const float* k, const float* v,
                              const float* probs, const float* grad_out, int batch, int queries,
                              int keys, int qk_dim, int value_dim, float scale, float* scratch,
                              float* grad_q, float* grad_k, float* grad_v);

// Devices visible to this process; nullptr on success.
const char* DeviceCount(int* count);

}  // namespace cuda
}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_CUDA_KERNELS_H_
