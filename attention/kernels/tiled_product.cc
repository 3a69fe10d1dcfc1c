#include "attention/kernels/tiled_product.h"

#include <algorithm>
#include <functional>

#include "Eigen/Core"
#include "attention/kernels/row_tiles.h"

namespace attnlab {
namespace {

// Where a tile's results go: C = alpha op(A) B + D (D: an addend, C itself to accumulate, or
// none) + bias (none if null) in every row.
template <typename T>
struct Output {
  T* c;
  int64_t ldc;
  T alpha;
  const T* addend;
  int64_t ld_addend;
  const T* bias;
  // The output from `rows` rows and `cols` columns further on.
  Output Shifted(int rows, int cols) const {
    return {c + rows * ldc + cols, ldc, alpha,
            addend == nullptr ? nullptr : addend + rows * ld_addend + cols, ld_addend,
            bias == nullptr ? nullptr : bias + cols};
  }
};

// A kRows x kPackets tile of C over `depth` steps of broadcast-multiply-add; with
// kPartialLast, C's last packet has only last_lanes columns (B's has all lanes readable).
template <typename T, int kRows, int kPackets, bool kPartialLast>
EIGEN_ALWAYS_INLINE void Tile(int depth, const T* a, int64_t a_row, int64_t a_col, const T* b,
                              int64_t ldb, const Output<T>& out, int last_lanes) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  P acc[kRows][kPackets];
  for (int r = 0; r < kRows; ++r) {
    for (int p = 0; p < kPackets; ++p) acc[r][p] = pset1<P>(T(0));
  }
  for (int k = 0; k < depth; ++k) {
    P bp[kPackets];
    for (int p = 0; p < kPackets; ++p) bp[p] = ploadu<P>(b + k * ldb + p * L);
    for (int r = 0; r < kRows; ++r) {
      const P ap = pset1<P>(a[r * a_row + k * a_col]);
      for (int p = 0; p < kPackets; ++p) acc[r][p] = pmadd(ap, bp[p], acc[r][p]);
    }
  }
  const P scale = pset1<P>(out.alpha);
  P bias[kPackets];
  for (int p = 0; p < kPackets; ++p) {
    const bool partial = kPartialLast && p == kPackets - 1;  // only last_lanes columns remain
    bias[p] = pset1<P>(T(0));
    if (out.bias != nullptr) {
      const T* b = out.bias + p * L;
      bias[p] = partial ? LoadTail(b, last_lanes, T(0)) : ploadu<P>(b);
    }
  }
  // Row by row: C's rows may lie far apart (the LM's logits), each row's packets together.
  for (int r = 0; r < kRows; ++r) {
    for (int p = 0; p < kPackets; ++p) {
      const bool partial = kPartialLast && p == kPackets - 1;
      T* c = out.c + r * out.ldc + p * L;
      P value = padd(pmul(scale, acc[r][p]), bias[p]);
      if (out.addend != nullptr) {
        const T* d = out.addend + r * out.ld_addend + p * L;
        value = padd(partial ? LoadTail(d, last_lanes, T(0)) : ploadu<P>(d), value);
      }
      if (partial) {
        StoreTail(c, value, last_lanes);
      } else {
        pstoreu(c, value);
      }
    }
  }
}

// All rows of C for one group of kPackets columns.
template <typename T, int kPackets, bool kPartialLast = false>
void Columns(int rows, int depth, const T* a, int64_t a_row, int64_t a_col, const T* b,
             int64_t ldb, const Output<T>& out, int last_lanes = 0) {
  ForEachRowTile<kTileRows<kPackets>>(rows, [&](auto height, int i) {
    Tile<T, decltype(height)::value, kPackets, kPartialLast>(depth, a + i * a_row, a_row, a_col, b,
                                                             ldb, out.Shifted(i, 0), last_lanes);
  });
}

// The columns past the last group of kTilePackets packets: `packets` (0 to kTilePackets) of
// them, the last with last_lanes columns, in one group of exactly that width.
template <typename T, int kPackets>
void LastColumns(int packets, int last_lanes, int rows, int depth, const T* a, int64_t a_row,
                 int64_t a_col, const T* b, int64_t ldb, const Output<T>& out) {
  if constexpr (kPackets > 0) {
    if (packets != kPackets) {
      LastColumns<T, kPackets - 1>(packets, last_lanes, rows, depth, a, a_row, a_col, b, ldb, out);
    } else if (last_lanes < kPacketSize<T>) {
      Columns<T, kPackets, true>(rows, depth, a, a_row, a_col, b, ldb, out, last_lanes);
    } else {
      Columns<T, kPackets>(rows, depth, a, a_row, a_col, b, ldb, out);
    }
  }
}

template <typename T>
void ColumnGroups(int rows, int cols, int depth, const T* a, int64_t a_row, int64_t a_col,
                  const T* b, int64_t ldb, const Output<T>& out) {
  constexpr int L = kPacketSize<T>;
  int j = 0;
  for (; j + kTilePackets * L <= cols; j += kTilePackets * L) {
    Columns<T, kTilePackets>(rows, depth, a, a_row, a_col, b + j, ldb, out.Shifted(0, j));
  }
  const int left = cols - j, packets = (left + L - 1) / L, last_lanes = left - (packets - 1) * L;
  LastColumns<T, kTilePackets>(packets, last_lanes, rows, depth, a, a_row, a_col, b + j, ldb,
                               out.Shifted(0, j));
}

}  // namespace

template <typename T>
void TiledProduct(int rows, int cols, int depth, T alpha, const T* a, int64_t a_row, int64_t a_col,
                  const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate, const T* bias,
                  const T* addend, int64_t ld_addend) {
  eigen_assert(!(accumulate && addend != nullptr));
  // 128 steps of a tile's packets of B: at most 32 KB in float, within L1 for every row tile
  // that reads it (a weight gradient's depth is the whole batch: 6400 tokens in a ViT).
  constexpr int kDepth = 128;
  if (depth == 0) {
    for (int i = 0; i < rows; ++i) {
      T* row = c + i * ldc;
      if (addend != nullptr) {
        std::copy(addend + i * ld_addend, addend + i * ld_addend + cols, row);
      } else if (!accumulate) {
        std::fill(row, row + cols, T(0));
      }
      if (bias != nullptr) std::transform(row, row + cols, bias, row, std::plus<T>());
    }
    return;
  }
  for (int k = 0; k < depth; k += kDepth) {
    // The first chunk writes C with the addend and the bias, the later ones add to it.
    const bool first = k == 0;
    const Output<T> out{c,
                        ldc,
                        alpha,
                        first ? (accumulate ? c : addend) : c,
                        first && !accumulate ? ld_addend : ldc,
                        first ? bias : nullptr};
    ColumnGroups(rows, cols, std::min(kDepth, depth - k), a + k * a_col, a_row, a_col, b + k * ldb,
                 ldb, out);
  }
}

template void TiledProduct<float>(int, int, int, float, const float*, int64_t, int64_t,
                                  const float*, int64_t, float*, int64_t, bool, const float*,
                                  const float*, int64_t);
template void TiledProduct<double>(int, int, int, double, const double*, int64_t, int64_t,
                                   const double*, int64_t, double*, int64_t, bool, const double*,
                                   const double*, int64_t);

}  // namespace attnlab
