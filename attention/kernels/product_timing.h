// The timings that choose each class's backend (product_choices.h): a representative block of
// every class multiplied by TiledProduct, libxsmm and oneDNN on the machine that will run them.
// Only programs that tune link this (experiments/product_setup.h, gemm_ab): what a trial
// computes depends on the choices, which its code version records, not on how they were timed.
#ifndef ATTNLAB_ATTENTION_KERNELS_PRODUCT_TIMING_H_
#define ATTNLAB_ATTENTION_KERNELS_PRODUCT_TIMING_H_

#include <string>
#include <vector>

#include "attention/kernels/library_product.h"
#include "attention/kernels/product_choices.h"

namespace attnlab {

// One class's block timed on each backend (microseconds a product, best of the repeats), and
// the backend chosen for it: the first of oneDNN, libxsmm, tiled within 10% of the fastest.
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

#endif  // ATTNLAB_ATTENTION_KERNELS_PRODUCT_TIMING_H_
