// The soft threshold (shrinkage) S = shrink(R, t): R - t where R > t, R + t where R < -t, 0
// between; RPC-Attention's sparse part. Both directions in SIMD packets: Eigen 3.4 vectorizes
// neither select nor sign, and a branch per entry mispredicts on noisy R.
#ifndef ATTNLAB_ATTENTION_KERNELS_SOFT_THRESHOLD_H_
#define ATTNLAB_ATTENTION_KERNELS_SOFT_THRESHOLD_H_

#include <cstdint>

namespace attnlab {

// s[i] = shrink(r[i], threshold) for i < n.
template <typename T>
void SoftThreshold(const T* r, int64_t n, T threshold, T* s);

// From the forward's output s and ds = dL/dS: dr[i] = ds[i] where r[i] passed the threshold,
// else 0 (dL/dR), and returns dL/dthreshold = -sum over those i of ds[i] sign(r[i]). An entry
// passed exactly where s[i] != 0 (|r| > t makes r -+ t nonzero), with the sign of r.
template <typename T>
T SoftThresholdBackward(const T* s, const T* ds, int64_t n, T* dr);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_SOFT_THRESHOLD_H_
