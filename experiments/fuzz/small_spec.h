// The spec fuzzer builds only specs whose sizes are small: a spec may ask for any amount of
// memory, and allocating it is not a parser or validator bug.
#ifndef ATTNLAB_EXPERIMENTS_FUZZ_SMALL_SPEC_H_
#define ATTNLAB_EXPERIMENTS_FUZZ_SMALL_SPEC_H_

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace attnlab {

// True when every number in the text is at most 256 (as strtod reads it: decimal, hex or
// exponent), except the values of fields that allocate nothing (steps, seeds, logging, rates),
// and the text names no device file.
inline bool IsSmallSpec(const std::string& text) {
  if (text.find("/dev/") != std::string::npos || text.find("/proc/") != std::string::npos) {
    return false;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const bool starts_number = std::isdigit(static_cast<unsigned char>(text[i])) &&
                               (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])));
    if (!starts_number) continue;
    const double value = std::strtod(text.c_str() + i, nullptr);
    if (std::fabs(value) <= 256) continue;
    // The field name before the number on its line: "steps: 400" -> "steps".
    const size_t line = text.rfind('\n', i) == std::string::npos ? 0 : text.rfind('\n', i) + 1;
    const std::string before = text.substr(line, i - line);
    bool exempt = false;
    for (const char* field : {"steps", "seed", "log_every", "log_step", "checkpoint_seconds"}) {
      exempt |= before.find(field) != std::string::npos;
    }
    if (!exempt) return false;
  }
  return true;
}

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_FUZZ_SMALL_SPEC_H_
