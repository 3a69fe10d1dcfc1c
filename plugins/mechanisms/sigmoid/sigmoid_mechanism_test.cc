#include "plugins/mechanisms/sigmoid/sigmoid_mechanism.h"

#include <cmath>

#include "attention/base/field_error.h"
#include "attention/mechanism_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

std::unique_ptr<SigmoidMechanism<double>> Make(std::optional<double> bias) {
  plugins::SigmoidConfig config;
  if (bias) config.set_bias(*bias);
  auto made = SigmoidMechanism<double>::Create(config);
  EXPECT_TRUE(made.ok()) << made.status();
  return std::move(*made);
}

TEST(SigmoidMechanismTest, OneHeadByHand) {
  // q = 1, keys (1, 2), values (1, 2), scale 1.
  Mat q(1, 1), k(2, 1), v(2, 1), a(1, 2), h(1, 1);
  q << 1;
  k << 1, 2;
  v << 1, 2;
  auto zero_bias = Make(0.0);
  ASSERT_TRUE(zero_bias->Setup(Heads(1, 1)).ok());
  zero_bias->Prepare(1);
  zero_bias->Forward(0, q, k, v, 1.0, a, h);
  EXPECT_NEAR(a(0, 0), Sigmoid(1), 1e-15);
  EXPECT_NEAR(a(0, 1), Sigmoid(2), 1e-15);
  EXPECT_NEAR(h(0, 0), Sigmoid(1) + 2 * Sigmoid(2), 1e-15);

  auto default_bias = Make(std::nullopt);  // -log 2 for two keys
  ASSERT_TRUE(default_bias->Setup(Heads(1, 1)).ok());
  default_bias->Prepare(1);
  default_bias->Forward(0, q, k, v, 1.0, a, h);
  EXPECT_NEAR(a(0, 1), Sigmoid(2 - std::log(2.0)), 1e-15);
}

TEST(SigmoidMechanismTest, CausalMasksTheFuture) {
  auto sigmoid = Make(0.5);
  ASSERT_TRUE(sigmoid->Setup(Heads(1, 1, /*causal=*/true)).ok());
  Mat x(2, 1), v(2, 1), a(2, 2), h(2, 1);
  x << 1, 2;
  v << 1, 2;
  sigmoid->Prepare(1);
  sigmoid->Forward(0, x, x, v, 1.0, a, h);
  EXPECT_EQ(a(0, 1), 0.0);
  EXPECT_NEAR(h(0, 0), Sigmoid(1.5), 1e-15);
  EXPECT_NEAR(h(1, 0), Sigmoid(2.5) + 2 * Sigmoid(4.5), 1e-15);
}

TEST(SigmoidMechanismTest, GradientsInEveryLayer) {
  for (const char* config : {"", "bias: 1"}) {
    absl::Status status = CheckMechanismInEveryLayer("sigmoid", config);
    EXPECT_TRUE(status.ok()) << config << ": " << status;
  }
}

TEST(SigmoidMechanismTest, NonFiniteBiasIsAFieldError) {
  plugins::SigmoidConfig config;
  config.set_bias(INFINITY);
  EXPECT_EQ(ErrorField(SigmoidMechanism<double>::Create(config).status()), "bias");
}

}  // namespace
}  // namespace attnlab
