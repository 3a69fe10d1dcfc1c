// Eigen's SIMD packet for T on this build's ISA (AVX-512: 16 floats or 8 doubles), for the few
// kernels written with Eigen's packet functions (softmax rows, small products, token passes),
// and the partial packet at the end of a row.
#ifndef ATTNLAB_ATTENTION_KERNELS_PACKET_H_
#define ATTNLAB_ATTENTION_KERNELS_PACKET_H_

#include <algorithm>
#include <type_traits>

#include "Eigen/Core"

namespace attnlab {

template <typename T>
using Packet = typename Eigen::internal::packet_traits<T>::type;
template <typename T>
constexpr int kPacketSize = Eigen::internal::packet_traits<T>::size;

// The last count (< lanes) entries of a row as a full packet, the other lanes `fill`: one masked
// load with AVX-512 (a packet assembled in memory from scalars would stall its load on store
// forwarding), through a buffer otherwise.
template <typename T>
Packet<T> LoadTail(const T* x, int count, T fill) {
#ifdef EIGEN_VECTORIZE_AVX512
  if constexpr (std::is_same_v<T, float> && kPacketSize<T> == 16) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), __mmask16((1u << count) - 1), x);
  } else if constexpr (std::is_same_v<T, double> && kPacketSize<T> == 8) {
    return _mm512_mask_loadu_pd(_mm512_set1_pd(fill), __mmask8((1u << count) - 1), x);
  }
#endif
  alignas(64) T values[kPacketSize<T>];
  std::fill(values, values + kPacketSize<T>, fill);
  std::copy(x, x + count, values);
  return Eigen::internal::pload<Packet<T>>(values);
}

// Stores the first count (< lanes) lanes of v at y.
template <typename T>
void StoreTail(T* y, const Packet<T>& v, int count) {
#ifdef EIGEN_VECTORIZE_AVX512
  if constexpr (std::is_same_v<T, float> && kPacketSize<T> == 16) {
    _mm512_mask_storeu_ps(y, __mmask16((1u << count) - 1), v);
    return;
  } else if constexpr (std::is_same_v<T, double> && kPacketSize<T> == 8) {
    _mm512_mask_storeu_pd(y, __mmask8((1u << count) - 1), v);
    return;
  }
#endif
  alignas(64) T values[kPacketSize<T>];
  Eigen::internal::pstore(values, v);
  std::copy(values, values + count, y);
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PACKET_H_
