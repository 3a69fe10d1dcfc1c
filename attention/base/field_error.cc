#include "attention/base/field_error.h"

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace attnlab {
namespace {
constexpr char kFieldPayload[] = "attnlab/field";

absl::Status WithField(absl::StatusCode code, absl::string_view field, absl::string_view message) {
  absl::Status status(code, absl::StrCat(field, ": ", message));
  status.SetPayload(kFieldPayload, absl::Cord(field));
  return status;
}
}  // namespace

absl::Status FieldError(absl::string_view field, absl::string_view message) {
  return WithField(absl::StatusCode::kInvalidArgument, field, message);
}

absl::Status FieldError(absl::string_view field, const absl::Status& cause) {
  return WithField(cause.code(), field, cause.message());
}

std::string ErrorField(const absl::Status& status) {
  absl::optional<absl::Cord> field = status.GetPayload(kFieldPayload);
  return field.has_value() ? std::string(*field) : std::string();
}

std::string ErrorMessageWithoutField(const absl::Status& status) {
  const std::string field = ErrorField(status);
  absl::string_view message = status.message();
  const std::string prefix = absl::StrCat(field, ": ");
  if (!field.empty() && absl::StartsWith(message, prefix)) message.remove_prefix(prefix.size());
  return std::string(message);
}

absl::Status PrefixErrorField(absl::string_view prefix, const absl::Status& status) {
  if (status.ok()) return status;
  const std::string field = ErrorField(status);
  if (field.empty()) return WithField(status.code(), prefix, status.message());
  const std::string full = absl::StrCat(prefix, field.front() == '[' ? "" : ".", field);
  return WithField(status.code(), full, ErrorMessageWithoutField(status));
}

}  // namespace attnlab
