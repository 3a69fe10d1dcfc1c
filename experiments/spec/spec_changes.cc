#include "experiments/spec/spec_changes.h"

#include <string>
#include <vector>

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

// The built-in kinds that became plugins on 2026-12-02: the spec message that held them as
// fields, their names, and the plugin kind.
struct RetiredKinds {
  const char* message;
  std::vector<const char*> names;
  const char* kind;
};

const std::vector<RetiredKinds>& RetiredBuiltIns() {
  static const auto* kinds = new std::vector<RetiredKinds>{
      {"attnlab.MetricSpec",
       {"max_margin", "selected_probability", "attention_entropy", "max_softmax", "param_norm",
        "cosine_to_identity", "marked_attention", "validation_loss", "param_count", "grad_norm",
        "qk_spectrum", "accuracy", "qk_norm", "ratio"},
       "metric"},
      {"attnlab.DatasetSpec",
       {"sequences", "planted", "sparse_selection", "wikitext", "images"},
       "dataset"},
      {"attnlab.OptimizerSpec", {"gd", "normalized_gd", "sgd", "adam", "adamw"}, "optimizer"},
      {"attnlab.ScheduleSpec", {"constant", "step", "cosine"}, "schedule"},
  };
  return *kinds;
}

// "NAME { ... }" in a MetricSpec, DatasetSpec, OptimizerSpec or ScheduleSpec: what replaced it.
std::string RetiredBuiltInNote(absl::string_view message) {
  for (const RetiredKinds& kinds : RetiredBuiltIns()) {
    for (const char* name : kinds.names) {
      if (message.find(absl::StrCat(kinds.message, " has no field '", name, "'")) ==
          absl::string_view::npos) {
        continue;
      }
      return absl::StrCat("the built-in ", kinds.kind, "s are plugins since 2026-12-02: write `",
                          name, " { ... }` as `plugin: \"", name,
                          "\" config { ... }` (paths: ", name, ".x is config.x)");
    }
  }
  return "";
}

}  // namespace

absl::Status WithSpecChangeNote(const absl::Status& status) {
  const absl::string_view message = status.message();
  std::string note = RetiredBuiltInNote(message);
  for (const Retired& retired : kRetired) {
    if (note.empty() && message.find(retired.pattern) != absl::string_view::npos) {
      note = retired.replacement;
    }
  }
  if (note.empty()) return status;
  absl::Status noted(status.code(), absl::StrCat(message, "; ", note));
  status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { noted.SetPayload(url, payload); });
  return noted;
}

}  // namespace attnlab
