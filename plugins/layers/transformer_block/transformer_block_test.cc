#include "plugins/layers/transformer_block/transformer_block.h"

#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "attention/layer_testing.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<TransformerBlock<double>> Make(const std::string& text, const Shape& input) {
  return SetUpLayer<TransformerBlock<double>>(text, input, /*seed=*/2);
}

constexpr char kAttention[] =
    " attention { plugin: 'attention' config { "
    "[type.googleapis.com/attnlab.plugins.AttentionConfig] { heads: 2 "
    "qk_dim: 2 value_dim: 3 bias: true output_dim: 6 causal: true } } }";

TEST(TransformerBlockTest, GradientChecksPostAndPreLn) {
  for (const std::string norm : {"norm: POST", "norm: PRE activation: GELU"}) {
    auto block = Make(norm + " ffn_hidden: 7" + kAttention, {2, 4, 6});
    for (Parameter<double>* p : block->parameters()) p->value.setRandom();
    Tensor<double> x({2, 4, 6});
    x.flat().setRandom();
    absl::Status status = CheckLayerGradients(*block, x);
    EXPECT_TRUE(status.ok()) << norm << ": " << status;
  }
}

TEST(TransformerBlockTest, PostLnOutputIsNormalizedAndCausal) {
  auto block = Make(std::string("ffn_hidden: 5") + kAttention, {1, 4, 6});
  Tensor<double> x({1, 4, 6}), out1, out2;
  x.flat().setRandom();
  ExecContext ctx(1);
  block->Forward(x, &out1, ctx);
  for (int t = 0; t < 4; ++t) {  // LN2 with gamma 1, beta 0: zero mean, unit variance
    EXPECT_NEAR(out1.sample(0).row(t).mean(), 0, 1e-12);
    EXPECT_NEAR(out1.sample(0).row(t).squaredNorm() / 6, 1, 1e-4);
  }
  x.sample(0).row(3).setRandom();  // a later token cannot change earlier outputs
  block->Forward(x, &out2, ctx);
  EXPECT_LT((out1.sample(0).topRows(3) - out2.sample(0).topRows(3)).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(TransformerBlockTest, ParametersAndSublayersAreNamed) {
  auto block = Make(std::string("ffn_hidden: 5") + kAttention, {1, 4, 6});
  std::vector<std::string> names;
  for (Parameter<double>* p : block->parameters()) names.push_back(p->name);
  EXPECT_EQ(names.front(), "attn/q");
  EXPECT_EQ(names.back(), "ln2/beta");
  EXPECT_NE(block->sublayers()[0].second->AsAttention(), nullptr);
}

TEST(TransformerBlockTest, ShapeChangingAttentionIsAConfigError) {
  plugins::TransformerBlockConfig config;
  google::protobuf::TextFormat::ParseFromString(
      "ffn_hidden: 3 attention { plugin: 'attention' config { "
      "[type.googleapis.com/attnlab.plugins.AttentionConfig] { value_dim: 2 } } }",
      &config);
  auto block = std::move(*TransformerBlock<double>::Create(config));
  ExecContext ctx(1);
  EXPECT_EQ(ErrorField(block->Setup({1, 3, 4}, ctx).status()), "attention.config");
  config.mutable_attention()->set_plugin("nope");
  EXPECT_EQ(ErrorField(TransformerBlock<double>::Create(config).status()), "attention.plugin");
}

}  // namespace
}  // namespace attnlab
