// Errors that name a spec field. A plugin or dataset only knows field paths relative to its own
// config ("p.value"); the spec loader prefixes the path of that config ("model.layer[0].config")
// and turns the full path into file:line:column. The path travels as a Status payload, so the
// message stays human-readable on its own.
#ifndef ATTNLAB_ATTENTION_BASE_FIELD_ERROR_H_
#define ATTNLAB_ATTENTION_BASE_FIELD_ERROR_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace attnlab {

// InvalidArgument "<field>: <message>" carrying `field` as its payload.
absl::Status FieldError(absl::string_view field, absl::string_view message);

// "<field>: <cause's message>" with the cause's code, so a missing data file stays NotFound
// (tests skip specs whose data is absent) while the message gains its spec location.
absl::Status FieldError(absl::string_view field, const absl::Status& cause);

// The field path a status carries ("" when none).
std::string ErrorField(const absl::Status& status);

// The message without the "<field>: " prefix FieldError added.
std::string ErrorMessageWithoutField(const absl::Status& status);

// Same error with `prefix` prepended to its field path ("model.layer[0].config" + "p.value").
absl::Status PrefixErrorField(absl::string_view prefix, const absl::Status& status);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_BASE_FIELD_ERROR_H_
