#include "experiments/spec/field_path.h"

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "attention/base/status_macros.h"
#include "experiments/spec/first_parse_error.h"
#include "experiments/spec/short_config.h"
#include "experiments/spec/text_nesting.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"

namespace attnlab {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

bool IsAny(const Descriptor* d) { return d->full_name() == "google.protobuf.Any"; }

// An Any's type_url field.
const FieldDescriptor* AnyTypeUrlField(const Descriptor* any) {
  return any->FindFieldByName("type_url");
}

// `value` with its plugin configs' type URLs written out (short_config.h).
absl::StatusOr<ExpandedText> ExpandValue(absl::string_view value, const Descriptor* type,
                                         const Descriptor* config, absl::string_view full_path) {
  absl::StatusOr<ExpandedText> expanded = ExpandShortConfigs(value, type, config);
  if (!expanded.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("value for '", full_path, "' at ", expanded.status().message()));
  }
  return expanded;
}

// A parse error of an expanded value where the user wrote it ("column 12: ..." or "line 2
// column 3: ..."), in text that had `offset` more characters before the value on its first line.
std::string WrittenError(const ExpandedText& expanded, const FirstParseError& errors, int offset) {
  const int line = errors.line() - 1;
  int column = errors.column() - 1 - (line == 0 ? offset : 0);
  expanded.ToWritten(line, &column);
  const std::string message = ExplainParseError(expanded, line, &column, errors.message());
  return absl::StrCat(line > 0 ? absl::StrCat("line ", line + 1, " ") : "", "column ", column + 1,
                      ": ", message);
}

absl::Status SetAt(Message* message, const std::vector<PathComponent>& path, size_t at,
                   absl::string_view value, absl::string_view full_path) {
  const Descriptor* descriptor = message->GetDescriptor();
  if (IsAny(descriptor)) {
    // Step into the Any: unpack, set inside, pack back.
    const Descriptor* content = AnyContentType(*message);
    if (content == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field path '", full_path, "' goes through an empty or unknown google.protobuf.Any"));
    }
    std::unique_ptr<Message> inner(
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(content)->New());
    const google::protobuf::Reflection* any = message->GetReflection();
    const FieldDescriptor* bytes = descriptor->FindFieldByName("value");
    inner->ParseFromString(any->GetString(*message, bytes));
    RETURN_IF_ERROR(SetAt(inner.get(), path, at, value, full_path));
    any->SetString(message, bytes, inner->SerializeAsString());
    return absl::OkStatus();
  }
  const PathComponent& component = path[at];
  const FieldDescriptor* field = descriptor->FindFieldByName(component.name);
  if (field == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("field path '", full_path, "': ",
                                                   descriptor->full_name(), " has no field '",
                                                   component.name, "'"));
  }
  const google::protobuf::Reflection* reflection = message->GetReflection();
  const bool last = at + 1 == path.size();
  if (last) {
    if (component.index >= 0) {
      // One element of a repeated message field: "{ ... }" replaces it.
      if (!field->is_repeated() || field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
        return absl::InvalidArgumentError(absl::StrCat(
            "field path '", full_path, "': only repeated message fields take an index at the "
                                       "end; set a whole repeated field as [1, 2, 3]"));
      }
      const int size = reflection->FieldSize(*message, field);
      if (component.index >= size) {
        return absl::InvalidArgumentError(absl::StrCat("field path '", full_path, "': '",
                                                       component.name, "' has ", size,
                                                       " entries"));
      }
      Message* element = reflection->MutableRepeatedMessage(message, field, component.index);
      ASSIGN_OR_RETURN(const ExpandedText expanded,
                       ExpandValue(value, field->message_type(), nullptr, full_path));
      absl::string_view body = absl::StripAsciiWhitespace(expanded.text());
      if (absl::ConsumePrefix(&body, "{") && !absl::ConsumeSuffix(&body, "}")) {
        return absl::InvalidArgumentError(absl::StrCat("value for '", full_path, "' has an unclosed '{'"));
      }
      element->Clear();
      google::protobuf::TextFormat::Parser parser;
      FirstParseError errors;
      parser.RecordErrorsTo(&errors);
      if (!parser.MergeFromString(std::string(body), element)) {
        const int skipped = static_cast<int>(body.data() - expanded.text().data());
        return absl::InvalidArgumentError(
            absl::StrCat("value for '", full_path,
                         "' does not parse: ", WrittenError(expanded, errors, -skipped)));
      }
      return absl::OkStatus();
    }
    // A plugin's config may be written without its type URL: the plugin named beside it says
    // which message it is.
    ExpandedText expanded;
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      ASSIGN_OR_RETURN(expanded, ExpandValue(value, field->message_type(),
                                             NamedConfigType(*message, field), full_path));
    }
    const std::string text = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE
                                 ? expanded.text()
                                 : std::string(value);
    reflection->ClearField(message, field);
    // A string field takes its value quoted, as in a spec, or as it is
    // (--set=dataset.config.train=/data/wiki.train.tokens).
    if (field->type() == FieldDescriptor::TYPE_STRING && !field->is_repeated() &&
        !absl::StartsWith(value, "\"") && !absl::StartsWith(value, "'")) {
      reflection->SetString(message, field, std::string(value));
      return absl::OkStatus();
    }
    google::protobuf::TextFormat::Parser parser;
    FirstParseError errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.MergeFromString(absl::StrCat(field->name(), ": ", text), message)) {
      const int prefix = static_cast<int>(field->name().size()) + 2;
      return absl::InvalidArgumentError(
          absl::StrCat("value '", value, "' for '", full_path,
                       "' does not parse: ", WrittenError(expanded, errors, prefix)));
    }
    return absl::OkStatus();
  }
  if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
    return absl::InvalidArgumentError(
        absl::StrCat("field path '", full_path, "': '", component.name, "' is not a message"));
  }
  Message* child;
  if (field->is_repeated()) {
    const int size = reflection->FieldSize(*message, field);
    if (component.index < 0 || component.index >= size) {
      return absl::InvalidArgumentError(absl::StrCat("field path '", full_path, "': '",
                                                     component.name, "' has ", size,
                                                     " entries; give an index [0..", size - 1,
                                                     "]"));
    }
    child = reflection->MutableRepeatedMessage(message, field, component.index);
  } else {
    if (component.index >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("field path '", full_path, "': '", component.name, "' is not repeated"));
    }
    const Descriptor* config = NamedConfigType(*message, field);
    child = reflection->MutableMessage(message, field);
    if (config != nullptr && AnyContentType(*child) == nullptr) {
      // A plugin left at its defaults: its config is the named plugin's, all defaults.
      child->GetReflection()->SetString(child, AnyTypeUrlField(child->GetDescriptor()),
                                        absl::StrCat("type.googleapis.com/", config->full_name()));
    }
  }
  return SetAt(child, path, at + 1, value, full_path);
}

