#include "plugins/metrics/kpca_projection_loss/kpca_projection_loss.h"

#include <cmath>

#include "attention/metric_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(KpcaProjectionLossTest, ByHand) {
  // Two tokens in one dimension: q = k = (0, 1), scale 1; values (1, 2). Query 0: scores (0, 0),
  // normalizer 2, ||phi||^2 = e^0 / 4; weights (1/2, 1/2), h = 1.5. Query 1: scores (0, 1),
  // normalizer 1 + e, ||phi||^2 = e / (1 + e)^2; weights (1, e) / (1 + e), h = (1 + 2e) / (1 + e).
  Eigen::MatrixXd q(2, 1), v(2, 1), a(2, 2);
  q << 0, 1;
  v << 1, 2;
  const double e = std::exp(1.0);
  a << 0.5, 0.5, 1 / (1 + e), e / (1 + e);
  const double h1 = (1 + 2 * e) / (1 + e);
  const double expected = ((0.25 - 1.5 * 1.5) + (e / ((1 + e) * (1 + e)) - h1 * h1)) / 2;
  EXPECT_NEAR(KpcaProjectionLoss(q, q, v, a, 1), expected, 1e-12);
  // Values 0: the loss is the features' norm alone.
  EXPECT_NEAR(KpcaProjectionLoss(q, q, Eigen::MatrixXd::Zero(2, 1), a, 1),
              (0.25 + e / ((1 + e) * (1 + e))) / 2, 1e-12);
}

TEST(KpcaProjectionLossTest, NeedsALayerWithHeads) {
  plugins::KpcaProjectionLossConfig config;
  EXPECT_EQ(KpcaProjectionLossMetric<double>::Create(config).status().message(),
            "layer: missing: name an attention layer");
  // The prompt layer keeps no queries, keys and values.
  const MetricTestModel<double> built = OneDimensionalPromptModel<double>();
  EXPECT_EQ(MakeMetric<double>("kpca_projection_loss", "layer: 'attn'", built.Context())
                .status()
                .message(),
            "layer: 'attn' keeps no queries, keys and values to read");
}

}  // namespace
}  // namespace attnlab
