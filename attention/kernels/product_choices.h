// Which backend multiplies each class of float block when ProductBackend is kChosen: the first
// of oneDNN, libxsmm and TiledProduct within 10% of the fastest, as timed on the machine that runs
// them (product_timing.h), not thresholds measured on one CPU. A program tunes once per CPU model
// and keeps the choices in a file (experiments/product_setup.h); the choices enter its code
// version, since each backend rounds differently. Until a program sets them, every class is
// tiled: tests give the same numbers whatever the machine's timings.
#ifndef ATTNLAB_ATTENTION_KERNELS_PRODUCT_CHOICES_H_
#define ATTNLAB_ATTENTION_KERNELS_PRODUCT_CHOICES_H_

#include <array>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "attention/kernels/library_product.h"

namespace attnlab {

// A block's class: op(A) transposed or not; B's rows far apart (ldb >= 8 cols: a column block
// of a wide matrix) or not; the depth (<= 64, <= 256, <= 512, more); the output's size
// (< 64^2 entries: a head's scores; < 40,000: a block of up to 256 x 128; < 250,000; more: a
// column block of 512 as wide as a whole product, whose operands outgrow a core's L2 cache).
constexpr int kProductClasses = 2 * 2 * 4 * 4;
int ProductClass(int rows, int cols, int depth, bool lhs_transposed, bool strided_rhs);
// "A^T B strided, depth 65-256, out < 40000", for the cache file and the bench.
std::string ProductClassName(int product_class);

// A class's index taken apart: ((lhs_transposed * 2 + strided_rhs) * 4 + depth_class) * 4 +
// output_class, each class counted from 0 in the order above.
struct ProductClassParts {
  bool lhs_transposed, strided_rhs;
  int depth_class, output_class;
};
ProductClassParts PartsOf(int product_class);

// Per class: kTiled, kLibxsmm or kOneDnn.
using ProductChoices = std::array<ProductBackend, kProductClasses>;

ProductChoices AllTiled();
// Process-wide, like SetProductBackend: set before products run.
void SetProductChoices(const ProductChoices& choices);
const ProductChoices& GetProductChoices();

// One letter per class (t tiled, x libxsmm, o oneDNN), in class order: how a code version and
// the cache file record the choices.
std::string ProductChoicesString(const ProductChoices& choices);
absl::StatusOr<ProductChoices> ParseProductChoices(absl::string_view letters);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PRODUCT_CHOICES_H_
