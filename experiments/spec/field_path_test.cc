#include "experiments/spec/field_path.h"

#include "experiments/spec/experiment.pb.h"
#include "experiments/spec/spec_loader.h"
#include "gtest/gtest.h"
#include "plugins/datasets/wikitext/wikitext.pb.h"
#include "plugins/layers/prompt/prompt.pb.h"

namespace attnlab {
namespace {

ExperimentSpec Spec() {
  absl::StatusOr<ParsedSpec> parsed = ParseSpecText(R"pb(
    model {
      layer {
        plugin: "prompt"
        config {
          p { value: [ 1, 2 ] }
          value_dim: 2
        }
      }
    }
    optimizer { plugin: "normalized_gd" lr: 0.1 })pb",
                                                    "t.textproto");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? parsed->spec : ExperimentSpec();
}

TEST(FieldPathTest, Parses) {
  auto path = ParseFieldPath("model.layer[12].config");
  ASSERT_TRUE(path.ok());
  ASSERT_EQ(path->size(), 3u);
  EXPECT_EQ((*path)[1].name, "layer");
  EXPECT_EQ((*path)[1].index, 12);
  EXPECT_EQ((*path)[2].index, -1);
  EXPECT_FALSE(ParseFieldPath("model..x").ok());
  EXPECT_FALSE(ParseFieldPath("layer[x]").ok());
  EXPECT_FALSE(ParseFieldPath("layer[1").ok());
}

TEST(FieldPathTest, SetsScalarsListsAndWholeMessages) {
  ExperimentSpec spec = Spec();
  ASSERT_TRUE(SetFieldFromText(&spec, "optimizer.lr", "0.5").ok());
  EXPECT_EQ(spec.optimizer().lr(), 0.5);
  ASSERT_TRUE(SetFieldFromText(&spec, "optimizer", "{ plugin: 'gd' lr: 1 }").ok());
  EXPECT_EQ(spec.optimizer().plugin(), "gd");
  ASSERT_TRUE(SetFieldFromText(&spec, "training.log_step", "[1, 2, 3]").ok());
  EXPECT_EQ(spec.training().log_step_size(), 3);
}

// A string field takes a path as it is typed on a command line, or quoted.
TEST(FieldPathTest, StringsTakeUnquotedValues) {
  ExperimentSpec spec = Spec();
  ASSERT_TRUE(SetFieldFromText(&spec, "dataset.plugin", "wikitext").ok());
  ASSERT_TRUE(SetFieldFromText(&spec, "dataset.config.train", "/data/wiki.train.tokens").ok());
  plugins::WikiTextConfig wikitext;
  ASSERT_TRUE(spec.dataset().config().UnpackTo(&wikitext));
  EXPECT_EQ(wikitext.train(), "/data/wiki.train.tokens");
  ASSERT_TRUE(SetFieldFromText(&spec, "name", "\"a b\"").ok());
  EXPECT_EQ(spec.name(), "a b");
  ASSERT_TRUE(SetFieldFromText(&spec, "name", "it's").ok());
  EXPECT_EQ(spec.name(), "it's");
}

TEST(FieldPathTest, DeepValuesAreRefused) {
  ExperimentSpec spec = Spec();
  std::string value = "{}";
  for (int i = 0; i < 100; ++i) value = "{ model " + value + " }";
  EXPECT_EQ(std::string(SetFieldFromText(&spec, ".", value).message()),
            "value for '.' is nested more than 64 levels deep (line 1 column 513)");
}

TEST(FieldPathTest, IndexAtTheEndReplacesOneElement) {
  ExperimentSpec spec = Spec();
  ASSERT_TRUE(SetFieldFromText(&spec, "model.layer[0]", "{ name: 'x' plugin: 'fc_net' }").ok());
  EXPECT_EQ(spec.model().layer(0).name(), "x");
  EXPECT_EQ(spec.model().layer(0).plugin(), "fc_net");
  EXPECT_FALSE(spec.model().layer(0).has_config());  // replaced, not merged
}

TEST(FieldPathTest, DotReplacesSeveralTopLevelParts) {
  ExperimentSpec spec = Spec();
  ASSERT_TRUE(SetFieldFromText(&spec, ".", "optimizer { plugin: 'adam' lr: 0.01 } training { steps: 5 }")
                  .ok());
  EXPECT_EQ(spec.optimizer().plugin(), "adam");  // replaced, not merged
  EXPECT_EQ(spec.training().steps(), 5);
  EXPECT_EQ(spec.model().layer_size(), 1);  // untouched
}

TEST(FieldPathTest, StepsThroughAny) {
  ExperimentSpec spec = Spec();
  ASSERT_TRUE(SetFieldFromText(&spec, "model.layer[0].config.p.value", "[3, 4, 5]").ok());
  plugins::PromptAttentionConfig config;
  ASSERT_TRUE(spec.model().layer(0).config().UnpackTo(&config));
  EXPECT_EQ(config.p().value_size(), 3);
  EXPECT_EQ(config.p().value(2), 5.0);
  EXPECT_EQ(config.value_dim(), 2);  // the rest is kept
}

TEST(FieldPathTest, ErrorsAreClear) {
  ExperimentSpec spec = Spec();
  EXPECT_EQ(SetFieldFromText(&spec, "optimizer.lrr", "1").message(),
            "field path 'optimizer.lrr': attnlab.OptimizerSpec has no field 'lrr'");
  EXPECT_EQ(SetFieldFromText(&spec, "training.log_step[0]", "1").message(),
            "field path 'training.log_step[0]': only repeated message fields take an index at "
            "the end; set a whole repeated field as [1, 2, 3]");
  EXPECT_EQ(SetFieldFromText(&spec, "model.layer[3].name", "x").message(),
            "field path 'model.layer[3].name': 'layer' has 1 entries; give an index [0..0]");
  EXPECT_EQ(SetFieldFromText(&spec, "optimizer.lr", "fast").message(),
            "value 'fast' for 'optimizer.lr' does not parse: column 1: Expected double, got: fast");
}

// Sweep values and --set may write plugin configs without their type URLs (short_config.h).
TEST(FieldPathTest, ShortConfigsReadAsTheNamedPluginsConfigs) {
  ExperimentSpec spec = Spec();
  ASSERT_TRUE(SetFieldFromText(&spec, "model.layer[0].config", "{ p { value: [3, 4] } }").ok());
  plugins::PromptAttentionConfig config;
  ASSERT_TRUE(spec.model().layer(0).config().UnpackTo(&config));
  EXPECT_EQ(config.p().value(1), 4);
  ASSERT_TRUE(
      SetFieldFromText(&spec, "model.layer[0]", "{ plugin: 'prompt' config { value_dim: 3 } }")
          .ok());
  ASSERT_TRUE(spec.model().layer(0).config().UnpackTo(&config));
  EXPECT_EQ(config.value_dim(), 3);
  // A plugin left at its defaults (no config written): a path into its config still works.
  spec.mutable_model()->mutable_layer(0)->clear_config();
  ASSERT_TRUE(SetFieldFromText(&spec, "model.layer[0].config.value_dim", "5").ok());
  ASSERT_TRUE(spec.model().layer(0).config().UnpackTo(&config));
  EXPECT_EQ(config.value_dim(), 5);
  EXPECT_EQ(
      std::string(SetFieldFromText(&spec, "model.layer[0]", "{ plugin: 'prompt' config { vd: 3 } }")
                      .message()),
      "value for 'model.layer[0]' does not parse: column 29: config.vd: "
      "attnlab.plugins.PromptAttentionConfig has no field 'vd'");
}

TEST(SplitAssignmentsTest, SplitsAtTopLevelCommasOnly) {
  EXPECT_EQ(SplitAssignments("a=1,b=[1, 2],c={ x: 1, y: \"p,q\" }"),
            (std::vector<std::string>{"a=1", "b=[1, 2]", "c={ x: 1, y: \"p,q\" }"}));
  EXPECT_EQ(SplitAssignments("sweep.seed=[1]"), (std::vector<std::string>{"sweep.seed=[1]"}));
  EXPECT_TRUE(SplitAssignments("").empty());
}

}  // namespace
}  // namespace attnlab
