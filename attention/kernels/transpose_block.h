// A 16 x 16 float block transposed in AVX-512 registers: the fused softmax kernels' keys and
// the symmetric sum's tiles.
#ifndef ATTNLAB_ATTENTION_KERNELS_TRANSPOSE_BLOCK_H_
#define ATTNLAB_ATTENTION_KERNELS_TRANSPOSE_BLOCK_H_

#include <cstdint>

#include "Eigen/Core"

namespace attnlab {

#ifdef EIGEN_VECTORIZE_AVX512
// r (16 rows of 16) transposed in place: four rounds of shuffles.
inline void Transpose16(__m512 r[16]) {
  __m512 t[16];
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
}

// The block of `rows` rows of `cols` values at x (stride ldx) in registers, zero past them.
inline void LoadBlock16(const float* x, int64_t ldx, int rows, int cols, __m512 r[16]) {
  const __mmask16 columns = __mmask16((1u << cols) - 1);
  for (int i = 0; i < 16; ++i) {
    r[i] = i < rows ? _mm512_maskz_loadu_ps(columns, x + i * ldx) : _mm512_setzero_ps();
  }
}

// out's first `cols` rows (stride ldo, whole rows of 16 written) = the block of `rows` rows of
// `cols` values at x (stride ldx) transposed, zero past them.
inline void TransposeBlock16(const float* x, int64_t ldx, int rows, int cols, float* out,
                             int64_t ldo) {
  __m512 r[16];
  LoadBlock16(x, ldx, rows, cols, r);
  Transpose16(r);
  for (int i = 0; i < cols; ++i) _mm512_storeu_ps(out + i * ldo, r[i]);
}
#endif

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_TRANSPOSE_BLOCK_H_
