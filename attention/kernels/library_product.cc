#include "attention/kernels/library_product.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "attention/kernels/product.h"
#include "attention/kernels/product_choices.h"
#include "dnnl.h"
#include "libxsmm.h"

namespace attnlab {
namespace {

std::atomic<ProductBackend> backend{ProductBackend::kChosen};

// libxsmm is column-major: row-major C = op(A) B is column-major C^T = B^T op(A)^T, so B comes
// first. alpha is 1 (libxsmm 1.17 generates no other). Null where it generates no kernel.
libxsmm_smmfunction XsmmKernel(int rows, int cols, int depth, int64_t a_row, int64_t a_col,
                               int64_t ldb, int64_t ldc, bool beta_one) {
  int flags = 0;
  libxsmm_blasint ld_op_a;
  if (a_col == 1) {
    ld_op_a = a_row;  // op(A)^T is column-major depth x rows
  } else if (a_row == 1) {
    ld_op_a = a_col;  // op(A)^T is the transpose of a column-major rows x depth
    flags |= LIBXSMM_GEMM_FLAG_TRANS_B;
  } else {
    return nullptr;
  }
  const libxsmm_blasint m = cols, n = rows, k = depth, lda = ldb, ldc_x = ldc;
  const float one = 1, beta = beta_one ? 1 : 0;
  return libxsmm_smmdispatch(m, n, k, &lda, &ld_op_a, &ldc_x, &one, &beta, &flags, nullptr);
}

// oneDNN's sgemm runs on OpenMP threads: ours already split the work, so each calling thread
// keeps it to one (OpenMP's thread count is per thread).
void OneDnnProduct(int rows, int cols, int depth, float alpha, const float* a, int64_t a_row,
                   int64_t a_col, const float* b, int64_t ldb, float* c, int64_t ldc,
                   bool beta_one) {
  thread_local bool one_thread = (omp_set_num_threads(1), true);
  (void)one_thread;
  const bool transposed = a_col != 1;
  const dnnl_status_t status =
      dnnl_sgemm(transposed ? 'T' : 'N', 'N', rows, cols, depth, alpha, a,
                 transposed ? a_col : a_row, b, ldb, beta_one ? 1.0f : 0.0f, c, ldc);
  if (status != dnnl_success) {
    std::fprintf(stderr, "internal error: dnnl_sgemm failed (status %d) on %d x %d x %d\n",
                 int(status), rows, cols, depth);
    std::abort();
  }
}

// Whether rows `ld` floats apart are a multiple of 2 KiB apart.
bool AliasedRows(int64_t ld) { return ld * int64_t(sizeof(float)) % 2048 == 0; }
// The row stride of a copy of `cols` columns: whole 64-byte lines, and not AliasedRows.
int64_t UnaliasedStride(int cols) {
  const int64_t lines = (int64_t(cols) + 15) / 16 * 16;
  return AliasedRows(lines) ? lines + 16 : lines;
}
// Below this many rows of A, the copy of B costs more than the aliasing (each B entry is
// used once per row).
constexpr int kMinRowsForCopy = 64;

// The library for a block: the forced backend, or the one chosen for its class
// (product_choices.h).
enum class Library { kNone, kLibxsmm, kOneDnn };
Library Choose(int rows, int cols, int depth, bool lhs_transposed, int64_t ldb) {
  ProductBackend chosen = backend.load(std::memory_order_relaxed);
  if (chosen == ProductBackend::kChosen) {
    const bool strided_rhs = ldb >= 8 * int64_t(cols);
    chosen = GetProductChoices()[ProductClass(rows, cols, depth, lhs_transposed, strided_rhs)];
  }
  switch (chosen) {
    case ProductBackend::kLibxsmm: return Library::kLibxsmm;
    case ProductBackend::kOneDnn: return Library::kOneDnn;
    default:
      return Library::kNone;
  }
}

// C's rows set to (or, with accumulate, incremented by) the addend and the bias, so that the
// library's product is added with beta = 1.
void Prefill(int rows, int cols, float* c, int64_t ldc, bool accumulate, const float* bias,
             const float* addend, int64_t ld_addend) {
  if (addend == nullptr && bias == nullptr) return;
  for (int i = 0; i < rows; ++i) {  // one pass over each row
    float* row = c + i * ldc;
    const float* add = addend == nullptr ? nullptr : addend + i * ld_addend;
    if (bias == nullptr) {
      if (add != nullptr) {
        std::copy(add, add + cols, row);
      } else if (!accumulate) {
        std::fill(row, row + cols, 0.0f);
      }
    } else if (add != nullptr) {
      for (int j = 0; j < cols; ++j) row[j] = add[j] + bias[j];
    } else if (!accumulate) {
      std::copy(bias, bias + cols, row);
    } else {
      for (int j = 0; j < cols; ++j) row[j] += bias[j];
    }
  }
}

}  // namespace

void SetProductBackend(ProductBackend b) { backend.store(b); }
ProductBackend GetProductBackend() { return backend.load(); }

const char* ProductBackendName(ProductBackend b) {
  switch (b) {
    case ProductBackend::kChosen: return "chosen";
    case ProductBackend::kTiled: return "tiled";
    case ProductBackend::kLibxsmm: return "libxsmm";
    case ProductBackend::kOneDnn: return "onednn";
  }
  return "unknown";
}

bool ParseProductBackend(const char* name, ProductBackend* backend) {
  for (ProductBackend b : {ProductBackend::kChosen, ProductBackend::kTiled,
                           ProductBackend::kLibxsmm, ProductBackend::kOneDnn}) {
    if (std::strcmp(name, ProductBackendName(b)) == 0) {
      *backend = b;
      return true;
    }
  }
  return false;
}

bool LibraryProduct(int rows, int cols, int depth, float alpha, const float* a, int64_t a_row,
                    int64_t a_col, const float* b, int64_t ldb, float* c, int64_t ldc,
                    bool accumulate, const float* bias, const float* addend, int64_t ld_addend) {
  if (a_col != 1 && a_row != 1) return false;
  // A single row or column may come with any stride for the unused direction; the libraries
  // want a leading dimension of at least the matrix's width.
  if (a_col == 1) {
    a_row = std::max<int64_t>(a_row, depth);
  } else {
    a_col = std::max<int64_t>(a_col, rows);
  }
  ldb = std::max<int64_t>(ldb, cols);
  ldc = std::max<int64_t>(ldc, cols);
  const bool beta_one = accumulate || bias != nullptr || addend != nullptr;
  const Library library = Choose(rows, cols, depth, /*lhs_transposed=*/a_col != 1, ldb);
  if (library == Library::kNone) return false;
  if (library == Library::kLibxsmm) {
    // Another alpha only where C is overwritten: scaled after (a head's scaled scores).
    if (alpha != 1.0f && beta_one) return false;
    const libxsmm_smmfunction kernel =
        XsmmKernel(rows, cols, depth, a_row, a_col, ldb, ldc, beta_one);
    if (kernel == nullptr) return false;
    Prefill(rows, cols, c, ldc, accumulate, bias, addend, ld_addend);
    kernel(b, a, c);
    if (alpha != 1.0f) {
      for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) c[i * ldc + j] *= alpha;
      }
    }
    return true;
  }
  Prefill(rows, cols, c, ldc, accumulate, bias, addend, ld_addend);
  if (a_col == 1 && AliasedRows(ldb) && rows >= kMinRowsForCopy) {
    // B's rows a multiple of 2 KiB apart share a few cache sets, and oneDNN's packing of B
    // for A B (not A^T B) slows the whole product to half speed (experiments/BENCHMARKS.md,
    // "Leading dimensions"): B copied to rows that are not, once per block.
    std::vector<float>& copy = product_internal::ThreadBuffer<float, 4>::Get().values;
    const int64_t ld_copy = UnaliasedStride(cols);
    if (copy.size() < size_t(depth * ld_copy)) copy.resize(depth * ld_copy);
    for (int i = 0; i < depth; ++i) std::copy(b + i * ldb, b + i * ldb + cols, &copy[i * ld_copy]);
    OneDnnProduct(rows, cols, depth, alpha, a, a_row, a_col, copy.data(), ld_copy, c, ldc,
                  beta_one);
    return true;
  }
  OneDnnProduct(rows, cols, depth, alpha, a, a_row, a_col, b, ldb, c, ldc, beta_one);
  return true;
}

}  // namespace attnlab
