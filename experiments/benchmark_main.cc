// main() for the kernel and plugin benchmarks: Google Benchmark's, with the float products
// applied as trials run them (--product_backend=, experiments/benchmark_products.h).
#include <cstdio>
#include <string>

#include "benchmark/benchmark.h"
#include "experiments/trials/benchmark_products.h"

int main(int argc, char** argv) {
  if (absl::StatusOr<std::string> products = attnlab::ApplyBenchmarkProducts(&argc, argv);
      !products.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], std::string(products.status().message()).c_str());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
