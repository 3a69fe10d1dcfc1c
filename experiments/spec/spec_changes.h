// Changes to specs: config types and plugin names that were retired, and what replaced each, so
// that a spec written against an older attnlab gets an error naming the replacement.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_SPEC_CHANGES_H_
#define ATTNLAB_EXPERIMENTS_SPEC_SPEC_CHANGES_H_

#include "absl/status/status.h"

namespace attnlab {

// `status` with the replacement appended when its message names a retired config type
// ("Could not find type "type.googleapis.com/<type>""), a retired layer plugin ("unknown
// layer plugin '<name>'") or a built-in kind that became a plugin ("attnlab.OptimizerSpec has no
// field 'adam'"); otherwise `status` unchanged.
absl::Status WithSpecChangeNote(const absl::Status& status);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_SPEC_CHANGES_H_
