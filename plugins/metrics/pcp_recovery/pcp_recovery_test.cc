#include "attention/metric_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

double Recovery(const std::string& config) {
  const MetricTestModel<double> built = OneDimensionalPromptModel<double>();
  auto metric = MakeMetric<double>("pcp_recovery", config, built.Context());
  EXPECT_TRUE(metric.ok()) << metric.status();
  if (!metric.ok()) return NAN;
  return (*metric)->Evaluate(*built.model, built.train).value_or(NAN);
}

TEST(PcpRecoveryTest, RecoversAPlantedSplit) {
  // Rank 2 and 5% corruptions of a 60 x 60 matrix: well inside PCP's recovery region.
  EXPECT_LT(Recovery("rows: 60 cols: 60 rank: 2 sparse_fraction: 0.05 seed: 3"), 1e-6);
  // Half the entries corrupted: far outside it, and the metric says so.
  EXPECT_GT(Recovery("rows: 30 cols: 30 rank: 10 sparse_fraction: 0.5 seed: 3"), 1e-2);
}

TEST(PcpRecoveryTest, ConfigErrorsNameTheField) {
  const MetricTestModel<double> built = OneDimensionalPromptModel<double>();
  EXPECT_EQ(MakeMetric<double>("pcp_recovery", "rows: 5 cols: 5 rank: 6", built.Context())
                .status()
                .message(),
            "rank: must be in [1, min(rows, cols)], got 6");
  EXPECT_EQ(
      MakeMetric<double>("pcp_recovery", "cols: 5 rank: 1", built.Context()).status().message(),
      "rows: must be >= 1, got 0");
}

}  // namespace
}  // namespace attnlab
