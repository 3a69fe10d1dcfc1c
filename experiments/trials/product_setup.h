// --product_backend, for the programs that run trials: which code multiplies float blocks.
// "tuned" (the default) times TiledProduct, libxsmm and oneDNN on every class of block once per
// CPU model (a few seconds), keeps the choices in <cache>/products/<CPU model>.tsv and reads
// them from there after (with no cache directory, as in Bazel's tests, every block is tiled);
// "tiled", "libxsmm" or "onednn" forces one backend; "choices:LETTERS" sets one per class (t, x,
// o, in class order, as the kept file's `choices` line). Each backend rounds differently, so the
// choice is part of the code version (CodeVersion::products).
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_PRODUCT_SETUP_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_PRODUCT_SETUP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "attention/kernels/product_choices.h"
#include "attention/kernels/product_timing.h"
#include "experiments/store/code_version.h"

namespace attnlab {

// Applies a --product_backend value to this process; returns what the code version records
// ("tuned ttxo...", one letter per class, "chosen ttxo...", "forced onednn", or "tiled: no cache
// directory").
// With "tuned", `cache_dir` keeps the choices (CacheDirectory() in the programs); tuning writes
// progress to stderr.
absl::StatusOr<std::string> SetUpProducts(absl::string_view backend, const std::string& cache_dir);

// The --product_backend flag (defined here, for every program that links this) applied, with
// the user's cache directory, and recorded in `code`.
absl::Status ApplyProductBackendFlag(CodeVersion* code);

// Where "tuned" keeps this machine's choices.
std::string ProductChoicesPath(const std::string& cache_dir, const std::string& machine);

// The cache file: the choices, then each class's timings, for a reader.
std::string ProductChoicesFile(const std::string& machine,
                               const std::vector<ProductClassTiming>& timings);
// Its choices; errors name the file and line.
absl::StatusOr<ProductChoices> ParseProductChoicesFile(const std::string& path,
                                                       absl::string_view text);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_PRODUCT_SETUP_H_
