// The GPU side of the tensor type, for CUDA builds: a DeviceTensor<T> owns n entries of device
// memory (cudaMalloc / cudaFree); Upload and Download are the only copies between host and
// device, explicit at every call site.
#ifndef ATTNLAB_ATTENTION_KERNELS_CUDA_DEVICE_TENSOR_H_
#define ATTNLAB_ATTENTION_KERNELS_CUDA_DEVICE_TENSOR_H_

#ifdef ATTNLAB_WITH_CUDA

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab {
namespace cuda {

template <typename T>
class DeviceTensor {
 public:
  explicit DeviceTensor(size_t n = 0) : n_(n) {
    if (n > 0) Check(cudaMalloc(&data_, n * sizeof(T)), "cudaMalloc");
  }
  // A device copy of host memory.
  DeviceTensor(const T* host, size_t n) : DeviceTensor(n) { Upload(host); }
  ~DeviceTensor() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  // The first n entries (all by default) from or to host memory.
  void Upload(const T* host) { Upload(host, n_); }
  void Upload(const T* host, size_t n) {
    Check(cudaMemcpy(data_, host, n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  void Download(T* host) const { Download(host, n_); }
  void Download(T* host, size_t n) const {
    Check(cudaMemcpy(host, data_, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
  }
  std::vector<T> ToHost() const {
    std::vector<T> host(n_);
    Download(host.data());
    return host;
  }
  // Grows (contents lost) when n exceeds the size: buffers reused across steps.
  void Reserve(size_t n) {
    if (n <= n_) return;
    if (data_ != nullptr) cudaFree(data_);
    data_ = nullptr;
    n_ = n;
    Check(cudaMalloc(&data_, n * sizeof(T)), "cudaMalloc");
  }
  void SetZero() { Check(cudaMemset(data_, 0, n_ * sizeof(T)), "cudaMemset"); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return n_; }

 private:
  // Allocation and copy failures are programming or machine errors, not bad input.
  static void Check(cudaError_t error, const char* what) {
    if (error != cudaSuccess) {
      throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(error));
    }
  }
  T* data_ = nullptr;
  size_t n_ = 0;
};

}  // namespace cuda
}  // namespace attnlab

#endif  // ATTNLAB_WITH_CUDA
#endif  // ATTNLAB_ATTENTION_KERNELS_CUDA_DEVICE_TENSOR_H_
