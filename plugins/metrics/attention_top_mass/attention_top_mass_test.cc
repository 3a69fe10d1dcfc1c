#include "plugins/metrics/attention_top_mass/attention_top_mass.h"

#include <cmath>

#include "attention/metric_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

double TopMass(const MetricTestModel<double>& built, const std::string& config_text) {
  auto metric = MakeMetric<double>("attention_top_mass", config_text, built.Context());
  EXPECT_TRUE(metric.ok()) << metric.status();
  if (!metric.ok()) return NAN;
  absl::StatusOr<double> value = (*metric)->Evaluate(*built.model, built.train);
  EXPECT_TRUE(value.ok()) << value.status();
  return value.value_or(NAN);
}

TEST(AttentionTopMassTest, ByHand) {
  const MetricTestModel<double> built = OneDimensionalPromptModel<double>();
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
  const MetricTestModel<double> built = OneDimensionalPromptModel<double>();
  EXPECT_EQ(
      MakeMetric<double>("attention_top_mass", "layer: 'nope'", built.Context()).status().message(),
      "layer: no layer 'nope'; layers: attn");
}

}  // namespace
}  // namespace attnlab
