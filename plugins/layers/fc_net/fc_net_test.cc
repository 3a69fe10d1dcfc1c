#include "plugins/layers/fc_net/fc_net.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "attention/layer_testing.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<FcNet<double>> Make(const std::string& text, const Shape& input) {
  return SetUpLayer<FcNet<double>>(text, input);
}

TEST(FcNetTest, ForwardByHand) {
  // Input [1, 2, 1] = (1, -2); hidden ReLU layer of width 2, then one output.
  auto net = Make("output_dim: 1 hidden: [ 2 ]", {1, 2, 1});
  std::vector<Parameter<double>*> p = net->parameters();  // w0 b0 w1 b1
  p[0]->value << 1, -1, 1, 1;                             // h = relu(x W0 + b0)
  p[1]->value << 0.5, 0;
  p[2]->value << 2, 3;
  p[3]->value << -1;
  Tensor<double> x({1, 2, 1}), out;
  x.flat() << 1, -2;
  ExecContext ctx(1);
  net->Forward(x, &out, ctx);
  // pre = (1 - 2 + 0.5, -1 - 2) = (-0.5, -3) -> relu (0, 0) -> y = -1.
  EXPECT_EQ(out.data()[0], -1.0);
  x.flat() << 3, 1;  // pre = (4.5, -2) -> (4.5, 0) -> y = 9 - 1
  net->Forward(x, &out, ctx);
  EXPECT_EQ(out.data()[0], 8.0);
}

TEST(FcNetTest, GradientChecksEveryActivation) {
  for (const char* config :
       {"output_dim: 3 hidden: [ 6, 4 ]", "output_dim: 2 hidden: [ 5 ] activation: GELU",
        "output_dim: 2 hidden: [ 5 ] activation: TANH", "output_dim: 2"}) {
    auto net = Make(config, {3, 4, 3});
    // Random biases too: with zero biases a sample whose first layer is all negative puts the
    // next ReLU exactly on its kink, where finite differences see 1/2.
    for (Parameter<double>* p : net->parameters()) p->value.setRandom();
    Tensor<double> x({3, 4, 3});
    x.flat().setRandom();
    absl::Status status = CheckLayerGradients(*net, x);
    EXPECT_TRUE(status.ok()) << config << ": " << status;
  }
}

// GELU in float goes through SIMD packets (40 units: whole packets and a tail): y = sum_j
// gelu(x w_j) and dy/dx = sum_j gelu'(x w_j) w_j against std::erf and std::exp in double.
TEST(FcNetTest, FloatGeluMatchesTheScalarFormula) {
  plugins::FcNetConfig config;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "output_dim: 1 hidden: [ 40 ] activation: GELU per_token: true", &config));
  auto net = FcNet<float>::Create(config);
  ASSERT_TRUE(net.ok());
  ExecContext ctx(1);
  ASSERT_TRUE((*net)->Setup({1, 3, 1}, ctx).ok());
  std::vector<Parameter<float>*> p = (*net)->parameters();  // w0 b0 w1 b1
  for (int j = 0; j < 40; ++j) p[0]->value(0, j) = -2.0f + 0.1f * j;
  p[1]->value.setZero();
  p[2]->value.setOnes();
  p[3]->value.setZero();
  Tensor<float> x({1, 3, 1}), out, grad_out({1, 3, 1}), grad_in;
  x.flat() << 0.7f, -1.3f, 2.1f;
  grad_out.flat().setOnes();
  (*net)->Forward(x, &out, ctx);
  (*net)->Backward(grad_out, &grad_in, ctx);
  for (int t = 0; t < 3; ++t) {
    double y = 0, dy = 0;
    for (int j = 0; j < 40; ++j) {
      const double w = p[0]->value(0, j), v = double(x.data()[t]) * w;
      const double cdf = 0.5 * (1 + std::erf(v / std::sqrt(2.0)));
      y += v * cdf;
      dy += (cdf + v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI)) * w;
    }
    EXPECT_NEAR(out.data()[t], y, 1e-5 * (1 + std::abs(y))) << t;
    EXPECT_NEAR(grad_in.data()[t], dy, 1e-5 * (1 + std::abs(dy))) << t;
  }
}

