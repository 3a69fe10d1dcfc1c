// Field paths into protobuf messages: "model.layer[0].config.p.value". A path steps through a
// google.protobuf.Any into the message it holds, so sweeps and error locations reach plugin
// configs like any other field.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_FIELD_PATH_H_
#define ATTNLAB_EXPERIMENTS_SPEC_FIELD_PATH_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace attnlab {

struct PathComponent {
  std::string name;
  int index = -1;  // -1: no [i]
};

absl::StatusOr<std::vector<PathComponent>> ParseFieldPath(absl::string_view path);

// Replaces the field at `path` with the text-format value `value` ("0.1", "[0, 1, 0]",
// "{ plugin: 'gd' lr: 1 }"; a string field also takes its value unquoted). Any component may index
// a repeated message field ("layer[0]"; at the end, the value replaces that element). Path "."
// takes a partial message whose top-level fields replace the message's.
absl::Status SetFieldFromText(google::protobuf::Message* message, absl::string_view path,
                              absl::string_view value);

// "a=1,b=[1, 2],c={ x: 1, y: 2 }" -> {"a=1", "b=[1, 2]", "c={ x: 1, y: 2 }"}: splits at commas
// outside brackets, braces and quotes (command-line --set lists).
std::vector<std::string> SplitAssignments(absl::string_view text);

// The message type an Any holds, from the generated descriptor pool; null if unknown.
const google::protobuf::Descriptor* AnyContentType(const google::protobuf::Message& any);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_FIELD_PATH_H_
