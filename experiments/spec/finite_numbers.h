// Every number a spec holds is finite: one check over the whole message, plugin configs in Any
// fields included, so an inf or NaN is refused naming its field instead of reaching a model as
// all-zero pixels or a NaN step.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_FINITE_NUMBERS_H_
#define ATTNLAB_EXPERIMENTS_SPEC_FINITE_NUMBERS_H_

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace attnlab {

// A FieldError naming the first float or double field (in field order) that is inf or NaN.
absl::Status CheckFiniteNumbers(const google::protobuf::Message& message);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_FINITE_NUMBERS_H_
