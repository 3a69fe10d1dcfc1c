// Float products through the GEMM libraries (libxsmm's JIT kernels, oneDNN's sgemm) for the
// classes of block where the machine that runs them timed them faster than TiledProduct
// (product_choices.h); experiments/BENCHMARKS.md, "GEMM libraries against our products", has
// the A/B on our workloads' shapes.
#ifndef ATTNLAB_ATTENTION_KERNELS_LIBRARY_PRODUCT_H_
#define ATTNLAB_ATTENTION_KERNELS_LIBRARY_PRODUCT_H_

#include <cstdint>

namespace attnlab {

// Which code multiplies float blocks. kChosen is the default (per class of block, the
// backend GetProductChoices() names); the others force one implementation, for the A/B and for
// tests of each path.
enum class ProductBackend { kChosen, kTiled, kLibxsmm, kOneDnn };

// Process-wide; set before products run (not while they run).
void SetProductBackend(ProductBackend backend);
ProductBackend GetProductBackend();
const char* ProductBackendName(ProductBackend backend);
// The backend of that name (chosen, tiled, libxsmm, onednn); false for any other.
bool ParseProductBackend(const char* name, ProductBackend* backend);

// C (rows x cols, row stride ldc) = alpha op(A) B (+ C with accumulate), with op(A)(i, k) =
// a[i * a_row + k * a_col] (one of a_row, a_col is 1) and B row-major (row stride ldb). With a
// bias (cols entries) it is added to every row; with an addend (rows x cols, row stride
// ld_addend; not with accumulate) C = addend + alpha op(A) B. Returns false, having written
// nothing, where the backend gives this product to TiledProduct.
bool LibraryProduct(int rows, int cols, int depth, float alpha, const float* a, int64_t a_row,
                    int64_t a_col, const float* b, int64_t ldb, float* c, int64_t ldc,
                    bool accumulate, const float* bias, const float* addend, int64_t ld_addend);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_LIBRARY_PRODUCT_H_
