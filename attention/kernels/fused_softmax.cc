#include "attention/kernels/fused_softmax.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "Eigen/Core"
#include "attention/kernels/product.h"
#include "attention/kernels/row_tiles.h"
#include "attention/kernels/softmax.h"

namespace attnlab {
namespace {

using namespace Eigen::internal;

#ifdef EIGEN_VECTORIZE_AVX512
// out's first `cols` rows (stride ldo) = the 16 x 16 block of x (stride ldx) transposed, rows
// of x past `rows` and columns past `cols` read as zero: four rounds of shuffles.
void TransposeBlock16(const float* x, int64_t ldx, int rows, int cols, float* out, int64_t ldo) {
  const __mmask16 columns = __mmask16((1u << cols) - 1);
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) {
    r[i] = i < rows ? _mm512_maskz_loadu_ps(columns, x + i * ldx) : _mm512_setzero_ps();
  }
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    for (int j = 0; j < 2; ++j) {
      const __m512d a = _mm512_castps_pd(t[i + j]), b = _mm512_castps_pd(t[i + j + 2]);
      r[i + 2 * j] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
      r[i + 2 * j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    }
  }
  for (int i = 0; i < 16; i += 8) {
    for (int j = 0; j < 4; ++j) {
      t[i + j] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0x88);
      t[i + j + 4] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0xDD);
    }
  }
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
    r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xDD);
  }
  for (int i = 0; i < cols; ++i) _mm512_storeu_ps(out + i * ldo, r[i]);
}
#endif

// x^T (cols x PaddedColumns(rows), row-major) in this thread's buffer, zero past `rows`: the
// keys' packets as the tiles read them. Floats by 16 x 16 blocks transposed in registers
// (README's A/B for a ViT head's 50 x 16 keys: 0.06 us, libxsmm_otrans 0.10 us, gathers
// 0.21 us); doubles by strided gathers.
template <typename T>
const T* TransposedKeys(int rows, int cols, const T* x, int64_t ldx) {
  constexpr int L = kPacketSize<T>;
  const int64_t padded = PaddedColumns<T>(rows);
  std::vector<T>& buffer = product_internal::ThreadBuffer<T, 2>::Get().values;
  if (buffer.size() < size_t(cols * padded)) buffer.resize(cols * padded);
#ifdef EIGEN_VECTORIZE_AVX512
  if constexpr (std::is_same_v<T, float> && L == 16) {
    for (int r = 0; r < rows; r += 16) {
      for (int c = 0; c < cols; c += 16) {
        TransposeBlock16(x + r * ldx + c, ldx, std::min(16, rows - r), std::min(16, cols - c),
                         buffer.data() + c * padded + r, padded);
      }
    }
    return buffer.data();
  }
#endif
  const int full = rows - rows % L;
  for (int c = 0; c < cols; ++c) {
    T* out = buffer.data() + c * padded;
    for (int r = 0; r < full; r += L) pstoreu(out + r, pgather<T, Packet<T>>(x + r * ldx + c, ldx));
    for (int r = full; r < rows; ++r) out[r] = x[r * ldx + c];
    std::fill(out + rows, out + padded, T(0));
  }
  return buffer.data();
}

// acc[r][p] = sum over depth of a(r, i) kt(i, packet p): a tile of a * kt.
template <typename T, int kRows, int kPackets>
EIGEN_ALWAYS_INLINE void TileProduct(int depth, const T* a, int64_t lda, const T* kt, int64_t ldkt,
                                     Packet<T> (&acc)[kRows][kPackets]) {
  using P = Packet<T>;
  for (int r = 0; r < kRows; ++r) {
    for (int p = 0; p < kPackets; ++p) acc[r][p] = pset1<P>(T(0));
  }
  for (int i = 0; i < depth; ++i) {
    P b[kPackets];
    for (int p = 0; p < kPackets; ++p) b[p] = ploadu<P>(kt + i * ldkt + p * kPacketSize<T>);
    for (int r = 0; r < kRows; ++r) {
      const P broadcast = pset1<P>(a[r * lda + i]);
      for (int p = 0; p < kPackets; ++p) acc[r][p] = pmadd(broadcast, b[p], acc[r][p]);
    }
  }
}

