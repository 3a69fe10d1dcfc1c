#include <cmath>

#include "attention/metric_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

// A symmetric two-head attention layer running `rpc` (n 2, lambda 4) on 3 samples of 5 tokens of
// width 4, its weights as a deterministic function of the index.
MetricTestModel<double> RpcModel() {
  Batch<double> train{Tensor<double>(Shape{3, 5, 4}), Tensor<double>(Shape{3, 5, 4})};
  for (int64_t i = 0; i < train.inputs.size(); ++i) {
    train.inputs.data()[i] = std::sin(0.7 * double(i));
    train.targets.data()[i] = std::cos(0.3 * double(i));
  }
  return BuildMetricTestModel<double>(R"pb(
    layer {
      name: "attn"
      plugin: "attention"
      config {
        [type.googleapis.com/attnlab.plugins.AttentionConfig] {
          symmetric: true heads: 2 qk_dim: 2 value_dim: 2 output_dim: 4 mechanism: "rpc"
          mechanism_config { [type.googleapis.com/attnlab.plugins.RpcConfig] { iterations: 2 lambda: 4 } }
        }
      }
    }
    loss { plugin: "squared" })pb", std::move(train));
}

double Agreement(const MetricTestModel<double>& built, const std::string& config) {
  auto metric = MakeMetric<double>("pap_agreement", config, built.Context());
  EXPECT_TRUE(metric.ok()) << metric.status();
  if (!metric.ok()) return NAN;
  return (*metric)->Evaluate(*built.model, built.train).value_or(NAN);
}

TEST(PapAgreementTest, TheRpcLayerIsPapTranscribed) {
  const MetricTestModel<double> built = RpcModel();
  EXPECT_LT(Agreement(built, "layer: 'attn' iterations: 2 lambda: 4 embed_width: 4"), 1e-12);
  // Other settings than the layer's: the metric has teeth.
  EXPECT_GT(Agreement(built, "layer: 'attn' iterations: 1 lambda: 4 embed_width: 4"), 1e-6);
  EXPECT_GT(Agreement(built, "layer: 'attn' iterations: 2 lambda: 0.01 embed_width: 4"), 1e-6);
}

TEST(PapAgreementTest, ConfigErrorsNameTheField) {
  const MetricTestModel<double> built = RpcModel();
  EXPECT_EQ(MakeMetric<double>("pap_agreement", "layer: 'attn' iterations: 0 embed_width: 4",
                               built.Context())
                .status()
                .message(),
            "iterations: must be >= 1, got 0");
  const MetricTestModel<double> prompt = OneDimensionalPromptModel<double>();
  EXPECT_EQ(MakeMetric<double>("pap_agreement", "layer: 'attn' iterations: 2 embed_width: 4",
                               prompt.Context())
                .status()
                .message(),
            "layer: 'attn' has no symmetric heads (queries = keys) to read");
}

}  // namespace
}  // namespace attnlab
