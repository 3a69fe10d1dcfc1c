#include "experiments/spec_changes.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace attnlab {
namespace {

struct Retired {
  const char* pattern;      // the error's words that name it
  const char* replacement;  // what to write instead
};

// Newest first. README's "Changes to specs" lists the same.
constexpr Retired kRetired[] = {
    {"Could not find type \"type.googleapis.com/attnlab.plugins.SoftmaxAttentionConfig\"",
     "SoftmaxAttentionConfig was replaced (2026-11-23) by the layer plugin 'attention' with "
     "AttentionConfig (heads, qk_dim, value_dim, causal, bias, output_dim, q/k/v/o; softmax is "
     "its default mechanism) and, for query: PROMPT, by the plugin 'prompt' with "
     "PromptAttentionConfig (p, w, v, scale)"},
    {"Could not find type \"type.googleapis.com/attnlab.plugins.RpcAttentionConfig\"",
     "RpcAttentionConfig was replaced (2026-11-23) by the layer plugin 'attention' with "
     "AttentionConfig { symmetric: true mechanism: \"rpc\" mechanism_config { "
     "[type.googleapis.com/attnlab.plugins.RpcConfig] { iterations lambda threshold } } } "
     "(pap_iterations is RpcConfig.iterations; head_dim is qk_dim and value_dim)"},
    {"unknown layer plugin 'softmax'",
     "softmax is a mechanism since 2026-11-23: the layer plugin 'attention' runs it by default, "
     "'prompt' is paper 1's one-query form"},
    {"unknown layer plugin 'rpc'",
     "rpc is a mechanism since 2026-11-23: the layer plugin 'attention' with symmetric: true "
     "and mechanism: \"rpc\""},
};

}  // namespace

absl::Status WithSpecChangeNote(const absl::Status& status) {
  const absl::string_view message = status.message();
  for (const Retired& retired : kRetired) {
    if (message.find(retired.pattern) == absl::string_view::npos) continue;
    absl::Status noted(status.code(), absl::StrCat(message, "; ", retired.replacement));
    status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
      noted.SetPayload(url, payload);
    });
    return noted;
  }
  return status;
}

}  // namespace attnlab