// Lanes below `lanes` all ones, the rest zero: the valid part of a row's last packet.
template <typename T>
EIGEN_ALWAYS_INLINE Packet<T> LaneMask(int lanes) {
  using P = Packet<T>;
  return pcmp_lt(plset<P>(T(0)), pset1<P>(T(lanes)));
}

template <typename T, int kPackets>
EIGEN_ALWAYS_INLINE void StoreRow(const Packet<T> (&row)[kPackets], int last_lanes, T* out) {
  constexpr int L = kPacketSize<T>;
  for (int p = 0; p + 1 < kPackets; ++p) pstoreu(out + p * L, row[p]);
  if (last_lanes == L) {
    pstoreu(out + (kPackets - 1) * L, row[kPackets - 1]);
  } else {
    StoreTail(out + (kPackets - 1) * L, row[kPackets - 1], last_lanes);
  }
}

template <typename T, int kRows, int kPackets>
EIGEN_ALWAYS_INLINE void SoftmaxTile(int depth, T scale, const T* q, int64_t ldq, const T* kt,
                                     int64_t ldkt, int last_lanes, T* probs, int64_t ldp) {
  using P = Packet<T>;
  P s[kRows][kPackets];
  TileProduct<T, kRows, kPackets>(depth, q, ldq, kt, ldkt, s);
  const P factor = pset1<P>(scale), valid = LaneMask<T>(last_lanes);
  const P minus_inf = pset1<P>(-std::numeric_limits<T>::infinity());
  // Stage by stage over the tile's rows: each row's chain (max, exp, sum, scale) is serial,
  // the rows' chains are independent and overlap.
  P shift[kRows];
  for (int r = 0; r < kRows; ++r) {
    for (int p = 0; p < kPackets; ++p) s[r][p] = pmul(factor, s[r][p]);
    s[r][kPackets - 1] = pselect(valid, s[r][kPackets - 1], minus_inf);
    P max = s[r][0];
    for (int p = 1; p < kPackets; ++p) max = pmax(max, s[r][p]);
    shift[r] = pset1<P>(predux_max(max));
  }
  P inverse[kRows];
  for (int r = 0; r < kRows; ++r) {
    P sum = pset1<P>(T(0));
    for (int p = 0; p < kPackets; ++p) {
      s[r][p] = softmax_internal::Exp<T>(psub(s[r][p], shift[r]));
      sum = padd(sum, s[r][p]);
    }
    inverse[r] = pset1<P>(T(1) / predux(sum));
  }
  for (int r = 0; r < kRows; ++r) {
    for (int p = 0; p < kPackets; ++p) s[r][p] = pmul(s[r][p], inverse[r]);
    StoreRow<T, kPackets>(s[r], last_lanes, probs + r * ldp);
  }
}

template <typename T, int kRows, int kPackets>
EIGEN_ALWAYS_INLINE void SoftmaxBackwardTile(int depth, const T* g, int64_t ldg, const T* vt,
                                             int64_t ldvt, int last_lanes, const T* probs,
                                             int64_t ldp, T* grad_scores, int64_t lds) {
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  P grad[kRows][kPackets];  // dL/dprobs
  TileProduct<T, kRows, kPackets>(depth, g, ldg, vt, ldvt, grad);
  const P minus_inf = pset1<P>(-std::numeric_limits<T>::infinity());
  for (int r = 0; r < kRows; ++r) {
    P p[kPackets];
    const T* row = probs + r * ldp;
    for (int k = 0; k + 1 < kPackets; ++k) p[k] = ploadu<P>(row + k * L);
    p[kPackets - 1] = last_lanes == L ? ploadu<P>(row + (kPackets - 1) * L)
                                      : LoadTail(row + (kPackets - 1) * L, last_lanes, T(0));
    P max = p[0];
    for (int k = 1; k < kPackets; ++k) max = pmax(max, p[k]);
    const P largest = pset1<P>(predux_max(max));
    P dominant = pselect(pcmp_eq(p[0], largest), grad[r][0], minus_inf);
    for (int k = 1; k < kPackets; ++k) {
      dominant = pmax(dominant, pselect(pcmp_eq(p[k], largest), grad[r][k], minus_inf));
    }
    const P g_m = pset1<P>(predux_max(dominant));
    P tail = pset1<P>(T(0));
    for (int k = 0; k < kPackets; ++k) {
      grad[r][k] = psub(grad[r][k], g_m);
      tail = pmadd(p[k], grad[r][k], tail);  // the padding's p is 0
    }
    const P shift = pset1<P>(predux(tail));
    for (int k = 0; k < kPackets; ++k) grad[r][k] = pmul(p[k], psub(grad[r][k], shift));
    StoreRow<T, kPackets>(grad[r], last_lanes, grad_scores + r * lds);
  }
}

