#include "attention/tiled_product.h"

#include <algorithm>

#include "Eigen/Core"
#include "attention/row_tiles.h"

namespace attnlab {
namespace {

// A kRows x kPackets tile of C over `depth` steps of broadcast-multiply-add; with
// kPartialLast, C's last packet has only last_lanes columns (B's has all lanes readable).
template <typename T, int kRows, int kPackets, bool kPartialLast>
EIGEN_ALWAYS_INLINE void Tile(int depth, T alpha, const T* a, int64_t a_row, int64_t a_col,
                              const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate,
                              int last_lanes) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  P acc[kRows][kPackets];
  for (int r = 0; r < kRows; ++r) {
    for (int p = 0; p < kPackets; ++p) acc[r][p] = pset1<P>(T(0));
  }
  for (int k = 0; k < depth; ++k) {
    P bp[kPackets];
    for (int p = 0; p < kPackets; ++p) bp[p] = ploadu<P>(b + k * ldb + p * kPacketSize<T>);
    for (int r = 0; r < kRows; ++r) {
      const P ap = pset1<P>(a[r * a_row + k * a_col]);
      for (int p = 0; p < kPackets; ++p) acc[r][p] = pmadd(ap, bp[p], acc[r][p]);
    }
  }
  const P scale = pset1<P>(alpha);
  for (int r = 0; r < kRows; ++r) {
    for (int p = 0; p < kPackets; ++p) {
      T* out = c + r * ldc + p * kPacketSize<T>;
      const P value = pmul(scale, acc[r][p]);
      if (kPartialLast && p == kPackets - 1) {
        // Only last_lanes entries of C's row remain.
        StoreTail(out, accumulate ? padd(LoadTail(out, last_lanes, T(0)), value) : value,
                  last_lanes);
      } else {
        pstoreu(out, accumulate ? padd(ploadu<P>(out), value) : value);
      }
    }
  }
}

// All rows of C for one group of kPackets columns.
template <typename T, int kPackets, bool kPartialLast = false>
void Columns(int rows, int depth, T alpha, const T* a, int64_t a_row, int64_t a_col, const T* b,
             int64_t ldb, T* c, int64_t ldc, bool accumulate, int last_lanes = 0) {
  ForEachRowTile<kTileRows<kPackets>>(rows, [&](auto height, int i) {
    Tile<T, decltype(height)::value, kPackets, kPartialLast>(depth, alpha, a + i * a_row, a_row,
                                                             a_col, b, ldb, c + i * ldc, ldc,
                                                             accumulate, last_lanes);
  });
}

// The columns past the last group of 4 packets: `packets` (0-4) of them, the last with
// last_lanes columns, in one group of exactly that width.
template <typename T, int kPackets>
void LastColumns(int packets, int last_lanes, int rows, int depth, T alpha, const T* a,
                 int64_t a_row, int64_t a_col, const T* b, int64_t ldb, T* c, int64_t ldc,
                 bool accumulate) {
  if constexpr (kPackets > 0) {
    if (packets != kPackets) {
      LastColumns<T, kPackets - 1>(packets, last_lanes, rows, depth, alpha, a, a_row, a_col, b, ldb,
                                   c, ldc, accumulate);
    } else if (last_lanes < kPacketSize<T>) {
      Columns<T, kPackets, true>(rows, depth, alpha, a, a_row, a_col, b, ldb, c, ldc, accumulate,
                                 last_lanes);
    } else {
      Columns<T, kPackets>(rows, depth, alpha, a, a_row, a_col, b, ldb, c, ldc, accumulate);
    }
  }
}

template <typename T>
void ColumnGroups(int rows, int cols, int depth, T alpha, const T* a, int64_t a_row, int64_t a_col,
                  const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  constexpr int L = kPacketSize<T>;
  int j = 0;
  for (; j + 4 * L <= cols; j += 4 * L) {
    Columns<T, 4>(rows, depth, alpha, a, a_row, a_col, b + j, ldb, c + j, ldc, accumulate);
  }
  const int left = cols - j, packets = (left + L - 1) / L, last_lanes = left - (packets - 1) * L;
  LastColumns<T, 4>(packets, last_lanes, rows, depth, alpha, a, a_row, a_col, b + j, ldb, c + j,
                    ldc, accumulate);
}

}  // namespace

template <typename T>
void TiledProduct(int rows, int cols, int depth, T alpha, const T* a, int64_t a_row, int64_t a_col,
                  const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  // 128 steps of 4 packets of B: 32 KB in float, within L1 for every row tile that reads it
  // (a weight gradient's depth is the whole batch: 6400 tokens in a ViT).
  constexpr int kDepth = 128;
  if (depth == 0 && !accumulate) {
    for (int i = 0; i < rows; ++i) std::fill(c + i * ldc, c + i * ldc + cols, T(0));
    return;
  }
  for (int k = 0; k < depth; k += kDepth) {
    ColumnGroups(rows, cols, std::min(kDepth, depth - k), alpha, a + k * a_col, a_row, a_col,
                 b + k * ldb, ldb, c, ldc, accumulate || k > 0);
  }
}

template void TiledProduct<float>(int, int, int, float, const float*, int64_t, int64_t,
                                  const float*, int64_t, float*, int64_t, bool);
template void TiledProduct<double>(int, int, int, double, const double*, int64_t, int64_t,
                                   const double*, int64_t, double*, int64_t, bool);

}  // namespace attnlab
