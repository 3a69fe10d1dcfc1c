#include "experiments/trials/benchmark_products.h"

#include <cstdio>

#include "attention/base/files.h"
#include "benchmark/benchmark.h"
#include "experiments/store/code_version.h"
#include "experiments/trials/product_setup.h"
#include "experiments/user_paths.h"

namespace attnlab {

absl::StatusOr<std::string> ApplyBenchmarkProducts(int* argc, char** argv) {
  const std::string kFlag = "--product_backend=";
  std::string backend = "tuned";
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(kFlag, 0) == 0) {
      backend = arg.substr(kFlag.size());
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  absl::StatusOr<std::string> products = SetUpProducts(backend, CacheDirectory());
  if (!products.ok()) return products.status();  // its message names the flag
  std::fprintf(stderr, "products: %s\n", products->c_str());
  benchmark::AddCustomContext("attnlab_products", *products);
  if (backend == "tuned") {
    const std::string path = ProductChoicesPath(CacheDirectory(), CurrentMachine());
    if (absl::StatusOr<std::string> kept_file = ReadFile(path); kept_file.ok()) {
      std::fprintf(stderr, "%s:\n%s", path.c_str(), kept_file->c_str());
    }
  }
  return products;
}

}  // namespace attnlab
