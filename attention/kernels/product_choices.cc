#include "attention/kernels/product_choices.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace attnlab {
namespace {

constexpr int kDepthLimits[] = {64, 256, 512};                 // classes 0-2; 3 is deeper
constexpr int64_t kOutputLimits[] = {64 * 64, 40000, 250000};  // classes 0-2; 3 is larger
int DepthClass(int depth) {
  int c = 0;
  while (c < 3 && depth > kDepthLimits[c]) ++c;
  return c;
}

int OutputClass(int64_t entries) {
  int c = 0;
  while (c < 3 && entries >= kOutputLimits[c]) ++c;
  return c;
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

}  // namespace

ProductClassParts PartsOf(int product_class) {
  return {product_class / 32 == 1, (product_class / 16) % 2 == 1, (product_class / 4) % 4,
          product_class % 4};
}

int ProductClass(int rows, int cols, int depth, bool lhs_transposed, bool strided_rhs) {
  return ((int(lhs_transposed) * 2 + int(strided_rhs)) * 4 + DepthClass(depth)) * 4 +
         OutputClass(int64_t(rows) * cols);
}

std::string ProductClassName(int product_class) {
  const ProductClassParts parts = PartsOf(product_class);
  static const char* kDepthNames[] = {"depth <= 64", "depth 65-256", "depth 257-512",
                                      "depth > 512"};
  static const char* kOutputNames[] = {"out < 4096", "out < 40000", "out < 250000",
                                       "out >= 250000"};
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

}  // namespace attnlab
