#include "experiments/spec/spec_loader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/files.h"
#include "experiments/spec/field_path.h"
#include "experiments/spec/first_parse_error.h"
#include "experiments/spec/spec_changes.h"
#include "experiments/spec/text_nesting.h"
#include "google/protobuf/descriptor.h"

namespace attnlab {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using ParseInfoTree = google::protobuf::TextFormat::ParseInfoTree;

}  // namespace

SpecLocator::SpecLocator(std::string file, const ExperimentSpec& spec,
                         std::unique_ptr<ParseInfoTree> tree, ExpandedText expanded)
    : file_(std::move(file)), spec_(spec), tree_(std::move(tree)), expanded_(std::move(expanded)) {}

std::string SpecLocator::Locate(absl::string_view field_path) const {
  int line = 0, column = 0;  // 0-based; stays at the file start if nothing matches
  auto path = ParseFieldPath(field_path);
  const ParseInfoTree* tree = tree_.get();
  const Message* message = &spec_;
  std::unique_ptr<Message> unpacked;  // owns the content of the last Any stepped into
  for (const PathComponent& component : path.ok() ? *path : std::vector<PathComponent>()) {
    const Descriptor* descriptor = message->GetDescriptor();
    if (descriptor->full_name() == "google.protobuf.Any") {
      // The parse tree records an Any's expanded content directly under the Any's node.
      const Descriptor* content = AnyContentType(*message);
      if (content == nullptr) break;
      std::unique_ptr<Message> inner(
          google::protobuf::MessageFactory::generated_factory()->GetPrototype(content)->New());
      inner->ParseFromString(message->GetReflection()->GetString(
          *message, descriptor->FindFieldByName("value")));
      unpacked = std::move(inner);
      message = unpacked.get();
      descriptor = content;
    }
    const FieldDescriptor* field = descriptor->FindFieldByName(component.name);
    if (field == nullptr) break;
    const int index = field->is_repeated() ? std::max(component.index, 0) : -1;
    const google::protobuf::TextFormat::ParseLocation location = tree->GetLocation(field, index);
    if (location.line < 0) break;
    line = location.line;
    column = location.column;
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) break;
    tree = tree->GetTreeForNested(field, index);
    if (tree == nullptr) break;
    const google::protobuf::Reflection* reflection = message->GetReflection();
    if (field->is_repeated()) {
      if (index >= reflection->FieldSize(*message, field)) break;
      message = &reflection->GetRepeatedMessage(*message, field, index);
    } else {
      message = &reflection->GetMessage(*message, field);
    }
  }
  expanded_.ToWritten(line, &column);
  return absl::StrCat(file_, ":", line + 1, ":", column + 1);
}

std::string SpecLocator::Format(const absl::Status& status) const {
  return absl::StrCat(Locate(ErrorField(status)), ": ", status.message());
}

namespace {

// The line and column (1-based) of the first byte that is not part of valid UTF-8, if any:
// protobuf's text parser takes such bytes into string fields (the spec fuzzer found it) and
// only complains, in a log line, when the spec is serialized.
bool FindInvalidUtf8(absl::string_view text, int* line, int* column) {
  *line = 1;
  *column = 1;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = text[i];
    int length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > text.size()) return true;
    for (int k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return true;
    }
    if (c == '\n') {
      ++*line;
      *column = 0;
    }
    ++*column;
    i += length;
  }
  return false;
}

}  // namespace

absl::StatusOr<ParsedSpec> ParseSpecText(absl::string_view text, const std::string& file) {
  if (int line, column; FindInvalidUtf8(text, &line, &column)) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ":", line, ":", column, ": not UTF-8 text (a spec is a text file)"));
  }
  if (int line, column; FindTooDeepNesting(text, &line, &column)) {
    return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ":", column,
                                                   ": nested more than ", kMaxTextNesting,
                                                   " levels deep"));
  }
  absl::StatusOr<ExpandedText> expanded = ExpandShortConfigs(text, ExperimentSpec::descriptor());
  if (!expanded.ok()) {
    return WithSpecChangeNote(
        absl::InvalidArgumentError(absl::StrCat(file, ":", expanded.status().message())));
  }
  ParsedSpec parsed;
  auto tree = std::make_unique<ParseInfoTree>();
  google::protobuf::TextFormat::Parser parser;
  FirstParseError errors;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(tree.get());
  if (!parser.ParseFromString(expanded->text(), &parsed.spec)) {
    const int line = errors.line() - 1;
    int column = errors.column() - 1;
    expanded->ToWritten(line, &column);
    std::string message = ExplainParseError(*expanded, line, &column, errors.message());
    // protobuf says "got: " and nothing when the text ended early.
    if (absl::EndsWith(message, "got: ")) message += "end of file (an unclosed '{'?)";
    return WithSpecChangeNote(absl::InvalidArgumentError(
        absl::StrCat(file, ":", line + 1, ":", column + 1, ": ", message)));
  }
  parsed.locator =
      std::make_shared<SpecLocator>(file, parsed.spec, std::move(tree), *std::move(expanded));
  return parsed;
}

std::string PrintSpec(const ExperimentSpec& spec) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetExpandAny(true);
  std::string text;
  printer.PrintToString(spec, &text);
  return text;
}

ExperimentSpec ResultDeterminingSpec(ExperimentSpec spec) {
  spec.clear_name();
  spec.clear_description();
  spec.clear_report();
  spec.clear_store();
  if (spec.has_training()) spec.mutable_training()->clear_checkpoint_seconds();
  return spec;
}

absl::StatusOr<ParsedSpec> ReadSpecFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot read spec file (", std::strerror(errno), ")"));
  }
  struct stat info;  // a directory opens, and reads as an empty spec
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a spec file"));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<ParsedSpec> parsed = ParseSpecText(text.str(), path);
  if (parsed.ok()) {
    parsed->directory = DirectoryOf(path);
  }
  return parsed;
}

}  // namespace attnlab
