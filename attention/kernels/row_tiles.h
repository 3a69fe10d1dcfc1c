// Runs a register-tile kernel over the rows of a matrix: tiles of kRows rows, then the rows left
// over in one tile of exactly their height (single-row tiles have too few independent FMA
// chains to hide their latency). The kernel is a generic lambda taking the tile's height as a
// compile-time constant and its first row: tile(std::integral_constant<int, kHeight>(), row).
#ifndef ATTNLAB_ATTENTION_KERNELS_ROW_TILES_H_
#define ATTNLAB_ATTENTION_KERNELS_ROW_TILES_H_

#include <type_traits>

#include "Eigen/Core"

namespace attnlab {
namespace row_tiles_internal {

template <int kHeight, typename Tile>
EIGEN_ALWAYS_INLINE void LastTile(int height, int row, Tile& tile) {
  if constexpr (kHeight > 0) {
    if (height == kHeight) {
      tile(std::integral_constant<int, kHeight>(), row);
    } else {
      LastTile<kHeight - 1>(height, row, tile);
    }
  }
}

}  // namespace row_tiles_internal

// Register tiles hold as many accumulators as leave registers for B's packets and the
// broadcast (more spill to the stack), in enough independent chains to hide the FMA latency
// with few loads per FMA. kTilePackets: the widest tile of a product, in packets; kTileRows:
// the rows of a tile kPackets packets wide (the fused softmax's are up to kFusedPackets wide).
// AVX-512 has 32 registers: up to 24 accumulators, 6 x 4 packets for a product; AVX2 has 16: up
// to 12, 6 x 2 packets.
#ifdef EIGEN_VECTORIZE_AVX512
constexpr int kTilePackets = 4;
template <int kPackets>
constexpr int kTileRows = kPackets == 1   ? 8
                          : kPackets == 2 ? 12
                          : kPackets == 3 ? 8
                                          : 6;
#else
constexpr int kTilePackets = 2;
template <int kPackets>
constexpr int kTileRows = kPackets == 1   ? 8
                          : kPackets == 2 ? 6
                          : kPackets == 3 ? 4
                          : kPackets == 4 ? 3
                                          : 1;
#endif

template <int kRows, typename Tile>
EIGEN_ALWAYS_INLINE void ForEachRowTile(int rows, Tile&& tile) {
  int row = 0;
  for (; row + kRows <= rows; row += kRows) tile(std::integral_constant<int, kRows>(), row);
  row_tiles_internal::LastTile<kRows - 1>(rows - row, row, tile);
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_ROW_TILES_H_