TEST(FcNetTest, InputLengthIsFixed) {
  auto net = Make("output_dim: 5 hidden: [ 8 ]", {2, 10, 6});
  EXPECT_EQ(*net->OutputShape({7, 10, 6}), (Shape{7, 1, 5}));
  EXPECT_FALSE(net->OutputShape({7, 20, 6}).ok());
  // 60 inputs * 8 + 8 + 8 * 5 + 5 parameters.
  int count = 0;
  for (Parameter<double>* p : net->parameters()) count += p->value.size();
  EXPECT_EQ(count, 60 * 8 + 8 + 8 * 5 + 5);
}

// He-normal: weights of variance 2 / fan_in, biases 0. torch.nn.Linear's: weights and biases
// within +-1/sqrt(fan_in), of variance 1 / (3 fan_in). 400 x 300 draws: the sample variance is
// within 1% of its expectation (its relative sd is 0.4% for the normal, 0.2% for the uniform).
TEST(FcNetTest, InitsHaveTheirDistributions) {
  for (const char* init : {"HE_NORMAL", "TORCH_LINEAR"}) {
    auto net = Make(absl::StrCat("output_dim: 1 hidden: [ 300 ] init: ", init), {1, 400, 1});
    const Matrix<double>& w = net->parameters()[0]->value;
    const Matrix<double>& b = net->parameters()[1]->value;
    const double fan_in = 400, variance = w.squaredNorm() / double(w.size());
    if (std::string(init) == "HE_NORMAL") {
      EXPECT_NEAR(variance, 2 / fan_in, 0.01 * 2 / fan_in);
      EXPECT_EQ(b.squaredNorm(), 0.0);
    } else {
      EXPECT_NEAR(variance, 1 / (3 * fan_in), 0.01 / (3 * fan_in));
      const double bound = 1 / std::sqrt(fan_in);
      EXPECT_LE(w.cwiseAbs().maxCoeff(), bound);
      EXPECT_LE(b.cwiseAbs().maxCoeff(), bound);
      EXPECT_GT(b.cwiseAbs().maxCoeff(), 0.9 * bound);  // 300 draws reach the bound's tail
    }
  }
}

TEST(FcNetTest, ConfigErrorsNameTheField) {
  plugins::FcNetConfig config;
  EXPECT_EQ(ErrorField(FcNet<double>::Create(config).status()), "output_dim");
  config.set_output_dim(1);
  config.add_hidden(0);
  EXPECT_EQ(ErrorField(FcNet<double>::Create(config).status()), "hidden");
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

TEST(FcNetTest, ResultsDoNotDependOnTheThreadCount) {
  plugins::FcNetConfig config;
  config.set_output_dim(5);
  config.add_hidden(300);
  auto net = std::move(*FcNet<float>::Create(config));
  ExecContext setup(1);
  ASSERT_TRUE(net->Setup({64, 20, 6}, setup).ok());
  Tensor<float> x({64, 20, 6}), g({64, 1, 5}), out1, out2, gin1, gin2;
  x.flat().setRandom();
  g.flat().setRandom();
  ExecContext one(1, 1), two(1, 2);
  net->Forward(x, &out1, one);
  net->Backward(g, &gin1, one);
  const Matrix<float> w0 = net->parameters()[0]->grad;
  net->Forward(x, &out2, two);
  net->Backward(g, &gin2, two);
  EXPECT_EQ(out1.flat(), out2.flat());
  EXPECT_EQ(gin1.flat(), gin2.flat());
  EXPECT_EQ(w0, net->parameters()[0]->grad);
}

}  // namespace
}  // namespace attnlab
