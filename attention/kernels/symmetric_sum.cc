#include "attention/kernels/symmetric_sum.h"

#include <algorithm>
#include <type_traits>

#include "attention/kernels/transpose_block.h"

namespace attnlab {

template <typename T>
void ScaledSymmetricSum(int n, T scale, T* g, int64_t ldg) {
#ifdef EIGEN_VECTORIZE_AVX512
  if constexpr (std::is_same_v<T, float>) {
    // By pairs of 16 x 16 tiles (I, J), I <= J, in registers: tile (I, J) becomes
    // scale (tile (I, J) + tile (J, I)^T), and tile (J, I) its transpose.
    const __m512 s = _mm512_set1_ps(scale);
    __m512 a[16], b[16];
    for (int i = 0; i < n; i += 16) {
      const int hi = std::min(16, n - i);
      for (int j = i; j < n; j += 16) {
        const int hj = std::min(16, n - j);
        LoadBlock16(g + j * ldg + i, ldg, hj, hi, b);
        Transpose16(b);  // hi rows of hj values
        LoadBlock16(g + i * ldg + j, ldg, hi, hj, a);
        const __mmask16 lanes_j = __mmask16((1u << hj) - 1);
        for (int r = 0; r < 16; ++r) {
          a[r] = _mm512_mul_ps(s, _mm512_add_ps(a[r], b[r]));  // zero past hi rows and hj lanes
          if (r < hi) _mm512_mask_storeu_ps(g + (i + r) * ldg + j, lanes_j, a[r]);
        }
        if (j == i) continue;  // a diagonal tile is symmetric now
        Transpose16(a);
        const __mmask16 lanes_i = __mmask16((1u << hi) - 1);
        for (int r = 0; r < hj; ++r) _mm512_mask_storeu_ps(g + (j + r) * ldg + i, lanes_i, a[r]);
      }
    }
    return;
  }
#endif
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) {
      const T sum = scale * (g[i * ldg + j] + g[j * ldg + i]);
      g[i * ldg + j] = sum;
      g[j * ldg + i] = sum;
    }
  }
}

template void ScaledSymmetricSum(int, float, float*, int64_t);
template void ScaledSymmetricSum(int, double, double*, int64_t);

}  // namespace attnlab
