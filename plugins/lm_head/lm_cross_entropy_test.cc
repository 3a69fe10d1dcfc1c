#include "plugins/lm_head/lm_cross_entropy.h"

#include <cmath>

#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T = double>
std::unique_ptr<LmCrossEntropy<T>> Make(const plugins::LmHeadConfig& config, const Shape& pred) {
  auto loss = std::move(*LmCrossEntropy<T>::Create(config));
  ExecContext ctx(1);
  EXPECT_TRUE(loss->Setup(pred, {pred.batch, pred.rows, 1}, ctx).ok());
  return loss;
}

TEST(LmCrossEntropyTest, ByHand) {
  plugins::LmHeadConfig config;
  config.set_vocab_size(3);
  auto loss = Make(config, {1, 2, 2});
  loss->parameters()[0]->value << 1, 0, 0, 0, 1, 0;  // logits = (h1, h2, 0)
  Tensor<double> h({1, 2, 2}), y({1, 2, 1});
  h.flat() << 2, 0, 0, 1;
  y.flat() << 0, 2;
  ExecContext ctx(1);
  const double l0 = std::log(std::exp(2.0) + 2) - 2;        // token 0: logits (2, 0, 0), label 0
  const double l1 = std::log(1 + std::exp(1.0) + 1) - 0;    // token 1: logits (0, 1, 0), label 2
  EXPECT_NEAR(loss->Compute(h, y, nullptr, ctx), (l0 + l1) / 2, 1e-14);
}

TEST(LmCrossEntropyTest, GradientCheckAcrossChunks) {
  for (int chunk : {0, 1, 3}) {
    plugins::LmHeadConfig config;
    config.set_vocab_size(7);
    config.set_bias(true);
    config.set_chunk_tokens(chunk);
    auto loss = Make(config, {2, 3, 4});
    loss->parameters()[1]->value.setRandom();
    Tensor<double> h({2, 3, 4}), y({2, 3, 1});
    h.flat().setRandom();
    y.flat() << 0, 6, 3, 3, 1, 5;
    absl::Status status = CheckLossGradient(*loss, h, y);
    EXPECT_TRUE(status.ok()) << "chunk " << chunk << ": " << status;
  }
}

TEST(LmCrossEntropyTest, StableForHugeLogitsInFloat) {
  plugins::LmHeadConfig config;
  config.set_vocab_size(4);
  auto loss = Make<float>(config, {1, 1, 1});
  loss->parameters()[0]->value << 1000, -1000, 0, 500;
  Tensor<float> h({1, 1, 1}), y({1, 1, 1}), grad;
  h.flat() << 1;
  y.flat() << 3;
  ExecContext ctx(1);
  EXPECT_NEAR(loss->Compute(h, y, &grad, ctx), 500.0f, 1e-3);  // log-sum-exp, not exp overflow
  EXPECT_TRUE(grad.flat().allFinite());
}

TEST(LmCrossEntropyTest, OutOfRangeIdsAreCaught) {
  plugins::LmHeadConfig config;
  config.set_vocab_size(4);
  auto loss = Make(config, {1, 2, 3});
  Tensor<double> y({1, 2, 1});
  y.flat() << 1, 4;
  EXPECT_EQ(ErrorField(loss->CheckTargetValues(y)), "vocab_size");
  EXPECT_FALSE(loss->Check({1, 2, 3}, {1, 3, 1}).ok());
}

}  // namespace
}  // namespace attnlab
