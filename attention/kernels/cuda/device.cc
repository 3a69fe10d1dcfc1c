#include "attention/kernels/cuda/device.h"

#include "absl/strings/str_cat.h"
#include "attention/kernels/cuda/kernels.h"

namespace attnlab {

bool BuiltWithCuda() {
#ifdef ATTNLAB_WITH_CUDA
  return true;
#else
  return false;
#endif
}

absl::Status CudaAvailable() {
#ifdef ATTNLAB_WITH_CUDA
  int count = 0;
  if (const char* error = cuda::DeviceCount(&count)) {
    return absl::FailedPreconditionError(absl::StrCat("no usable CUDA GPU: ", error));
  }
  if (count == 0) return absl::FailedPreconditionError("no CUDA GPU on this machine");
  return absl::OkStatus();
#else
  return absl::FailedPreconditionError(
      "this build has no CUDA: build with --config=cuda (needs nvcc) on a machine with a GPU");
#endif
}

}  // namespace attnlab
