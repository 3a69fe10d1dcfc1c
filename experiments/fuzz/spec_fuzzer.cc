// Spec text through the parser and the validator a dry run is (every trial of the sweep
// built: dataset, model, optimizer, metrics): any input gives a spec or an error with a
// message, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "experiments/fuzz/small_spec.h"
#include "experiments/trials/runner.h"
#include "experiments/spec/spec_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<attnlab::ParsedSpec> parsed = attnlab::ParseSpecText(text, "fuzz.textproto");
  if (!parsed.ok()) {
    if (parsed.status().message().empty()) std::abort();  // an error must say what is wrong
    return 0;
  }
  // Building a trial allocates what the spec asks for; only small specs are built.
  if (!attnlab::IsSmallSpec(text)) return 0;
  // Data paths resolve against the repository's test data (run_fuzzer.sh sets it).
  if (const char* dir = std::getenv("ATTNLAB_FUZZ_DATA_DIR")) parsed->directory = dir;
  attnlab::RunOptions options;
  options.dry_run = true;
  options.progress = false;
  absl::StatusOr<attnlab::ExperimentResult> result = attnlab::RunExperiment(*parsed, options);
  if (!result.ok() && result.status().message().empty()) std::abort();
  return 0;
}
