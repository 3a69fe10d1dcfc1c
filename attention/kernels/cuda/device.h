// Where a model runs (ModelSpec.device). Asking for CUDA is checked, never quietly served by
// the CPU: a build without --config=cuda, or a machine without a GPU, is an error that says so.
#ifndef ATTNLAB_ATTENTION_KERNELS_CUDA_DEVICE_H_
#define ATTNLAB_ATTENTION_KERNELS_CUDA_DEVICE_H_

#include "absl/status/status.h"

namespace attnlab {

// Whether this build has the CUDA kernels (--config=cuda).
bool BuiltWithCuda();

// OK when a CUDA GPU can be used; else FailedPrecondition saying why (no CUDA in this build,
// or the runtime's reason there is no device).
absl::Status CudaAvailable();

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_CUDA_DEVICE_H_
