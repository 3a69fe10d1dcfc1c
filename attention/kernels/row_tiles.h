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

// Rows of a register tile kPackets packets wide: up to 24 accumulators (of AVX-512's 32
// registers; the rest hold B's packets and the broadcast), enough independent chains to hide
// the FMA latency with few loads per FMA.
template <int kPackets>
constexpr int kTileRows = kPackets == 1   ? 8
                          : kPackets == 2 ? 12
                          : kPackets == 3 ? 8
                                          : 6;

template <int kRows, typename Tile>
EIGEN_ALWAYS_INLINE void ForEachRowTile(int rows, Tile&& tile) {
  int row = 0;
  for (; row + kRows <= rows; row += kRows) tile(std::integral_constant<int, kRows>(), row);
  row_tiles_internal::LastTile<kRows - 1>(rows - row, row, tile);
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_ROW_TILES_H_
