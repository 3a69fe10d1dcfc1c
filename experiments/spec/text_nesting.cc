#include "experiments/spec/text_nesting.h"

namespace attnlab {

bool FindTooDeepNesting(absl::string_view text, int* line, int* column) {
  int depth = 0, at_line = 1, at_column = 0;
  char quote = 0;  // inside a string: its quote character
  bool comment = false, escaped = false;
  for (char c : text) {
    ++at_column;
    if (c == '\n') {
      ++at_line;
      at_column = 0;
      comment = false;
      quote = 0;  // text-format strings do not span lines
      continue;
    }
    if (comment) continue;
    if (quote != 0) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '#') {
      comment = true;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{' || c == '<') {
      if (++depth > kMaxTextNesting) {
        *line = at_line;
        *column = at_column;
        return true;
      }
    } else if ((c == '}' || c == '>') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace attnlab
