#include "attention/kernels/fused_softmax.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "Eigen/Core"
#include "attention/kernels/product.h"
#include "attention/kernels/row_tiles.h"
#include "attention/kernels/softmax.h"
#include "attention/kernels/transpose_block.h"

// As in packet.h: packets as template arguments lose attributes nothing here depends on.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace attnlab {
namespace {

using namespace Eigen::internal;


// x^T (cols x PaddedColumns(rows), row-major) in this thread's buffer, zero past `rows`: the
// keys' packets as the tiles read them. Floats by 16 x 16 blocks transposed in registers
// (faster than libxsmm_otrans and gathers: experiments/BENCHMARKS.md); doubles by strided
// gathers.
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

// The packets of one row of a register tile over the keys: kPackets packets, the last a half
// packet where kHalf. On 256-bit FMA units (Zen 4) a 512-bit FMA costs two: a row of 50 float
// keys is 3 x 16 + 8 lanes of work, not 4 x 16.
template <typename T, int kPackets, bool kHalf>
struct RowPackets {
  using P = Packet<T>;
  using Last = std::conditional_t<kHalf, HalfPacket<T>, P>;
  static constexpr int kLastLanes = Eigen::internal::unpacket_traits<Last>::size;
  P first[kPackets > 1 ? kPackets - 1 : 1];  // the first kPackets - 1
  Last last;

