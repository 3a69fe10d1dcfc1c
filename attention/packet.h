// Eigen's SIMD packet for T on this build's ISA (AVX-512: 16 floats or 8 doubles), for the few
// kernels written with Eigen's packet functions (softmax rows, small products, token passes).
#ifndef ATTNLAB_ATTENTION_PACKET_H_
#define ATTNLAB_ATTENTION_PACKET_H_

#include "Eigen/Core"

namespace attnlab {

template <typename T>
using Packet = typename Eigen::internal::packet_traits<T>::type;
template <typename T>
constexpr int kPacketSize = Eigen::internal::packet_traits<T>::size;

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_PACKET_H_
