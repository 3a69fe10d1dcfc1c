#include "attention/kernels/product_timing.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "attention/kernels/tiled_product.h"

namespace attnlab {
namespace {

// Each class's representative block: a depth inside its depth class, and rows x cols inside
// its output class, shaped like the blocks ParallelProduct passes (column blocks of up to 512,
// as many rows as the whole product: the largest class's operands do not fit in L2, as a
// weight gradient's do not). The second output class's block is a width-64 layer's weight
// gradient, 64 x 64: a library that is fast at 96 columns can be slow at 64
// (experiments/BENCHMARKS.md, "GEMM libraries").
constexpr int kDepths[] = {48, 160, 384, 1024};
constexpr int kOutputs[][2] = {{48, 48}, {64, 64}, {384, 256}, {1024, 512}};

// How much slower than the fastest a preferred backend may be and still be chosen.
constexpr double kWithinFastest = 1.10;

// C = op(A) B on one backend, as StridedProduct runs it (TiledProduct where the library
// declines).
void MultiplyOn(ProductBackend backend, int rows, int cols, int depth, const float* a,
                int64_t a_row, int64_t a_col, const float* b, int64_t ldb, float* c) {
  SetProductBackend(backend);
  if (!LibraryProduct(rows, cols, depth, 1.0f, a, a_row, a_col, b, ldb, c, cols,
                      /*accumulate=*/false, nullptr, nullptr, 0)) {
    TiledProduct<float>(rows, cols, depth, 1.0f, a, a_row, a_col, b, ldb, c, cols, false);
  }
}

ProductClassTiming TimeClass(int product_class, int repeats) {
  const ProductClassParts parts = PartsOf(product_class);
  ProductClassTiming timing;
  timing.product_class = product_class;
  timing.rows = kOutputs[parts.output_class][0];
  timing.cols = kOutputs[parts.output_class][1];
  timing.depth = kDepths[parts.depth_class];
  const int rows = timing.rows, cols = timing.cols, depth = timing.depth;
  // A stored rows x depth, or depth x rows when transposed; B's rows 16 widths apart when
  // strided, else padded to whole packets as TiledProduct reads them.
  const int64_t a_row = parts.lhs_transposed ? 1 : depth;
  const int64_t a_col = parts.lhs_transposed ? rows : 1;
  const int64_t ldb =
      parts.strided_rhs ? 16 * PaddedColumns<float>(cols) : PaddedColumns<float>(cols);
  std::vector<float> a(int64_t(rows) * depth), b(int64_t(depth) * ldb), c(int64_t(rows) * cols);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) * 0.125f - 0.375f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) * 0.25f - 0.5f;
  // Enough products per measurement that each takes some 100 us, far above the clock's step.
  const int calls = std::max<int64_t>(1, (int64_t(1) << 22) / (int64_t(rows) * cols * depth));

  // In order of preference: the libraries first (the project keeps a kernel of its own only
  // where it is clearly faster), oneDNN before libxsmm (it takes every shape).
  constexpr ProductBackend kBackends[] = {ProductBackend::kOneDnn, ProductBackend::kLibxsmm,
                                          ProductBackend::kTiled};
  double best[3] = {1e30, 1e30, 1e30};
  for (int repeat = -1; repeat < repeats; ++repeat) {  // -1: warm-up (JIT, packing buffers)
    for (int i = 0; i < 3; ++i) {
      const auto start = std::chrono::steady_clock::now();
      for (int call = 0; call < calls; ++call) {
        MultiplyOn(kBackends[i], rows, cols, depth, a.data(), a_row, a_col, b.data(), ldb,
                   c.data());
      }
      const std::chrono::duration<double, std::micro> took =
          std::chrono::steady_clock::now() - start;
      if (repeat >= 0) best[i] = std::min(best[i], took.count() / calls);
    }
  }
  timing.onednn_us = best[0];
  timing.libxsmm_us = best[1];
  timing.tiled_us = best[2];
  // The first of oneDNN, libxsmm, tiled within 10% of the fastest: closer than that, two
  // tunings of one machine disagree (experiments/BENCHMARKS.md, Zen 3), and a block that is hot
  // in cache, timed alone, flatters the backends that do not pack their operands.
  const double fastest = std::min({best[0], best[1], best[2]});
  int chosen = 0;
  while (best[chosen] > fastest * kWithinFastest) ++chosen;
  timing.chosen = kBackends[chosen];
  return timing;
}

}  // namespace

std::vector<ProductClassTiming> TimeProductClasses(int repeats) {
  const ProductBackend before = GetProductBackend();
  std::vector<ProductClassTiming> timings;
  for (int c = 0; c < kProductClasses; ++c) timings.push_back(TimeClass(c, repeats));
  SetProductBackend(before);
  return timings;
}

ProductChoices ChoicesOf(const std::vector<ProductClassTiming>& timings) {
  ProductChoices choices = AllTiled();
  for (const ProductClassTiming& timing : timings) choices[timing.product_class] = timing.chosen;
  return choices;
}

std::string ProductTimingsTable(const std::vector<ProductClassTiming>& timings) {
  std::string table =
      "# class\tblock (rows x cols x depth)\ttiled us\tlibxsmm us\tonednn us\tchosen\n";
  for (const ProductClassTiming& t : timings) {
    absl::StrAppendFormat(&table, "# %s\t%d x %d x %d\t%.2f\t%.2f\t%.2f\t%s\n",
                          ProductClassName(t.product_class), t.rows, t.cols, t.depth, t.tiled_us,
                          t.libxsmm_us, t.onednn_us, ProductBackendName(t.chosen));
  }
  return table;
}

}  // namespace attnlab