  // f(packet, its first key) for each packet, whatever its type.
  template <typename F>
  EIGEN_ALWAYS_INLINE void ForEach(F&& f) {
    for (int p = 0; p + 1 < kPackets; ++p) f(first[p], p * kPacketSize<T>);
    f(last, (kPackets - 1) * kPacketSize<T>);
  }
  // f(this row's packet, other's) for each pair of packets.
  template <typename F>
  EIGEN_ALWAYS_INLINE void ForEachWith(RowPackets& other, F&& f) {
    for (int p = 0; p + 1 < kPackets; ++p) f(first[p], other.first[p]);
    f(last, other.last);
  }
  // reduce(the packets combined by combine): the row's max or sum.
  template <typename Combine, typename Fold>
  EIGEN_ALWAYS_INLINE T Reduce(Combine combine, Fold reduce) const {
    if constexpr (kPackets == 1) {
      return reduce(last);
    } else {
      P all = first[0];
      for (int p = 1; p + 1 < kPackets; ++p) all = combine(all, first[p]);
      if constexpr (kHalf) {
        return combine(reduce(all), reduce(last));
      } else {
        return reduce(combine(all, last));
      }
    }
  }
  EIGEN_ALWAYS_INLINE T Max() const {
    return Reduce([](auto a, auto b) { return pmax(a, b); },
                  [](const auto& x) { return predux_max(x); });
  }
  EIGEN_ALWAYS_INLINE T Sum() const {
    return Reduce([](auto a, auto b) { return padd(a, b); },
                  [](const auto& x) { return predux(x); });
  }
  // x = exp(x - shift) in every packet, the full packets' chains interleaved (ExpInPlace).
  EIGEN_ALWAYS_INLINE void ExpShifted(T shift) {
    if constexpr (kPackets > 1) {
      for (P& x : first) x = psub(x, pset1<P>(shift));
      softmax_internal::ExpInPlace<T>(first);
    }
    last = softmax_internal::Exp<T, Last>(psub(last, pset1<Last>(shift)));
  }
  // Loads a row of keys, of which the last packet holds last_lanes; its other lanes `fill`.
  EIGEN_ALWAYS_INLINE void Load(const T* x, int last_lanes, T fill) {
    for (int p = 0; p + 1 < kPackets; ++p) first[p] = ploadu<P>(x + p * kPacketSize<T>);
    const T* tail = x + (kPackets - 1) * kPacketSize<T>;
    last = last_lanes < kLastLanes ? LoadTail<T, Last>(tail, last_lanes, fill)
                                   : ploadu<Last>(tail);
  }
  EIGEN_ALWAYS_INLINE void Store(int last_lanes, T* y) const {
    for (int p = 0; p + 1 < kPackets; ++p) pstoreu(y + p * kPacketSize<T>, first[p]);
    T* tail = y + (kPackets - 1) * kPacketSize<T>;
    if (last_lanes < kLastLanes) {
      StoreTail(tail, last, last_lanes);
    } else {
      pstoreu(tail, last);
    }
  }
};

// acc[r] = sum over depth of a(r, i) kt(i, :): a tile of a * kt.
template <typename T, int kRows, typename Row>
EIGEN_ALWAYS_INLINE void TileProduct(int depth, const T* a, int64_t lda, const T* kt, int64_t ldkt,
                                     Row (&acc)[kRows]) {
  for (int r = 0; r < kRows; ++r) {
    acc[r].ForEach([](auto& x, int) { x = pset1<std::decay_t<decltype(x)>>(T(0)); });
  }
  for (int i = 0; i < depth; ++i) {
    Row b;
    b.ForEach([&](auto& x, int key) {
      x = ploadu<std::decay_t<decltype(x)>>(kt + i * ldkt + key);
    });
    for (int r = 0; r < kRows; ++r) {
      const T value = a[r * lda + i];
      acc[r].ForEachWith(b, [&](auto& x, const auto& y) {
        x = pmadd(pset1<std::decay_t<decltype(x)>>(value), y, x);
      });
    }
  }
}

// Lanes below `lanes` all ones, the rest zero: the valid part of a row's last packet.
template <typename T, typename P>
EIGEN_ALWAYS_INLINE P LaneMask(int lanes) {
  return pcmp_lt(plset<P>(T(0)), pset1<P>(T(lanes)));
}

template <typename T, int kRows, typename Row>
EIGEN_ALWAYS_INLINE void SoftmaxTile(int depth, T scale, const T* q, int64_t ldq, const T* kt,
                                     int64_t ldkt, int last_lanes, T* probs, int64_t ldp) {
  using Last = typename Row::Last;
  Row s[kRows];
  TileProduct<T, kRows>(depth, q, ldq, kt, ldkt, s);
  const Last valid = LaneMask<T, Last>(last_lanes);
  // Stage by stage over the tile's rows: each row's chain (max, exp, sum, scale) is serial,
  // the rows' chains are independent and overlap.
  T shift[kRows];
  for (int r = 0; r < kRows; ++r) {
    s[r].ForEach([&](auto& x, int) { x = pmul(pset1<std::decay_t<decltype(x)>>(scale), x); });
    s[r].last = pselect(valid, s[r].last, pset1<Last>(-std::numeric_limits<T>::infinity()));
    shift[r] = s[r].Max();
  }
  T inverse[kRows];
  for (int r = 0; r < kRows; ++r) {
    s[r].ExpShifted(shift[r]);
    inverse[r] = T(1) / s[r].Sum();
  }
  for (int r = 0; r < kRows; ++r) {
    s[r].ForEach([&](auto& x, int) { x = pmul(x, pset1<std::decay_t<decltype(x)>>(inverse[r])); });
    s[r].Store(last_lanes, probs + r * ldp);
  }
}

template <typename T, int kRows, typename Row>
EIGEN_ALWAYS_INLINE void SoftmaxBackwardTile(int depth, const T* g, int64_t ldg, const T* vt,
                                             int64_t ldvt, int last_lanes, const T* probs,
                                             int64_t ldp, T* grad_scores, int64_t lds) {
  constexpr T kMinusInf = -std::numeric_limits<T>::infinity();
  Row grad[kRows];  // dL/dprobs
  TileProduct<T, kRows>(depth, g, ldg, vt, ldvt, grad);
  // Stage by stage over the tile's rows, as in SoftmaxTile, so that the rows' three serial
  // reductions overlap; each stage reloads the row's probabilities from L1 (the tile's
  // gradients hold most of the registers).
  auto load_probs = [&](int r) {
    Row p;
    p.Load(probs + r * ldp, last_lanes, T(0));
    return p;
  };
  T largest[kRows];
  for (int r = 0; r < kRows; ++r) largest[r] = load_probs(r).Max();
  // The dominant token's dL/dprobs: the largest among the largest probabilities.
  T g_m[kRows];
  for (int r = 0; r < kRows; ++r) {
    Row p = load_probs(r), dominant = grad[r];
    dominant.ForEachWith(p, [&](auto& d, const auto& x) {
      using Q = std::decay_t<decltype(x)>;
      d = pselect(pcmp_eq(x, pset1<Q>(largest[r])), d, pset1<Q>(kMinusInf));
    });
    g_m[r] = dominant.Max();
  }
  T shift[kRows];
  for (int r = 0; r < kRows; ++r) {
    grad[r].ForEach([&](auto& x, int) { x = psub(x, pset1<std::decay_t<decltype(x)>>(g_m[r])); });
    Row weighted = load_probs(r);  // p .* (g - g_m); the padding's p is 0
    weighted.ForEachWith(grad[r], [](auto& x, const auto& y) { x = pmul(x, y); });
    shift[r] = weighted.Sum();
  }
  for (int r = 0; r < kRows; ++r) {
    Row p = load_probs(r);
    grad[r].ForEachWith(p, [&](auto& x, const auto& y) {
      x = pmul(y, psub(x, pset1<std::decay_t<decltype(x)>>(shift[r])));
    });
    grad[r].Store(last_lanes, grad_scores + r * lds);
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

// Whether a half packet can end a row (AVX-512, whose half packets have masked loads and
// stores here).
template <typename T>
constexpr bool kHalfTails =
#ifdef EIGEN_VECTORIZE_AVX512
    Eigen::internal::unpacket_traits<HalfPacket<T>>::size * 2 == kPacketSize<T>;
#else
    false;
#endif

// Transposes k (keys x depth) for the tiles and calls tile(height, Row(), row, kt, ldkt,
// last_lanes) for every register tile of the rows x keys scores: height a compile-time
// constant, Row the tile's RowPackets type.
template <typename T, typename Tile>
void ForEachScoreTile(int rows, int keys, int depth, const T* k, int64_t ldk, Tile&& tile) {
  eigen_assert(keys >= 1 && keys <= kMaxFusedKeys<T>);
  constexpr int L = kPacketSize<T>;
  const T* kt = TransposedKeys(keys, depth, k, ldk);
  const int64_t ldkt = PaddedColumns<T>(keys);
  const int packets = int(ldkt / L), last_lanes = keys - (packets - 1) * L;
  WithPackets<kFusedPackets>(packets, [&](auto packets_constant) {
    constexpr int kPackets = decltype(packets_constant)::value;
    auto rows_of = [&](auto row_type) {
      ForEachRowTile<kTileRows<kPackets>>(rows, [&](auto height, int row) {
        tile(height, row_type, row, kt, ldkt, last_lanes);
      });
    };
    if constexpr (kHalfTails<T>) {
      if (last_lanes <= L / 2) return rows_of(RowPackets<T, kPackets, true>());
    }
    rows_of(RowPackets<T, kPackets, false>());
  });
}

}  // namespace

template <typename T>
void FusedSoftmaxScores(int rows, int keys, int depth, T scale, const T* q, int64_t ldq, const T* k,
                        int64_t ldk, T* probs, int64_t ldp) {
  ForEachScoreTile(rows, keys, depth, k, ldk,
                   [&](auto height, auto row_type, int row, const T* kt, int64_t ldkt, int lanes) {
                     SoftmaxTile<T, decltype(height)::value, decltype(row_type)>(
                         depth, scale, q + row * ldq, ldq, kt, ldkt, lanes, probs + row * ldp, ldp);
                   });
}

template <typename T>
void FusedSoftmaxScoresBackward(int rows, int keys, int depth, const T* g, int64_t ldg, const T* v,
                                int64_t ldv, const T* probs, int64_t ldp, T* grad_scores,
                                int64_t lds) {
  ForEachScoreTile(rows, keys, depth, v, ldv,
                   [&](auto height, auto row_type, int row, const T* vt, int64_t ldvt, int lanes) {
                     SoftmaxBackwardTile<T, decltype(height)::value, decltype(row_type)>(
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
