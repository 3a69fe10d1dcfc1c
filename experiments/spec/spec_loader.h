// Reading experiment specs: text format with every error located as file:line:column.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_SPEC_LOADER_H_
#define ATTNLAB_EXPERIMENTS_SPEC_SPEC_LOADER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/spec/experiment.pb.h"
#include "experiments/spec/short_config.h"
#include "google/protobuf/text_format.h"

namespace attnlab {

// Where each field of a parsed spec was written.
class SpecLocator {
 public:
  SpecLocator(std::string file, const ExperimentSpec& spec,
              std::unique_ptr<google::protobuf::TextFormat::ParseInfoTree> tree,
              ExpandedText expanded);

  // "file:line:column" of the deepest field on `field_path` that the file wrote
  // ("model.layer[0].config.p.value" -> the `value` line; if only `model` was written, its
  // line). "file:1:1" when nothing on the path was written.
  std::string Locate(absl::string_view field_path) const;

  // The one-line message for a validation or build error: "file:line:column: <message>", at
  // the field the error names (see attention/field_error.h).
  std::string Format(const absl::Status& status) const;

  const std::string& file() const { return file_; }

 private:
  std::string file_;
  ExperimentSpec spec_;
  std::unique_ptr<google::protobuf::TextFormat::ParseInfoTree> tree_;
  ExpandedText expanded_;  // the parsed text: its positions map back to the file's
};

struct ParsedSpec {
  ExperimentSpec spec;
  std::shared_ptr<const SpecLocator> locator;
  // The spec file's directory: relative data paths in the spec resolve against it.
  std::string directory;
};

// Syntax errors, unknown fields and wrong value types: InvalidArgument
// "file:line:column: message". `file` names the text in messages. Plugin configs may be written
// without their type URL (short_config.h).
absl::StatusOr<ParsedSpec> ParseSpecText(absl::string_view text, const std::string& file);

// The text format of a spec with plugin configs written out (not as packed bytes), as a user
// would write it: what <trial>/spec.textproto holds and what trial ids hash.
std::string PrintSpec(const ExperimentSpec& spec);

// The spec without the fields that do not change a trial's results (name, description,
// report, store, training.checkpoint_seconds): what trial ids hash and checkpoints compare.
ExperimentSpec ResultDeterminingSpec(ExperimentSpec spec);

// As ParseSpecText; a missing or unreadable file is NotFound "file: cannot read spec file (...)".
absl::StatusOr<ParsedSpec> ReadSpecFile(const std::string& path);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_SPEC_LOADER_H_
