#include "plugins/metrics/attention_top_mass/attention_top_mass.h"

#include <cmath>

#include "datasets/fixed_dataset.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

// Paper 1's prompt layer with p = 1, W = 1 (d = 1): each sample's weights are the softmax of
// its tokens. Sample 0's tokens (0, ln 2, ln 3) give weights (1, 2, 3) / 6; sample 1's zeros
// give (1, 1, 1) / 3.
struct PromptModel {
  std::unique_ptr<Model<double>> model;
  std::unique_ptr<FixedDataset<double>> data;
};

PromptModel Build() {
  ModelSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        layer {
          name: "attn"
          plugin: "prompt"
          config {
            [type.googleapis.com/attnlab.plugins.PromptAttentionConfig] {
              p { value: 1 }
              v { value: 1 }
            }
          }
        }
        loss { plugin: "logistic" })pb",
      &spec));
  Batch<double> train{Tensor<double>(Shape{2, 3, 1}), Tensor<double>(Shape{2, 1, 1})};
  train.inputs.flat() << 0, std::log(2.0), std::log(3.0), 0, 0, 0;
  train.targets.flat() << 1, -1;
  ExecContext ctx(1);
  auto model = Model<double>::Create(spec, train.inputs.shape(), train.targets.shape(), ctx);
  EXPECT_TRUE(model.ok()) << model.status();
  PromptModel built{std::move(*model), std::make_unique<FixedDataset<double>>(std::move(train))};
  built.model->Forward(built.data->train()->inputs, ctx);
  return built;
}

double TopMass(PromptModel& built, const std::string& config_text) {
  plugins::AttentionTopMassConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(config_text, &config));
  auto metric = AttentionTopMass<double>::Create(config);
  EXPECT_TRUE(metric.ok()) << metric.status();
  EXPECT_TRUE((*metric)->Setup({*built.model, *built.data}).ok());
  absl::StatusOr<double> value = (*metric)->Evaluate(*built.model, *built.data->train());
  EXPECT_TRUE(value.ok()) << value.status();
  return value.value_or(NAN);
}

TEST(AttentionTopMassTest, ByHand) {
  PromptModel built = Build();
  EXPECT_NEAR(TopMass(built, "layer: 'attn'"), (3.0 / 6 + 1.0 / 3) / 2, 1e-12);
  EXPECT_NEAR(TopMass(built, "layer: 'attn' k: 2"), (5.0 / 6 + 2.0 / 3) / 2, 1e-12);
  EXPECT_NEAR(TopMass(built, "layer: 'attn' k: 3"), 1, 1e-12);
  EXPECT_NEAR(TopMass(built, "layer: 'attn' k: 7"), 1, 1e-12);
}

TEST(AttentionTopMassTest, ConfigErrorsNameTheField) {
  plugins::AttentionTopMassConfig config;
  EXPECT_EQ(AttentionTopMass<double>::Create(config).status().message(),
            "layer: missing: name an attention layer");
  config.set_layer("attn");
  config.set_k(0);
  EXPECT_EQ(AttentionTopMass<double>::Create(config).status().message(), "k: must be >= 1, got 0");
  PromptModel built = Build();
  config.set_layer("nope");
  config.clear_k();
  auto metric = AttentionTopMass<double>::Create(config);
  ASSERT_TRUE(metric.ok());
  EXPECT_EQ((*metric)->Setup({*built.model, *built.data}).message(),
            "layer: no layer 'nope'; layers: attn");
}

}  // namespace
}  // namespace attnlab
