#include "attention/kernels/cuda/gpu_attention.h"

#include <cstdio>
#include <cstdlib>

#include "attention/kernels/cuda/kernels.h"

#ifdef ATTNLAB_WITH_CUDA
#include <cublas_v2.h>

#include "attention/kernels/cuda/device_tensor.h"
#endif

namespace attnlab {
namespace {

// A failing kernel is a machine problem (out of device memory, a lost GPU), not bad input.
void Check(const char* error, const char* what) {
  if (error == nullptr) return;
  std::fprintf(stderr, "attnlab: CUDA %s failed: %s\n", what, error);
  std::abort();
}

}  // namespace

#ifdef ATTNLAB_WITH_CUDA

struct GpuAttention::Device {
  cublasHandle_t cublas = nullptr;
  cuda::DeviceTensor<float> q, k, v, probs, out, scratch, grad_out, grad_q, grad_k, grad_v;
  int batch = 0, queries = 0, keys = 0, qk_dim = 0, value_dim = 0;
  float scale = 1;
};

GpuAttention::GpuAttention() : device_(new Device) {
  if (cublasCreate(&device_->cublas) != CUBLAS_STATUS_SUCCESS) Check("cublasCreate", "setup");
}

GpuAttention::~GpuAttention() {
  if (device_->cublas != nullptr) cublasDestroy(device_->cublas);
}

void GpuAttention::Forward(const float* q, const float* k, const float* v, int batch,
                           int queries, int keys, int qk_dim, int value_dim, float scale,
                           bool causal, float* probs, float* out) {
  Device& d = *device_;
  d.batch = batch, d.queries = queries, d.keys = keys, d.qk_dim = qk_dim;
  d.value_dim = value_dim, d.scale = scale;
  const size_t nq = size_t(batch) * queries * qk_dim, nk = size_t(batch) * keys * qk_dim,
               nv = size_t(batch) * keys * value_dim, np = size_t(batch) * queries * keys,
               no = size_t(batch) * queries * value_dim;
  for (auto [tensor, n] : {std::pair{&d.q, nq}, {&d.k, nk}, {&d.v, nv}, {&d.probs, np},
                           {&d.out, no}}) {
    tensor->Reserve(n);
  }
  d.q.Upload(q, nq);
  d.k.Upload(k, nk);
  d.v.Upload(v, nv);
  Check(cuda::AttentionForward(d.cublas, d.q.data(), d.k.data(), d.v.data(), batch, queries, keys,
                               qk_dim, value_dim, scale, causal, d.probs.data(), d.out.data()),
        "attention forward");
  d.probs.Download(probs, np);
  d.out.Download(out, no);
}

void GpuAttention::Backward(const float* grad_out, float* grad_q, float* grad_k, float* grad_v) {
  Device& d = *device_;
  const size_t nq = size_t(d.batch) * d.queries * d.qk_dim, nk = size_t(d.batch) * d.keys * d.qk_dim,
               nv = size_t(d.batch) * d.keys * d.value_dim,
               np = size_t(d.batch) * d.queries * d.keys,
               no = size_t(d.batch) * d.queries * d.value_dim;
  for (auto [tensor, n] : {std::pair{&d.grad_out, no}, {&d.scratch, np}, {&d.grad_q, nq},
                           {&d.grad_k, nk}, {&d.grad_v, nv}}) {
    tensor->Reserve(n);
  }
  d.grad_out.Upload(grad_out, no);
  Check(cuda::AttentionBackward(d.cublas, d.q.data(), d.k.data(), d.v.data(), d.probs.data(),
                                d.grad_out.data(), d.batch, d.queries, d.keys, d.qk_dim,
                                d.value_dim, d.scale, d.scratch.data(), d.grad_q.data(),
                                d.grad_k.data(), d.grad_v.data()),
        "attention backward");
  d.grad_q.Download(grad_q, nq);
  d.grad_k.Download(grad_k, nk);
  d.grad_v.Download(grad_v, nv);
}

#else  // Model::Create refuses device: CUDA in these builds, so nothing reaches here.

struct GpuAttention::Device {};
GpuAttention::GpuAttention() = default;
GpuAttention::~GpuAttention() = default;

void GpuAttention::Forward(const float*, const float*, const float*, int, int, int, int, int,
                           float, bool, float*, float*) {
  Check("this build has no CUDA (--config=cuda)", "attention forward");
}

void GpuAttention::Backward(const float*, float*, float*, float*) {
  Check("this build has no CUDA (--config=cuda)", "attention backward");
}

#endif

}  // namespace attnlab
