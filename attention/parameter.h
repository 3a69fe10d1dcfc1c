// A trainable tensor with its gradient, and its initialization from a ParamSpec.
#ifndef ATTNLAB_ATTENTION_PARAMETER_H_
#define ATTNLAB_ATTENTION_PARAMETER_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "attention/exec_context.h"
#include "attention/model.pb.h"
#include "attention/tensor.h"

namespace attnlab {

template <typename T>
struct Parameter {
  // The layer-local name ("p"); Model prefixes the layer name ("attention/p").
  std::string name;
  Matrix<T> value;
  // Set by the owning layer's Backward; a frozen parameter's may be left at zero.
  Matrix<T> grad;
  // Not updated by optimizers.
  bool frozen = false;
};

// How a layer initializes a parameter when its spec says DEFAULT.
struct DefaultInit {
  ParamSpec::Init init = ParamSpec::ZEROS;
  double std = 0.0;  // for NORMAL
};

// Shapes `param` to rows x cols and fills it as `spec` says. Errors name `field` (the path of
// the ParamSpec inside the layer config) so the spec loader can point at the line.
template <typename T>
absl::Status InitParameter(const ParamSpec& spec, DefaultInit default_init, int rows, int cols,
                           absl::string_view field, ExecContext& ctx, Parameter<T>* param);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_PARAMETER_H_
