// A fast Gaussian stream for float: 16 xoshiro128+ generators in vector lanes (GCC/Clang vector
// extensions; one AVX-512 register, two AVX ones), turned into normals by the inverse normal CDF
// (Giles' single-precision erfinv: one vectorized log and a polynomial, no sin/cos, no
// rejection). Many times faster than std::normal_distribution<float>
// (attention/kernels:bench). Paper 3's stochastic positional encodings draw
// T * d_e = 34,000 normals per sample, 8.7 million per training step.
//
// Streams are cheap to create, so parallel code seeds one per work item
// (StreamSeed(base, item)): the draws then do not depend on how work is split across threads.
// Resolution: the uniforms carry 23 bits, so |z| <= 5.4; quantiles are accurate to 1e-3
// relative in the tails, far better in the bulk.
#ifndef ATTNLAB_ATTENTION_KERNELS_GAUSSIAN_H_
#define ATTNLAB_ATTENTION_KERNELS_GAUSSIAN_H_

#include <cstdint>

#include "Eigen/Core"

namespace attnlab {

// SplitMix64 of (base, index): independent-looking seeds for per-item streams.
uint64_t StreamSeed(uint64_t base, uint64_t index);

// One SplitMix64 step: a fast 64-bit generator for the odd uniform integer.
uint64_t SplitMix64(uint64_t& state);

class GaussianStream {
 public:
  explicit GaussianStream(uint64_t seed);

  // out[0..n) = std * N(0, 1) draws. The double version converts float draws.
  void Fill(float* out, Eigen::Index n, float std = 1.0f);
  void Fill(double* out, Eigen::Index n, double std = 1.0);

 private:
  // state_[k][lane]: word k of lane `lane`'s xoshiro128+ state.
  alignas(64) uint32_t state_[4][16];
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_GAUSSIAN_H_
