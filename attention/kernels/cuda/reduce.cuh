// Block-wide reductions for the kernels of one block per row (blockDim.x a multiple of 32,
// at most 1024). Every thread gets the result.
#ifndef ATTNLAB_ATTENTION_KERNELS_CUDA_REDUCE_CUH_
#define ATTNLAB_ATTENTION_KERNELS_CUDA_REDUCE_CUH_

namespace attnlab {
namespace cuda {

__device__ inline float WarpSum(float x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

__device__ inline float WarpMax(float x) {
  for (int offset = 16; offset > 0; offset /= 2) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  }
  return x;
}

// Combines one value per warp through shared memory, then within warp 0, then broadcasts.
template <typename Combine>
__device__ inline float BlockCombine(float x, Combine combine, float identity) {
  __shared__ float partial[32];
  __shared__ float result;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  x = combine(x);
  __syncthreads();  // `partial` may still be read by a previous reduction
  if (lane == 0) partial[warp] = x;
  __syncthreads();
  if (warp == 0) {
    x = lane < blockDim.x / 32 ? partial[lane] : identity;
    x = combine(x);
    if (lane == 0) result = x;
  }
  __syncthreads();
  return result;
}

__device__ inline float BlockSum(float x) {
  return BlockCombine(x, [](float v) { return WarpSum(v); }, 0.f);
}

__device__ inline float BlockMax(float x) {
  return BlockCombine(x, [](float v) { return WarpMax(v); }, -3.402823466e38f);
}

// (value, index) of the largest value in the warp (the smallest index on ties), in every lane.
__device__ inline void WarpArgMax(float& value, int& index) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float v = __shfl_xor_sync(0xffffffffu, value, offset);
    const int i = __shfl_xor_sync(0xffffffffu, index, offset);
    if (v > value || (v == value && i < index)) {
      value = v;
      index = i;
    }
  }
}

// The index of the largest value (the smallest such index on ties).
__device__ inline int BlockArgMax(float value, int index) {
  __shared__ float values[32];
  __shared__ int indices[32];
  __shared__ int result;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  WarpArgMax(value, index);
  __syncthreads();
  if (lane == 0) {
    values[warp] = value;
    indices[warp] = index;
  }
  __syncthreads();
  if (warp == 0) {
    value = lane < blockDim.x / 32 ? values[lane] : -3.402823466e38f;
    index = lane < blockDim.x / 32 ? indices[lane] : 0x7fffffff;
    WarpArgMax(value, index);
    if (lane == 0) result = index;
  }
  __syncthreads();
  return result;
}

}  // namespace cuda
}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_CUDA_REDUCE_CUH_
