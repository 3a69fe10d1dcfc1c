#include "experiments/spec/finite_numbers.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"

namespace attnlab {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

absl::Status CheckValue(double value, const std::string& path) {
  if (std::isfinite(value)) return absl::OkStatus();
  return FieldError(path, absl::StrCat("must be a finite number, got ", value));
}

// An Any's content as its message type, when this binary links that type.
std::unique_ptr<Message> Unpack(const Message& any) {
  google::protobuf::Any copy;
  copy.CopyFrom(any);
  const std::string type = std::string(copy.type_url().substr(copy.type_url().rfind('/') + 1));
  const auto* descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(type);
  if (descriptor == nullptr) return nullptr;  // the plugin registry names unknown types
  const Message* prototype =
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(descriptor);
  std::unique_ptr<Message> message(prototype->New());
  if (!copy.UnpackTo(message.get())) return nullptr;
  return message;
}

absl::Status Check(const Message& message, const std::string& prefix) {
  if (message.GetDescriptor()->full_name() == google::protobuf::Any::descriptor()->full_name()) {
    std::unique_ptr<Message> content = Unpack(message);
    return content ? Check(*content, prefix) : absl::OkStatus();
  }
  const auto* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const std::string path = prefix.empty() ? field->name() : absl::StrCat(prefix, ".", field->name());
    const int count = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int i = 0; i < count; ++i) {
      const std::string at = field->is_repeated() ? absl::StrCat(path, "[", i, "]") : path;
      const bool repeated = field->is_repeated();
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_DOUBLE:
          RETURN_IF_ERROR(CheckValue(
              repeated ? reflection->GetRepeatedDouble(message, field, i)
                       : reflection->GetDouble(message, field), at));
          break;
        case FieldDescriptor::CPPTYPE_FLOAT:
          RETURN_IF_ERROR(CheckValue(
              repeated ? reflection->GetRepeatedFloat(message, field, i)
                       : reflection->GetFloat(message, field), at));
          break;
        case FieldDescriptor::CPPTYPE_MESSAGE:
          RETURN_IF_ERROR(Check(repeated ? reflection->GetRepeatedMessage(message, field, i)
                                                : reflection->GetMessage(message, field),
                                       at));
          break;
        default:
          break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckFiniteNumbers(const Message& message) { return Check(message, ""); }

}  // namespace attnlab
