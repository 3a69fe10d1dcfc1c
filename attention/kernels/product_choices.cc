#include "attention/kernels/product_choices.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "attention/kernels/tiled_product.h"

namespace attnlab {
namespace {

constexpr int kDepthLimits[] = {64, 256, 512};         // classes 0-2; 3 is deeper
constexpr int64_t kOutputLimits[] = {64 * 64, 40000};  // classes 0-1; 2 is larger
// Each class's representative block: a depth inside the class, and rows x cols.
constexpr int kDepths[] = {48, 160, 384, 1024};
constexpr int kOutputs[][2] = {{48, 48}, {256, 96}, {512, 128}};

int DepthClass(int depth) {
  int c = 0;
  while (c < 3 && depth > kDepthLimits[c]) ++c;
  return c;
}

int OutputClass(int64_t entries) {
  int c = 0;
  while (c < 2 && entries >= kOutputLimits[c]) ++c;
  return c;
}

// Class index = ((lhs_transposed * 2 + strided_rhs) * 4 + depth class) * 3 + output class.
struct ClassParts {
  bool lhs_transposed, strided_rhs;
  int depth_class, output_class;
};

ClassParts Parts(int product_class) {
  return {product_class / 24 == 1, (product_class / 12) % 2 == 1, (product_class / 3) % 4,
          product_class % 3};
}

ProductChoices& Choices() {
  static ProductChoices choices = AllTiled();
  return choices;
}

// The letter of each chosen backend in a choices string.
struct BackendLetter {
  ProductBackend backend;
  char letter;
};
constexpr BackendLetter kLetters[] = {
    {ProductBackend::kTiled, 't'}, {ProductBackend::kLibxsmm, 'x'}, {ProductBackend::kOneDnn, 'o'}};

char Letter(ProductBackend backend) {
  for (const BackendLetter& entry : kLetters) {
    if (entry.backend == backend) return entry.letter;
  }
  return 't';  // kChosen never stands in a choices array
}

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
  const ClassParts parts = Parts(product_class);
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

  constexpr ProductBackend kBackends[] = {ProductBackend::kTiled, ProductBackend::kLibxsmm,
                                          ProductBackend::kOneDnn};
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
  timing.tiled_us = best[0];
  timing.libxsmm_us = best[1];
  timing.onednn_us = best[2];
  // The first of tiled, libxsmm, oneDNN within 3% of the fastest: closer than that, the choice
  // would follow the noise from one tuning to the next.
  const double fastest = std::min({best[0], best[1], best[2]});
  int chosen = 0;
  while (best[chosen] * 0.97 > fastest) ++chosen;
  timing.chosen = kBackends[chosen];
  return timing;
}

}  // namespace

int ProductClass(int rows, int cols, int depth, bool lhs_transposed, bool strided_rhs) {
  return ((int(lhs_transposed) * 2 + int(strided_rhs)) * 4 + DepthClass(depth)) * 3 +
         OutputClass(int64_t(rows) * cols);
}

std::string ProductClassName(int product_class) {
  const ClassParts parts = Parts(product_class);
  static const char* kDepthNames[] = {"depth <= 64", "depth 65-256", "depth 257-512",
                                      "depth > 512"};
  static const char* kOutputNames[] = {"out < 4096", "out < 40000", "out >= 40000"};
  return absl::StrCat(parts.lhs_transposed ? "A^T" : "A", " B", parts.strided_rhs ? " strided" : "",
                      ", ", kDepthNames[parts.depth_class], ", ", kOutputNames[parts.output_class]);
}

ProductChoices AllTiled() {
  ProductChoices choices;
  choices.fill(ProductBackend::kTiled);
  return choices;
}

void SetProductChoices(const ProductChoices& choices) { Choices() = choices; }
const ProductChoices& GetProductChoices() { return Choices(); }

std::string ProductChoicesString(const ProductChoices& choices) {
  std::string letters;
  for (ProductBackend backend : choices) letters += Letter(backend);
  return letters;
}

absl::StatusOr<ProductChoices> ParseProductChoices(absl::string_view letters) {
  if (letters.size() != kProductClasses) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", kProductClasses, " letters (one per class), got ", letters.size()));
  }
  ProductChoices choices;
  for (int i = 0; i < kProductClasses; ++i) {
    const BackendLetter* entry =
        std::find_if(std::begin(kLetters), std::end(kLetters),
                     [&](const BackendLetter& e) { return e.letter == letters[i]; });
    if (entry == std::end(kLetters)) {
      return absl::InvalidArgumentError(
          absl::StrCat("letter ", i + 1, " is '", letters.substr(i, 1),
                       "': expected t (tiled), x (libxsmm) or o (onednn)"));
    }
    choices[i] = entry->backend;
  }
  return choices;
}

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
