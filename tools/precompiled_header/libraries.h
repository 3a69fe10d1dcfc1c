// The standard and third-party headers most of our C++ files include, for precompiled_header
// (precompiled_header.bzl): nothing of our own, so that editing the project recompiles no .gch.
#ifndef ATTNLAB_TOOLS_PRECOMPILED_HEADER_LIBRARIES_H_
#define ATTNLAB_TOOLS_PRECOMPILED_HEADER_LIBRARIES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "tbb/task_arena.h"

#endif  // ATTNLAB_TOOLS_PRECOMPILED_HEADER_LIBRARIES_H_
