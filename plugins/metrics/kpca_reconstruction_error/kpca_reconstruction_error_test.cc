#include "plugins/metrics/kpca_reconstruction_error/kpca_reconstruction_error.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/attention_layer.h"
#include "attention/metric_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(KpcaReconstructionErrorTest, ByHand) {
  // Tokens (0, 2) and (2, 0) as queries and keys: standardized (-1, 1) / sqrt 2 and its
  // negative, so q^_i . q^_i = 1 and q^_i . k^_0 = 1, -1. At scale 1 the weights are
  // w = e / (e + 1/e) on the token itself. Query 0: ||phi||^2 = e^(1 + 2 log w - 2) = w^2 / e;
  // query 1: e^(1 + 2 log(1 - w) + 2) = (1 - w)^2 e^3. Values 1, 2: h = 2 - w and 1 + w.
  Eigen::MatrixXd x(2, 2), v(2, 1), a(2, 2);
  x << 0, 2, 2, 0;
  v << 1, 2;
  const double e = std::exp(1.0), w = e / (e + 1 / e);
  a << w, 1 - w, 1 - w, w;
  const double expected = w * w / e - (2 - w) * (2 - w) + (1 - w) * (1 - w) * e * e * e -
                          (1 + w) * (1 + w);
  EXPECT_NEAR(KpcaReconstructionErrorSum(x, x, v, a), expected, 1e-12);
  EXPECT_LT(StandardizedSoftmaxMismatch(x, x, a, 1), 1e-15);
  // Uniform weights are not this head's: the mismatch is w - 1/2.
  EXPECT_NEAR(StandardizedSoftmaxMismatch(x, x, Eigen::MatrixXd::Constant(2, 2, 0.5), 1), w - 0.5,
              1e-15);
}

// Two heads of `mechanism` (qk_dim 2) on 3 samples of 5 tokens of width 4.
MetricTestModel<double> AttentionModel(const std::string& mechanism) {
  Batch<double> train{Tensor<double>(Shape{3, 5, 4}), Tensor<double>(Shape{3, 5, 4})};
  for (int64_t i = 0; i < train.inputs.size(); ++i) {
    train.inputs.data()[i] = std::sin(0.7 * double(i));
    train.targets.data()[i] = std::cos(0.3 * double(i));
  }
  return BuildMetricTestModel<double>(
      absl::StrCat(R"pb(
    layer {
      name: "attn"
      plugin: "attention"
      config {
        [type.googleapis.com/attnlab.plugins.AttentionConfig] {
          heads: 2 qk_dim: 2 value_dim: 2 output_dim: 4 mechanism: ")pb",
                   mechanism, R"pb("
        }
      }
    }
    loss { plugin: "squared" })pb"),
      std::move(train));
}

// The sum over a standardized layer's heads of its last forward's first `samples` samples.
double HeadsSum(const MetricTestModel<double>& built, int samples) {
  AttentionLayer<double>* layer = built.model->FindLayer("attn")->AsAttention();
  const auto heads = *layer->head_projections();
  double total = 0;
  for (int s = 0; s < 2 * samples; ++s) {
    const int b = s / 2, h = s % 2;
    total += KpcaReconstructionErrorSum(heads.queries->block(5 * b, 2 * h, 5, 2),
                                        heads.keys->block(5 * b, 2 * h, 5, 2),
                                        heads.values->block(5 * b, 2 * h, 5, 2),
                                        layer->attention().sample(s));
  }
  return total;
}

TEST(KpcaReconstructionErrorTest, ReadsEveryHeadOfAStandardizedLayer) {
  const MetricTestModel<double> built = AttentionModel("standardized_softmax");
  auto metric = MakeMetric<double>("kpca_reconstruction_error", "layer: 'attn'", built.Context());
  ASSERT_TRUE(metric.ok()) << metric.status();
  absl::StatusOr<double> value = (*metric)->Evaluate(*built.model, built.train);
  ASSERT_TRUE(value.ok()) << value.status();
  // The same from the layer's heads, one by one.
  const double total = HeadsSum(built, 3);
  EXPECT_NEAR(*value, total / 30, 1e-9 * std::abs(total));
}

TEST(KpcaReconstructionErrorTest, FixedSamplesAreOneBatchThroughout) {
  MetricTestModel<double> built = AttentionModel("standardized_softmax");
  auto metric = MakeMetric<double>("kpca_reconstruction_error", "layer: 'attn' fixed_samples: 2",
                                   built.Context());
  ASSERT_TRUE(metric.ok()) << metric.status();
  EXPECT_FALSE((*metric)->reads_training_forward());
  // Whatever batch the step ran, the metric passes the training set's first 2 samples.
  Tensor<double> other(Shape{1, 5, 4});
  other.flat().setConstant(0.5);
  other.sample(0)(0, 0) = -1;
  ExecContext ctx(1);
  built.model->Forward(other, ctx);
  absl::StatusOr<double> value = (*metric)->Evaluate(*built.model, built.train);
  ASSERT_TRUE(value.ok()) << value.status();
  Tensor<double> first_two(Shape{2, 5, 4});
  for (int b = 0; b < 2; ++b) first_two.sample(b) = built.train.inputs.sample(b);
  built.model->Forward(first_two, ctx);
  const double expected = HeadsSum(built, 2) / 20;
  EXPECT_NEAR(*value, expected, 1e-9 * std::abs(expected));
  EXPECT_EQ(MakeMetric<double>("kpca_reconstruction_error", "layer: 'attn' fixed_samples: 4",
                               built.Context())
                .status()
                .message(),
            "fixed_samples: 4 is more than the training set's 3 samples");
  MetricContext<double> stream = built.Context();
  stream.data.train = nullptr;
  EXPECT_EQ(MakeMetric<double>("kpca_reconstruction_error", "layer: 'attn' fixed_samples: 2", stream)
                .status()
                .message(),
            "fixed_samples: needs a fixed training set; this data is a stream");
}

TEST(KpcaReconstructionErrorTest, RefusesOtherMechanisms) {
  EXPECT_EQ(MetricRegistry<double>().Create("kpca_reconstruction_error", {}).status().message(),
            "layer: missing: name an attention layer");
  EXPECT_EQ(MakeMetric<double>("kpca_reconstruction_error", "layer: 'attn' fixed_samples: 2",
                               OneDimensionalPromptModel<double>().Context())
                .status()
                .message(),
            "layer: 'attn' keeps no queries, keys and values to read");
  const MetricTestModel<double> built = AttentionModel("softmax");
  auto metric = MakeMetric<double>("kpca_reconstruction_error", "layer: 'attn'", built.Context());
  ASSERT_TRUE(metric.ok()) << metric.status();
  const absl::Status refused = (*metric)->Evaluate(*built.model, built.train).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(refused)) << refused;
  EXPECT_EQ(refused.message(),
            "layer: 'attn': its weights are not the softmax of its standardized queries and keys "
            "(the authors' measure reads mechanism: 'standardized_softmax')");
}

}  // namespace
}  // namespace attnlab
