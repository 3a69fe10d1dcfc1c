// Spec text through the parser and the sweep expander (axes applied through field paths):
// trials or an error with a message, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "experiments/spec/spec_loader.h"
#include "experiments/spec/sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<attnlab::ParsedSpec> parsed = attnlab::ParseSpecText(text, "fuzz.textproto");
  if (!parsed.ok()) return 0;
  absl::StatusOr<std::vector<attnlab::Trial>> trials = attnlab::ExpandSweep(parsed->spec);
  if (!trials.ok() && trials.status().message().empty()) std::abort();
  if (trials.ok()) {
    for (const attnlab::Trial& trial : *trials) {
      if (trial.id.size() != 12 || trial.spec.has_sweep()) std::abort();
    }
  }
  return 0;
}
