// The checks every attention mechanism passes (testonly): it runs in the layers that host
// mechanisms, found by name in the registry ("attention"; "prompt" and "sparse_select", in
// every encoding and sampler, when the mechanism takes one query per sample), in every form it
// accepts, with finite-difference gradients in double and float forwards against double.
#ifndef ATTNLAB_ATTENTION_MECHANISM_CHECK_H_
#define ATTNLAB_ATTENTION_MECHANISM_CHECK_H_

#include <string>

#include "absl/status/status.h"
#include "attention/mechanism.h"

namespace attnlab {

// `config_text`: the mechanism's config in text format ("" for its defaults). OK, or the first
// failure (layer form and what failed); an error too when no form accepted the mechanism.
absl::Status CheckMechanismInEveryLayer(const std::string& name, const std::string& config_text);

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
