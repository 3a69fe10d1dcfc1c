// A guard for protobuf's text parser: it recurses once per nesting level (and again inside every
// google.protobuf.Any), so a text nested a few thousand levels deep overflows the stack. Texts
// are checked before they are parsed.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_TEXT_NESTING_H_
#define ATTNLAB_EXPERIMENTS_SPEC_TEXT_NESTING_H_

#include "absl/strings/string_view.h"

namespace attnlab {

// Far deeper than any spec needs (the deepest shipped spec nests 8 levels).
constexpr int kMaxTextNesting = 64;

// The 1-based line and column of the first '{' or '<' (outside strings and comments) that opens
// a level deeper than kMaxTextNesting; false when there is none.
bool FindTooDeepNesting(absl::string_view text, int* line, int* column);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_TEXT_NESTING_H_
