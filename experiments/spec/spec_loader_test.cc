#include "experiments/spec/spec_loader.h"

#include "attention/base/field_error.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

// Line numbers below refer to this text (line 1 is `name`).
constexpr char kSpec[] = R"pb(name: "t"
model {
  layer {
    plugin: "prompt"
    config {
      [type.googleapis.com/attnlab.plugins.PromptAttentionConfig] {
        p { value: [ 1, 2 ] }
      }
    }
  }
}
optimizer { lr: 0.1 }
)pb";

TEST(SpecLoaderTest, LocatesFieldsThroughAny) {
  auto parsed = ParseSpecText(kSpec, "t.textproto");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const SpecLocator& locator = *parsed->locator;
  EXPECT_EQ(locator.Locate("name"), "t.textproto:1:1");
  EXPECT_EQ(locator.Locate("model.layer[0].plugin"), "t.textproto:4:5");
  EXPECT_EQ(locator.Locate("model.layer[0].config.p.value"), "t.textproto:7:13");
  EXPECT_EQ(locator.Locate("model.layer[0].config.p"), "t.textproto:7:9");
  // Unwritten fields point at the deepest written ancestor.
  EXPECT_EQ(locator.Locate("model.layer[0].config.w.value"), "t.textproto:5:5");
  EXPECT_EQ(locator.Locate("optimizer.plugin"), "t.textproto:12:1");
  EXPECT_EQ(locator.Locate("dataset.plugin"), "t.textproto:1:1");
  EXPECT_EQ(locator.Format(FieldError("optimizer.plugin", "missing")),
            "t.textproto:12:1: optimizer.plugin: missing");
}

TEST(SpecLoaderTest, SyntaxAndTypeErrorsAreLocated) {
  EXPECT_EQ(ParseSpecText("name: \"x\"\nmodel {\n", "a.textproto").status().message(),
            "a.textproto:3:1: Expected identifier, got: end of file (an unclosed '{'?)");
  EXPECT_EQ(ParseSpecText("training { steps: \"many\" }", "b.textproto").status().message(),
            "b.textproto:1:19: Expected integer, got: \"many\"");
  EXPECT_EQ(ParseSpecText("trainig { steps: 1 }", "c.textproto").status().message(),
            "c.textproto:1:1: trainig: attnlab.ExperimentSpec has no field 'trainig'");
}

// The same spec with its configs written without their type URLs (short_config.h).
constexpr char kShortSpec[] = R"pb(name: "t"
                                   model {
                                     layer {
                                       plugin: "prompt"
                                       config {
                                         p { value: [ 1, 2 ] }
                                         mechanism: "sigmoid"
                                         mechanism_config { bias: -1 }
                                       }
                                     }
                                     loss { plugin: "logistic" }
                                   }
                                   optimizer { lr: 0.1 }
)pb";

