// Status helpers. Debian's Abseil 20220623 has neither absl/log nor ABSL_ASSIGN_OR_RETURN, so
// the two macros every Status-returning function needs live here.
#ifndef ATTNLAB_ATTENTION_BASE_STATUS_MACROS_H_
#define ATTNLAB_ATTENTION_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define ATTNLAB_CONCAT_INNER(a, b) a##b
#define ATTNLAB_CONCAT(a, b) ATTNLAB_CONCAT_INNER(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::absl::Status attnlab_status_ = (expr);           \
    if (!attnlab_status_.ok()) return attnlab_status_; \
  } while (0)

// `lhs = value of expr` (an absl::StatusOr<T>), or returns its error. lhs may declare a variable.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(ATTNLAB_CONCAT(attnlab_statusor_, __LINE__), lhs, expr)

#define ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                          \
  if (!statusor.ok()) return statusor.status();    \
  lhs = std::move(statusor).value()

#endif  // ATTNLAB_ATTENTION_BASE_STATUS_MACROS_H_
