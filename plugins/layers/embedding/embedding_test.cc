#include "plugins/layers/embedding/embedding.h"

#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<Embedding<double>> Make(int vocab, int dim, int max_len, const Shape& input) {
  plugins::EmbeddingConfig config;
  config.set_vocab_size(vocab);
  config.set_dim(dim);
  config.set_max_len(max_len);
  auto layer = std::move(*Embedding<double>::Create(config));
  ExecContext ctx(1);
  EXPECT_TRUE(layer->Setup(input, ctx).ok());
  return layer;
}

TEST(EmbeddingTest, LooksUpTokensAndAddsPositions) {
  auto layer = Make(5, 2, 3, {1, 3, 1});
  auto params = layer->parameters();
  params[0]->value << 0, 0, 1, 10, 2, 20, 3, 30, 4, 40;  // token i -> (i, 10 i)
  params[1]->value << 0.1, 0.2, 0.3, 0.4, 0.5, 0.6;
  Tensor<double> ids({1, 3, 1}), out;
  ids.flat() << 4, 1, 4;
  ExecContext ctx(1);
  layer->Forward(ids, &out, ctx);
  EXPECT_EQ(out.sample(0)(0, 1), 40.2);
  EXPECT_EQ(out.sample(0)(1, 0), 1.3);
  EXPECT_EQ(out.sample(0)(2, 0), 4.5);
}

TEST(EmbeddingTest, GradientAddsUpRepeatedTokens) {
  auto layer = Make(6, 3, 5, {2, 4, 1});
  Tensor<double> ids({2, 4, 1});
  ids.flat() << 0, 5, 5, 2, 1, 2, 3, 5;
  // Token ids are not varied (they are data); the parameters are.
  absl::Status status = CheckLayerGradients(*layer, ids);
  EXPECT_TRUE(status.ok()) << status;
}

TEST(EmbeddingTest, BadIdsAndShapesAreErrors) {
  auto layer = Make(6, 3, 4, {2, 4, 1});
  Tensor<double> ids({1, 2, 1});
  ids.flat() << 2, 6;
  EXPECT_EQ(ErrorField(layer->CheckInputValues(ids)), "vocab_size");
  ids.flat() << 2, 1.5;
  EXPECT_FALSE(layer->CheckInputValues(ids).ok());
  EXPECT_FALSE(layer->OutputShape({1, 5, 1}).ok());  // longer than max_len
  EXPECT_FALSE(layer->OutputShape({1, 3, 2}).ok());
}

}  // namespace
}  // namespace attnlab
