// What every kernel launch in attention/cuda shares: the block size and the launch's error.
#ifndef ATTNLAB_ATTENTION_KERNELS_CUDA_LAUNCH_CUH_
#define ATTNLAB_ATTENTION_KERNELS_CUDA_LAUNCH_CUH_

#include <cuda_runtime.h>

namespace attnlab {
namespace cuda {

// Threads per block (a multiple of 32, as reduce.cuh needs).
constexpr int kThreads = 256;

// nullptr, or the description of the last launch's error.
inline const char* LastError() {
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);
}

}  // namespace cuda
}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_CUDA_LAUNCH_CUH_
