// Eigen's SIMD packet for T on this build's ISA (AVX-512: 16 floats or 8 doubles), for the few
// kernels written with Eigen's packet functions (softmax rows, small products, token passes),
// and the partial packet at the end of a row.
#ifndef ATTNLAB_ATTENTION_KERNELS_PACKET_H_
#define ATTNLAB_ATTENTION_KERNELS_PACKET_H_

#include <algorithm>
#include <type_traits>

#include "Eigen/Core"

// GCC drops the vector types' attributes (__m512's may_alias) when they are template arguments
// (std::is_same_v<P, Packet16f>, std::conditional_t): harmless here, since no template is
// specialized on those attributes, and Eigen's own headers do the same as system headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace attnlab {

#if defined(EIGEN_VECTORIZE_AVX2) && !defined(EIGEN_VECTORIZE_AVX512)
namespace packet_internal {

// AVX2: masked loads and stores take a vector mask: all ones in each of the first count of
// kLanes lanes (of 32 bits for 8 lanes or for 4 in 128 bits, of 64 bits for 4 in 256 bits).
template <int kLanes, typename M>
EIGEN_ALWAYS_INLINE M TailMask(int count) {
  if constexpr (std::is_same_v<M, __m256i> && kLanes == 8) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  } else if constexpr (std::is_same_v<M, __m256i>) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), _mm256_setr_epi64x(0, 1, 2, 3));
  } else {
    return _mm_cmpgt_epi32(_mm_set1_epi32(count), _mm_setr_epi32(0, 1, 2, 3));
  }
}

}  // namespace packet_internal
#endif

template <typename T>
using Packet = typename Eigen::internal::packet_traits<T>::type;
template <typename T>
constexpr int kPacketSize = Eigen::internal::packet_traits<T>::size;

// Half of it (AVX-512: 8 floats or 4 doubles in a 256-bit register).
template <typename T>
using HalfPacket = typename Eigen::internal::unpacket_traits<Packet<T>>::half;

// The last count (< lanes) entries of a row as a packet P (a full one by default), the other
// lanes `fill`: one masked load with AVX-512 or AVX2 (a packet assembled in memory from scalars
// would stall its load on store forwarding), through a buffer otherwise.
template <typename T, typename P = Packet<T>>
P LoadTail(const T* x, int count, T fill) {
#ifdef EIGEN_VECTORIZE_AVX512
  if constexpr (std::is_same_v<P, Eigen::internal::Packet16f>) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), __mmask16((1u << count) - 1), x);
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet8d>) {
    return _mm512_mask_loadu_pd(_mm512_set1_pd(fill), __mmask8((1u << count) - 1), x);
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet8f>) {
    return _mm256_mask_loadu_ps(_mm256_set1_ps(fill), __mmask8((1u << count) - 1), x);
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet4d>) {
    return _mm256_mask_loadu_pd(_mm256_set1_pd(fill), __mmask8((1u << count) - 1), x);
  }
#elif defined(EIGEN_VECTORIZE_AVX2)
  if constexpr (std::is_same_v<P, Eigen::internal::Packet8f>) {
    const __m256i mask = packet_internal::TailMask<8, __m256i>(count);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(x, mask),
                            _mm256_castsi256_ps(mask));
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet4d>) {
    const __m256i mask = packet_internal::TailMask<4, __m256i>(count);
    return _mm256_blendv_pd(_mm256_set1_pd(fill), _mm256_maskload_pd(x, mask),
                            _mm256_castsi256_pd(mask));
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet4f>) {
    const __m128i mask = packet_internal::TailMask<4, __m128i>(count);
    return _mm_blendv_ps(_mm_set1_ps(fill), _mm_maskload_ps(x, mask), _mm_castsi128_ps(mask));
  }
#endif
  constexpr int kLanes = Eigen::internal::unpacket_traits<P>::size;
  alignas(64) T values[kLanes];
  std::fill(values, values + kLanes, fill);
  std::copy(x, x + count, values);
  return Eigen::internal::pload<P>(values);
}

// Stores the first count (< lanes) lanes of v at y.
template <typename T, typename P>
void StoreTail(T* y, const P& v, int count) {
#ifdef EIGEN_VECTORIZE_AVX512
  if constexpr (std::is_same_v<P, Eigen::internal::Packet16f>) {
    _mm512_mask_storeu_ps(y, __mmask16((1u << count) - 1), v);
    return;
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet8d>) {
    _mm512_mask_storeu_pd(y, __mmask8((1u << count) - 1), v);
    return;
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet8f>) {
    _mm256_mask_storeu_ps(y, __mmask8((1u << count) - 1), v);
    return;
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet4d>) {
    _mm256_mask_storeu_pd(y, __mmask8((1u << count) - 1), v);
    return;
  }
#elif defined(EIGEN_VECTORIZE_AVX2)
  if constexpr (std::is_same_v<P, Eigen::internal::Packet8f>) {
    _mm256_maskstore_ps(y, packet_internal::TailMask<8, __m256i>(count), v);
    return;
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet4d>) {
    _mm256_maskstore_pd(y, packet_internal::TailMask<4, __m256i>(count), v);
    return;
  } else if constexpr (std::is_same_v<P, Eigen::internal::Packet4f>) {
    _mm_maskstore_ps(y, packet_internal::TailMask<4, __m128i>(count), v);
    return;
  }
#endif
  constexpr int kLanes = Eigen::internal::unpacket_traits<P>::size;
  alignas(64) T values[kLanes];
  Eigen::internal::pstore(values, v);
  std::copy(values, values + count, y);
}

}  // namespace attnlab

#pragma GCC diagnostic pop

#endif  // ATTNLAB_ATTENTION_KERNELS_PACKET_H_
