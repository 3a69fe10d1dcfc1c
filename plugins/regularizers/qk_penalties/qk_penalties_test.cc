#include <cmath>

#include "attention/plugin_registry.h"
#include "gtest/gtest.h"
#include "plugins/regularizers/qk_penalties/qk_penalties.pb.h"

namespace attnlab {
namespace {

std::unique_ptr<Regularizer<double>> Make(const std::string& name, double lambda) {
  plugins::RegularizerConfig config;
  config.set_lambda(lambda);
  google::protobuf::Any any;
  any.PackFrom(config);
  auto regularizer = RegularizerRegistry<double>().Create(name, any);
  EXPECT_TRUE(regularizer.ok()) << regularizer.status();
  return std::move(*regularizer);
}

std::unique_ptr<Regularizer<double>> MakeAnchored(double lambda, double mean) {
  plugins::AnchoredLocaterConfig config;
  config.set_lambda(lambda);
  config.set_mean(mean);
  google::protobuf::Any any;
  any.PackFrom(config);
  auto regularizer = RegularizerRegistry<double>().Create("locater_anchored", any);
  EXPECT_TRUE(regularizer.ok()) << regularizer.status();
  return std::move(*regularizer);
}

TEST(RegularizersTest, ValuesByHand) {
  Matrix<double> w(2, 2), grad;
  w << 3, 1, 2, 1;  // trace 4, mean 2; W - 2I = [[1, 1], [2, -1]]
  EXPECT_NEAR(Make("locater", 0.5)->Penalty(w, &grad), 0.5 * (1 + 1 + 4 + 1), 1e-15);
  EXPECT_NEAR(Make("frobenius", 2)->Penalty(w, &grad), 2 * (9 + 1 + 4 + 1), 1e-15);
  // tr(W^2) = 9 + 2 + 2 + 1 = 14: 14/2 - 2^2 = 3
  EXPECT_NEAR(Make("trace_variance", 1)->Penalty(w, &grad), 3, 1e-15);
  // A multiple of I has no LocAteR penalty at all, whatever its scale.
  const Matrix<double> identity = 5 * Matrix<double>::Identity(3, 3);
  EXPECT_EQ(Make("locater", 1)->Penalty(identity, &grad), 0.0);
  EXPECT_EQ(Make("locater_scale_free", 1)->Penalty(identity, &grad), 0.0);
  // ||W - 2I||^2 = 7 over ||W||^2 = 15, whatever W's scale.
  EXPECT_NEAR(Make("locater_scale_free", 0.5)->Penalty(w, &grad), 0.5 * 7 / 15, 1e-15);
  EXPECT_NEAR(Make("locater_scale_free", 0.5)->Penalty(0.01 * w, &grad), 0.5 * 7 / 15, 1e-15);
  // Scale-free: the gradient is orthogonal to W (no step along it shrinks or grows W).
  EXPECT_NEAR(grad.cwiseProduct(0.01 * w).sum(), 0, 1e-12);
  EXPECT_EQ(Make("locater_scale_free", 1)->Penalty(Matrix<double>::Zero(2, 2), &grad), 0.0);
  EXPECT_TRUE(grad.isZero());
}

TEST(RegularizersTest, AnchoredLocaterByHand) {
  Matrix<double> w(2, 2), grad;
  w << 3, 1, 2, 1;  // mean 2; W - 1I = [[2, 1], [2, 0]]: 9 = spread 7 + d (2 - 1)^2
  EXPECT_NEAR(MakeAnchored(0.5, 1)->Penalty(w, &grad), 0.5 * 9, 1e-15);
  Matrix<double> expected(2, 2);
  expected << 2, 1, 2, 0;
  EXPECT_TRUE(grad.isApprox(expected));  // 2 lambda (W - 1I)
  // Anchored at the mean, it is LocAteR, and its gradient leaves the trace alone.
  EXPECT_NEAR(MakeAnchored(0.5, 2)->Penalty(w, &grad), Make("locater", 0.5)->Penalty(w, &grad),
              1e-15);
  EXPECT_NEAR(grad.trace(), 0, 1e-15);
  // Unlike locater, a multiple of I pays for its distance from the anchor: 3 (5 - 2)^2.
  EXPECT_NEAR(MakeAnchored(1, 2)->Penalty(5 * Matrix<double>::Identity(3, 3), &grad), 27, 1e-12);
}

TEST(RegularizersTest, GradientsMatchFiniteDifferences) {
  for (const char* name :
       {"locater", "locater_scale_free", "locater_anchored", "frobenius", "trace_variance"}) {
    const auto regularizer =
        std::string(name) == "locater_anchored" ? MakeAnchored(0.3, 0.7) : Make(name, 0.3);
    Matrix<double> w = Matrix<double>::Random(4, 4), grad, scratch;
    regularizer->Penalty(w, &grad);
    for (Eigen::Index i = 0; i < w.size(); ++i) {
      const double saved = w.data()[i];
      w.data()[i] = saved + 1e-6;
      const double plus = regularizer->Penalty(w, &scratch);
      w.data()[i] = saved - 1e-6;
      const double minus = regularizer->Penalty(w, &scratch);
      w.data()[i] = saved;
      EXPECT_NEAR(grad.data()[i], (plus - minus) / 2e-6, 1e-8) << name << " entry " << i;
    }
  }
}

TEST(RegularizersTest, NegativeLambdaIsAnError) {
  plugins::RegularizerConfig config;
  config.set_lambda(-1);
  google::protobuf::Any any;
  any.PackFrom(config);
  EXPECT_FALSE(RegularizerRegistry<double>().Create("locater", any).ok());
}

TEST(RegularizersTest, AnchoredLocaterNeedsAFiniteMean) {
  plugins::AnchoredLocaterConfig config;
  config.set_lambda(1);
  google::protobuf::Any any;
  any.PackFrom(config);
  const auto missing = RegularizerRegistry<double>().Create("locater_anchored", any);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("mean"), std::string::npos) << missing.status();
  config.set_mean(std::nan(""));
  any.PackFrom(config);
  EXPECT_FALSE(RegularizerRegistry<double>().Create("locater_anchored", any).ok());
}

}  // namespace
}  // namespace attnlab