TEST(SpecLoaderTest, ConfigsWithoutTypeUrlsReadAsTheNamedPluginsConfigs) {
  auto parsed = ParseSpecText(kShortSpec, "s.textproto");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  auto explicit_form = ParseSpecText(PrintSpec(parsed->spec), "e.textproto");
  ASSERT_TRUE(explicit_form.ok()) << explicit_form.status();
  EXPECT_EQ(PrintSpec(explicit_form->spec), PrintSpec(parsed->spec));
  const std::string printed = PrintSpec(parsed->spec);
  EXPECT_NE(printed.find("[type.googleapis.com/attnlab.plugins.SigmoidConfig]"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("bias: -1"), std::string::npos) << printed;
  // Locations are the written ones, inserted type URLs or not.
  EXPECT_EQ(parsed->locator->Locate("model.layer[0].config.p.value"), "s.textproto:6:46");
  EXPECT_EQ(parsed->locator->Locate("model.layer[0].config.mechanism_config.bias"),
            "s.textproto:8:61");
}

TEST(SpecLoaderTest, ShortConfigErrorsAreLocatedAndNameTheMessage) {
  auto error = [](const std::string& text) {
    return std::string(ParseSpecText(text, "x.textproto").status().message());
  };
  EXPECT_EQ(error("model {\n  layer { plugin: \"prompt\" config { q { value: 1 } } }\n}"),
            "x.textproto:2:37: model.layer[0].config.q: attnlab.plugins.PromptAttentionConfig has "
            "no field 'q'");
  EXPECT_EQ(error("model { layer { plugin: \"promt\" config { p { value: 1 } } } }"),
            "x.textproto:1:17: model.layer[0].plugin: unknown layer plugin 'promt'; known: "
            "attention, classifier, embedding, fc_net, layer_norm, patch_embedding, prompt, "
            "sparse_select, transformer_block");
  EXPECT_EQ(error("model { loss { plugin: \"logistic\" config { x: 1 } } }"),
            "x.textproto:1:42: model.loss.config: loss plugin 'logistic' takes no config");
  EXPECT_EQ(error("model { layer { config { p { value: 1 } } } }"),
            "x.textproto:1:24: model.layer[0].config: a config without its type URL needs the "
            "layer plugin's name in 'plugin'");
  // A plugin that takes no config may be given an empty one.
  EXPECT_TRUE(ParseSpecText("model { loss { plugin: \"logistic\" config {} } }", "y").ok());
}

TEST(SpecLoaderTest, TabsKeepTheirColumns) {
  // protobuf counts a tab to the next multiple of 8: the field is at column 43 of line 2.
  EXPECT_EQ(ParseSpecText("model {\n\tlayer {\tplugin: \"prompt\" config { pp: 1 } }\n}", "t")
                .status()
                .message(),
            "t:2:43: model.layer[0].config.pp: attnlab.plugins.PromptAttentionConfig has no field "
            "'pp'");
}

TEST(SpecLoaderTest, MissingFileIsNotFound) {
  auto parsed = ReadSpecFile("/nonexistent/spec.textproto");
  EXPECT_TRUE(absl::IsNotFound(parsed.status()));
  EXPECT_EQ(parsed.status().message(),
            "/nonexistent/spec.textproto: cannot read spec file (No such file or directory)");
}

// A finding of the spec fuzzer, kept: raw non-UTF-8 bytes went into string fields.
TEST(SpecLoaderTest, NonUtf8TextIsALocatedError) {
  auto parsed =
      ParseSpecText("name: \"ok\"\nmodel { layer { plugin: \"soft\xffmax\" } }", "bin.textproto");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "bin.textproto:2:30: not UTF-8 text (a spec is a text file)");
}

// transformer_block inside transformer_block through their Any configs, 2,500 deep, crashed
// protobuf's text parser (a stack overflow, with --dry_run too): refused before parsing, at the
// brace that goes past the limit.
std::string NestedBlocks(int depth) {
  std::string layer = "plugin: \"softmax\"";
  for (int i = 0; i < depth; ++i) {
    layer = "plugin: \"transformer_block\" config { "
            "[type.googleapis.com/attnlab.plugins.TransformerBlockConfig] { attention { " +
            layer + " } } }";
  }
  return "name: \"deep\"\nmodel { layer { " + layer + " } }\n";
}

TEST(SpecLoaderTest, DeepNestingIsALocatedError) {
  auto parsed = ParseSpecText(NestedBlocks(2500), "deep.textproto");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(std::string(parsed.status().message()),
            "deep.textproto:2:2367: nested more than 64 levels deep");
  // Braces in strings and comments do not count; 20 levels of blocks (62 braces) parse.
  EXPECT_TRUE(ParseSpecText(NestedBlocks(20), "ok.textproto").ok());
  EXPECT_TRUE(ParseSpecText("name: \"{{{{\" # {{{{\n" + std::string(80, '#'), "s").ok());
}

}  // namespace
}  // namespace attnlab
