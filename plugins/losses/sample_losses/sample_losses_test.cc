#include <cmath>

#include "attention/gradient_check.h"
#include "attention/plugin_registry.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<Loss<double>> Make(const std::string& name) {
  auto loss = LossRegistry<double>().Create(name, google::protobuf::Any());
  EXPECT_TRUE(loss.ok()) << loss.status();
  return std::move(*loss);
}

Tensor<double> Column(std::initializer_list<double> values) {
  Tensor<double> t({static_cast<int>(values.size()), 1, 1});
  int i = 0;
  for (double v : values) t.data()[i++] = v;
  return t;
}

TEST(LossesTest, MarginLossesByHand) {
  const Tensor<double> f = Column({0, 2}), y = Column({1, -1});  // margins 0 and -2
  Tensor<double> grad;
  ExecContext ctx(1);
  EXPECT_NEAR(Make("logistic")->Compute(f, y, &grad, ctx),
              (std::log(2.0) + std::log1p(std::exp(2.0))) / 2, 1e-14);
  EXPECT_NEAR(grad.data()[0], -0.5 / 2, 1e-14);  // -sigmoid(0) * y / n
  EXPECT_NEAR(Make("correlation")->Compute(f, y, &grad, ctx), (0 + 2) / 2.0, 1e-15);
  EXPECT_NEAR(grad.data()[1], 1 / 2.0, 1e-15);  // d(-y f)/df = -y = 1, over n = 2
  EXPECT_NEAR(Make("exponential")->Compute(f, y, &grad, ctx), (1 + std::exp(2.0)) / 2, 1e-14);
  EXPECT_NEAR(Make("squared")->Compute(f, y, &grad, ctx), (0.5 * 1 + 0.5 * 9) / 2, 1e-15);
}

TEST(LossesTest, LogisticIsStableAtHugeMargins) {
  Tensor<double> grad;
  ExecContext ctx(1);
  EXPECT_NEAR(Make("logistic")->Compute(Column({-1000}), Column({1}), &grad, ctx), 1000, 1e-9);
  EXPECT_NEAR(grad.data()[0], -1, 1e-15);
  const double tiny = Make("logistic")->Compute(Column({700}), Column({1}), &grad, ctx);
  EXPECT_GT(tiny, 0);  // exp(-700) ~ 1e-304 survives via log1p; log(1 + x) would round it to 0
  EXPECT_NEAR(tiny / std::exp(-700.0), 1, 1e-12);
}

TEST(LossesTest, GradientsMatchFiniteDifferences) {
  const Tensor<double> f = Column({0.3, -1.2, 2.0}), y = Column({1, -1, -1});
  for (const std::string name : {"logistic", "correlation", "exponential", "squared"}) {
    EXPECT_TRUE(CheckLossGradient(*Make(name), f, y).ok()) << name;
  }
  Tensor<double> pred({2, 3, 2}), target({2, 3, 2});
  pred.flat().setRandom();
  target.flat().setRandom();
  EXPECT_TRUE(CheckLossGradient(*Make("squared"), pred, target).ok());
}

TEST(LossesTest, CrossEntropyByHand) {
  // Logits (0, ln 2, 0) with class 1: p = (1/4, 1/2, 1/4), loss ln 2, grad (p - e_1) / rows.
  // Second row: logits (1000, 0, 0) with class 0: loss ~ 0 without overflow.
  Tensor<double> logits({2, 1, 3}), ids({2, 1, 1}), grad;
  logits.flat() << 0, std::log(2.0), 0, 1000, 0, 0;
  ids.flat() << 1, 0;
  auto loss = Make("cross_entropy");
  ExecContext ctx(1);
  ASSERT_TRUE(loss->Setup(logits.shape(), ids.shape(), ctx).ok());
  EXPECT_NEAR(loss->Compute(logits, ids, &grad, ctx), std::log(2.0) / 2, 1e-15);
  EXPECT_NEAR(grad.flat()(0, 0), 0.25 / 2, 1e-15);
  EXPECT_NEAR(grad.flat()(0, 1), -0.5 / 2, 1e-15);
  EXPECT_NEAR(grad.flat()(1, 0), 0, 1e-15);
}

TEST(LossesTest, CrossEntropyGradientAndTargetChecks) {
  Tensor<double> logits({3, 2, 4}), ids({3, 2, 1});
  logits.flat().setRandom();
  ids.flat() << 0, 3, 1, 2, 2, 0;
  auto loss = Make("cross_entropy");
  ExecContext ctx(1);
  ASSERT_TRUE(loss->Setup(logits.shape(), ids.shape(), ctx).ok());
  EXPECT_TRUE(loss->CheckTargetValues(ids).ok());
  EXPECT_TRUE(CheckLossGradient(*loss, logits, ids).ok());
  ids.flat()(4) = 4;
  const absl::Status bad = loss->CheckTargetValues(ids);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("class 4, outside 0..3"), std::string::npos) << bad;
  EXPECT_FALSE(loss->Check({3, 2, 4}, {3, 1, 1}).ok());
  EXPECT_FALSE(loss->Check({3, 1, 1}, {3, 1, 1}).ok());
}

TEST(LossesTest, ShapeChecks) {
  EXPECT_FALSE(Make("logistic")->Check({4, 1, 2}, {4, 1, 1}).ok());
  EXPECT_TRUE(Make("logistic")->Check({4, 1, 1}, {4, 1, 1}).ok());
  EXPECT_FALSE(Make("squared")->Check({4, 1, 2}, {4, 2, 1}).ok());
}

}  // namespace
}  // namespace attnlab
