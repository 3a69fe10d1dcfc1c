// The checks every attention mechanism passes (testonly): it runs in every registered layer that
// hosts one (a config field with the plugin_kind "mechanism", attention/plugin_field.proto), in
// each form the layer registered as an example that the mechanism accepts, with
// finite-difference gradients in double and float forwards against double.
#ifndef ATTNLAB_ATTENTION_MECHANISM_CHECK_H_
#define ATTNLAB_ATTENTION_MECHANISM_CHECK_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "attention/mechanism.h"
#include "google/protobuf/any.pb.h"

namespace attnlab {

// `config_text`: the mechanism's config in text format ("" for its defaults). OK, or the first
// failure (layer form and what failed); an error too when no form accepted the mechanism.
absl::Status CheckMechanismInEveryLayer(const std::string& name, const std::string& config_text);

// The registered mechanism's config `config_text`, packed as a spec packs it.
absl::StatusOr<google::protobuf::Any> MechanismConfig(const std::string& name,
                                                      const std::string& config_text);

// Layer `layer`'s config `form` (text) running mechanism `name` with `mechanism_config`.
absl::StatusOr<google::protobuf::Any> WithMechanism(const std::string& layer,
                                                    const std::string& form,
                                                    const std::string& name,
                                                    const google::protobuf::Any& mechanism_config);

// The shape of heads a hand-computed test runs one mechanism on.
inline HeadShape Heads(int qk_dim, int value_dim, bool causal = false) {
  HeadShape shape;
  shape.qk_dim = qk_dim;
  shape.value_dim = value_dim;
  shape.width = qk_dim;
  shape.causal = causal;
  return shape;
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_MECHANISM_CHECK_H_