// Path ".": the fields `value` sets replace the message's.
absl::Status ReplaceTopLevelFields(Message* message, absl::string_view value) {
  std::unique_ptr<Message> patch(message->New());
  google::protobuf::TextFormat::Parser parser;
  FirstParseError errors;
  parser.RecordErrorsTo(&errors);
  ASSIGN_OR_RETURN(const ExpandedText expanded,
                   ExpandValue(value, message->GetDescriptor(), nullptr, "."));
  if (!parser.ParseFromString(expanded.text(), patch.get())) {
    return absl::InvalidArgumentError(
        absl::StrCat("value for '.' does not parse: ", WrittenError(expanded, errors, 0)));
  }
  std::vector<const FieldDescriptor*> fields;
  patch->GetReflection()->ListFields(*patch, &fields);
  for (const FieldDescriptor* field : fields) message->GetReflection()->ClearField(message, field);
  message->MergeFrom(*patch);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<PathComponent>> ParseFieldPath(absl::string_view path) {
  std::vector<PathComponent> components;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    PathComponent component;
    const size_t bracket = part.find('[');
    component.name = std::string(part.substr(0, bracket));
    if (bracket != absl::string_view::npos) {
      absl::string_view index = part.substr(bracket + 1);
      if (index.empty() || index.back() != ']' ||
          !absl::SimpleAtoi(index.substr(0, index.size() - 1), &component.index) ||
          component.index < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("field path '", path, "': bad index in '", part, "'"));
      }
    }
    if (component.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("field path '", path, "' has an empty part"));
    }
    components.push_back(std::move(component));
  }
  return components;
}

absl::Status SetFieldFromText(Message* message, absl::string_view path, absl::string_view value) {
  if (int line, column; FindTooDeepNesting(value, &line, &column)) {
    return absl::InvalidArgumentError(absl::StrCat("value for '", path, "' is nested more than ",
                                                   kMaxTextNesting, " levels deep (line ", line,
                                                   " column ", column, ")"));
  }
  if (path == ".") return ReplaceTopLevelFields(message, value);
  ASSIGN_OR_RETURN(const std::vector<PathComponent> components, ParseFieldPath(path));
  return SetAt(message, components, 0, value, path);
}

const Descriptor* AnyContentType(const Message& any) {
  const std::string url = any.GetReflection()->GetString(
      any, any.GetDescriptor()->FindFieldByName("type_url"));
  if (url.empty()) return nullptr;
  return google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(
      url.substr(url.rfind('/') + 1));
}

std::vector<std::string> SplitAssignments(absl::string_view text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '<') {
      ++depth;
    } else if ((c == ']' || c == '}' || c == '>') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty() || !parts.empty()) parts.push_back(current);
  return parts;
}

}  // namespace attnlab
