// CUDA kernels for attention's hot paths, float32, on device pointers (row-major, one
// contiguous block per batch entry). Built only with --config=cuda (ATTNLAB_WITH_CUDA);
// compiled by nvcc, so this header uses no CUDA, Abseil or Eigen types. Every function returns
// nullptr on success or a static description of the CUDA or cuBLAS error. `cublas` is a
// cublasHandle_t. Each kernel is tested against the CPU path in cuda_kernels_test.
#ifndef ATTNLAB_ATTENTION_CUDA_KERNELS_H_
#define ATTNLAB_ATTENTION_CUDA_KERNELS_H_

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

// --- One query per sample (paper 3's sparse-selection attention, paper 1's prompt form). ---
// Sample b: s = K_b u_b (T scores), a = softmax(s), out_b = a^T V_b. keys: batch x T x m,
// query: batch x m, values: batch x T x dv, probs: batch x T, out: batch x dv.
const char* SingleQueryForward(const float* keys, const float* query, const float* values,
                               int batch, int seq_len, int qk_dim, int value_dim, float* probs,
                               float* out);

// Given dL/dout (batch x dv): dV_b = a g_b^T, ds = a .* (V_b g_b - a . V_b g_b) (stable form),
// dU_b = K_b^T ds, dK_b = ds u_b^T. grad_keys may be null (positions that are not trained).
const char* SingleQueryBackward(const float* keys, const float* query, const float* values,
                                const float* probs, const float* grad_out, int batch, int seq_len,
                                int qk_dim, int value_dim, float* grad_query, float* grad_keys,
                                float* grad_values);

// --- PAP's inner steps (the rpc plugin), elementwise on n entries. ---
// R = K - L + Y / mu, S = shrink(R, threshold), K2 = K - S - Y / mu.
const char* PapSplit(const float* k, const float* l, const float* y, int n, float mu,
                     float threshold, float* r, float* s, float* k2);
// Y += mu (K - L - S).
const char* PapDualUpdate(const float* k, const float* l, const float* s, int n, float mu,
                          float* y);
// The shrink's backward: dR = dS where |R| > threshold (else 0), and
// *grad_threshold (device, one float, accumulated) -= sum over those of dS sign(R).
const char* ShrinkBackward(const float* r, const float* grad_s, int n, float threshold,
                           float* grad_r, float* grad_threshold);

// Devices visible to this process; nullptr on success.
const char* DeviceCount(int* count);

}  // namespace cuda
}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_CUDA_KERNELS_H_
