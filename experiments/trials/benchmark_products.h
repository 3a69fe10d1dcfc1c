// The float products of a benchmark program, as trials run them. Without this a benchmark
// multiplies every block with our tiles (the default of a process that chose nothing, as in
// tests), so a kernel's or layer's time would not be the one its trials take.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_BENCHMARK_PRODUCTS_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_BENCHMARK_PRODUCTS_H_

#include <string>

#include "absl/status/statusor.h"

namespace attnlab {

// Takes --product_backend=VALUE (tuned, the default, or as experiments/product_setup.h) out of
// argv before Google Benchmark reads the rest, applies it, prints it on stderr (with tuned, this
// CPU model's kept choices and timings too) and adds it to the report's context as
// attnlab_products. Returns what it applied; the error names the flag.
absl::StatusOr<std::string> ApplyBenchmarkProducts(int* argc, char** argv);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_BENCHMARK_PRODUCTS_H_