// Calls f(std::integral_constant<int, packets>()) for packets in 1 .. kPackets.
template <int kPackets, typename F>
void WithPackets(int packets, F&& f) {
  if constexpr (kPackets > 1) {
    if (packets < kPackets) return WithPackets<kPackets - 1>(packets, f);
  }
  f(std::integral_constant<int, kPackets>());
}

// Transposes k (keys x depth) for the tiles and calls tile(height, packets, row, kt, ldkt,
// last_lanes) for every register tile of the rows x keys scores, height and packets as
// compile-time constants.
template <typename T, typename Tile>
void ForEachScoreTile(int rows, int keys, int depth, const T* k, int64_t ldk, Tile&& tile) {
  eigen_assert(keys >= 1 && keys <= kMaxFusedKeys<T>);
  constexpr int L = kPacketSize<T>;
  const T* kt = TransposedKeys(keys, depth, k, ldk);
  const int64_t ldkt = PaddedColumns<T>(keys);
  const int packets = int(ldkt / L), last_lanes = keys - (packets - 1) * L;
  WithPackets<4>(packets, [&](auto packets_constant) {
    constexpr int kPackets = decltype(packets_constant)::value;
    ForEachRowTile<kTileRows<kPackets>>(rows, [&](auto height, int row) {
      tile(height, packets_constant, row, kt, ldkt, last_lanes);
    });
  });
}

}  // namespace

template <typename T>
void FusedSoftmaxScores(int rows, int keys, int depth, T scale, const T* q, int64_t ldq, const T* k,
                        int64_t ldk, T* probs, int64_t ldp) {
  ForEachScoreTile(rows, keys, depth, k, ldk,
                   [&](auto height, auto packets, int row, const T* kt, int64_t ldkt, int lanes) {
                     SoftmaxTile<T, decltype(height)::value, decltype(packets)::value>(
                         depth, scale, q + row * ldq, ldq, kt, ldkt, lanes, probs + row * ldp, ldp);
                   });
}

template <typename T>
void FusedSoftmaxScoresBackward(int rows, int keys, int depth, const T* g, int64_t ldg, const T* v,
                                int64_t ldv, const T* probs, int64_t ldp, T* grad_scores,
                                int64_t lds) {
  ForEachScoreTile(rows, keys, depth, v, ldv,
                   [&](auto height, auto packets, int row, const T* vt, int64_t ldvt, int lanes) {
                     SoftmaxBackwardTile<T, decltype(height)::value, decltype(packets)::value>(
                         depth, g + row * ldg, ldg, vt, ldvt, lanes, probs + row * ldp, ldp,
                         grad_scores + row * lds, lds);
                   });
}

template void FusedSoftmaxScores<float>(int, int, int, float, const float*, int64_t, const float*,
                                        int64_t, float*, int64_t);
template void FusedSoftmaxScores<double>(int, int, int, double, const double*, int64_t,
                                         const double*, int64_t, double*, int64_t);
template void FusedSoftmaxScoresBackward<float>(int, int, int, const float*, int64_t, const float*,
                                                int64_t, const float*, int64_t, float*, int64_t);
template void FusedSoftmaxScoresBackward<double>(int, int, int, const double*, int64_t,
                                                 const double*, int64_t, const double*, int64_t,
                                                 double*, int64_t);

}  // namespace attnlab
