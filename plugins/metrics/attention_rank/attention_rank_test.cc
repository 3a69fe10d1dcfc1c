#include "plugins/metrics/attention_rank/attention_rank.h"

#include <cmath>

#include "attention/metric_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(EffectiveRankTest, ByHand) {
  // Each query on its own token: n equal singular values, rank n.
  EXPECT_NEAR(EffectiveRank(Eigen::MatrixXd::Identity(4, 4)), 4, 1e-12);
  // Every query alike (uniform rows): one singular value, rank 1.
  EXPECT_NEAR(EffectiveRank(Eigen::MatrixXd::Constant(4, 4, 0.25)), 1, 1e-12);
  // Singular values 3 and 1: p = (3/4, 1/4), exp(-(3/4 ln 3/4 + 1/4 ln 1/4)).
  Eigen::MatrixXd a(2, 3);
  a << 3, 0, 0, 0, -1, 0;
  EXPECT_NEAR(EffectiveRank(a), std::exp(-(0.75 * std::log(0.75) + 0.25 * std::log(0.25))), 1e-12);
  EXPECT_EQ(EffectiveRank(Eigen::MatrixXd::Zero(2, 2)), 0);
}

TEST(AttentionRankTest, OnALayer) {
  // The prompt layer's attention is one row per sample: rank 1 each.
  const MetricTestModel<double> built = OneDimensionalPromptModel<double>();
  auto metric = MakeMetric<double>("attention_rank", "layer: 'attn'", built.Context());
  ASSERT_TRUE(metric.ok()) << metric.status();
  EXPECT_NEAR((*metric)->Evaluate(*built.model, built.train).value(), 1, 1e-12);
  plugins::AttentionRankConfig config;
  EXPECT_EQ(AttentionRank<double>::Create(config).status().message(),
            "layer: missing: name an attention layer");
}

}  // namespace
}  // namespace attnlab
