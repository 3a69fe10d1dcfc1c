#include "experiments/spec/plugin_refs.h"

#include <set>
#include <string>

#include "experiments/store/code_version.h"
#include "experiments/spec/spec_loader.h"
#include "experiments/store/this_build.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

ExperimentSpec Parse(const std::string& text) {
  absl::StatusOr<ParsedSpec> parsed = ParseSpecText(text, "t.textproto");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? parsed->spec : ExperimentSpec();
}

// A transformer block around sigmoid attention: the plugins named at any depth, and what they
// use by name (the block's layer norms and MLP, the attention layer's default mechanism).
constexpr char kBlock[] = R"pb(
  model {
    layer {
      plugin: "transformer_block"
      config {
        ffn_hidden: 4
        attention {
          plugin: "attention"
          config { heads: 1 mechanism: "sigmoid" }
        }
      }
    }
    loss { plugin: "squared" }
  })pb";

TEST(PluginRefsTest, NamedAtAnyDepthAndWhatTheyUse) {
  EXPECT_EQ(PluginsOf(Parse(kBlock)),
            (std::set<std::string>{"layer/attention", "layer/fc_net", "layer/layer_norm",
                                   "layer/transformer_block", "loss/squared", "mechanism/sigmoid",
                                   "mechanism/softmax"}));
  EXPECT_EQ(PluginFoldersOf(Parse(kBlock)),
            (std::set<std::string>{"plugins/layers/attention", "plugins/layers/fc_net",
                                   "plugins/layers/layer_norm", "plugins/layers/transformer_block",
                                   "plugins/losses/sample_losses", "plugins/mechanisms/sigmoid",
                                   "plugins/mechanisms/softmax"}));
}

// Editing a plugin's sources changes its folder's hash in the build (tools/code_version); that
// changes the code key of exactly the trials whose specs run it.
TEST(PluginRefsTest, APluginsHashKeysOnlyTheTrialsThatRunIt) {
  const CodeVersion build = ThisBuild();
  ASSERT_GT(build.plugins.size(), 10u);
  const ExperimentSpec sigmoid = Parse(kBlock);
  const ExperimentSpec prompt = Parse(R"pb(
    model {
      layer {
        plugin: "prompt"
        config { p { value: 1 } }
      }
      loss { plugin: "logistic" }
    })pb");
  CodeVersion edited = build;
  edited.plugins.at("plugins/mechanisms/sigmoid") += "x";
  EXPECT_NE(edited.ForPlugins(PluginFoldersOf(sigmoid)).Key(),
            build.ForPlugins(PluginFoldersOf(sigmoid)).Key());
  EXPECT_EQ(edited.ForPlugins(PluginFoldersOf(prompt)).Key(),
            build.ForPlugins(PluginFoldersOf(prompt)).Key());
  // Every trial runs the core.
  CodeVersion core_edited = build;
  core_edited.source += "x";
  EXPECT_NE(core_edited.ForPlugins(PluginFoldersOf(prompt)).Key(),
            build.ForPlugins(PluginFoldersOf(prompt)).Key());
  // A plugin added to the build keys no existing trial anew.
  CodeVersion grown = build;
  grown.plugins["plugins/new_one"] = "0123456789abcdef";
  EXPECT_EQ(grown.ForPlugins(PluginFoldersOf(prompt)).Key(),
            build.ForPlugins(PluginFoldersOf(prompt)).Key());
}

}  // namespace
}  // namespace attnlab
