// Which backend multiplies each class of float block when ProductBackend is kChosen: the first
// of TiledProduct, libxsmm and oneDNN within 3% of the fastest, as timed on the machine that runs
// them (TimeProductClasses), not thresholds measured on one CPU. A program tunes once per CPU model
// and keeps the choices in a file (experiments/product_setup.h); the choices enter its code
// version, since each backend rounds differently. Until a program sets them, every class is
// tiled: tests give the same numbers whatever the machine's timings.
#ifndef ATTNLAB_ATTENTION_KERNELS_PRODUCT_CHOICES_H_
#define ATTNLAB_ATTENTION_KERNELS_PRODUCT_CHOICES_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "attention/kernels/library_product.h"

namespace attnlab {

// A block's class: op(A) transposed or not; B's rows far apart (ldb >= 8 cols: a column block
// of a wide matrix) or not; the depth (<= 64, <= 256, <= 512, more); the output's size
// (< 64^2 entries: a head's scores; < 40,000: a block of up to 256 x 128; more).
constexpr int kProductClasses = 2 * 2 * 4 * 3;
int ProductClass(int rows, int cols, int depth, bool lhs_transposed, bool strided_rhs);
// "A^T B strided, depth 65-256, out < 40000", for the cache file and the bench.
std::string ProductClassName(int product_class);

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

// One class's block timed on each backend (microseconds a product, best of the repeats), and
// the backend chosen for it: the first of tiled, libxsmm, oneDNN within 3% of the fastest.
struct ProductClassTiming {
  int product_class = 0;
  int rows = 0, cols = 0, depth = 0;
  double tiled_us = 0, libxsmm_us = 0, onednn_us = 0;
  ProductBackend chosen = ProductBackend::kTiled;
};

// Times a representative block of every class on the three backends, on the calling thread,
// the backends interleaved so that a drift in the machine's speed hits all three. Leaves the
// process's backend as it found it.
std::vector<ProductClassTiming> TimeProductClasses(int repeats);
ProductChoices ChoicesOf(const std::vector<ProductClassTiming>& timings);
// The timings as comment lines, one a class: "# class\tblock (rows x cols x depth)\ttiled us\t
// libxsmm us\tonednn us\tchosen", a header line first.
std::string ProductTimingsTable(const std::vector<ProductClassTiming>& timings);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PRODUCT_CHOICES_H_
