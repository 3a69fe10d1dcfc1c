#include "plugins/layers/sparse_select/sparse_select_attention.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "attention/layer_testing.h"
#include "attention/mechanism_check.h"
#include "attention/plugin_registry.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Config = plugins::SparseSelectConfig;

template <typename T = double>
std::unique_ptr<SparseSelectAttention<T>> Make(const std::string& text, const Shape& input,
                                               uint64_t seed = 1) {
  return SetUpLayer<SparseSelectAttention<T>>(text, input, seed);
}

// Random tokens, and marks y = {1, 3} in the last column of every sample.
Tensor<double> Input(int batch, int seq_len, int dim) {
  Tensor<double> x({batch, seq_len, dim + 1});
  x.flat().setRandom();
  for (int b = 0; b < batch; ++b) {
    x.sample(b).col(dim).setZero();
    x.sample(b)(1, dim) = 1;
    x.sample(b)(3, dim) = 1;
  }
  return x;
}

TEST(SparseSelectTest, ForwardByHand) {
  // p0 = (1, 0), p1 = (0, 1), p2 = (1, 1); W = I; y = {0}: q = p0, scores p_i . q = (1, 0, 1).
  auto layer = Make(R"pb(encoding_dim: 2
                         positional: FIXED
                         w { init: IDENTITY }
                         positions { value: [ 1, 0, 0, 1, 1, 1 ] })pb",
                    {1, 3, 2});
  Tensor<double> x({1, 3, 2}), out;
  x.flat() << 2, 1, -1, 0, 5, 0;  // tokens 2, -1, 5; token 0 marked
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const double e = std::exp(1.0);
  EXPECT_EQ(out.shape(), (Shape{1, 1, 1}));
  EXPECT_NEAR(out.data()[0], (2 * e - 1 + 5 * e) / (2 * e + 1), 1e-14);
  EXPECT_NEAR(layer->attention().sample(0)(0, 1), 1 / (2 * e + 1), 1e-15);
}

TEST(SparseSelectTest, GradientChecksEveryPositionalKind) {
  for (const char* config :
       {"encoding_dim: 5 w { init: NORMAL std: 0.7 }",
        "encoding_dim: 5 positional: FIXED max_len: 9 w { init: NORMAL std: 0.7 }",
        "encoding_dim: 3 positional: LEARNED w { init: NORMAL std: 0.7 }",
        "encoding_dim: 3 positional: LEARNED distribution: SPHERE w { init: NORMAL std: 0.7 }",
        "encoding_dim: 4 positional: SINUSOIDAL max_len: 9 w { init: NORMAL std: 0.7 }",
        "encoding_dim: 5 distribution: RADEMACHER w { init: NORMAL std: 0.7 }"}) {
    // 3 token entries and the mark: the layer is set up for the input it gets (ASan's malloc
    // fill showed the gradient's never-written fourth column when it was set up for 3).
    auto layer = Make(config, {4, 6, 4}, 2);
    absl::Status status = CheckLayerGradients(*layer, Input(4, 6, 3));
    EXPECT_TRUE(status.ok()) << config << ": " << status;
  }
}

// The token loops run at a compile-time width for d = 1-8 and at a run-time one past it.
TEST(SparseSelectTest, GradientChecksAtTokenWidthsPastTheFixedOnes) {
  for (const char* config :
       {"encoding_dim: 5 positional: FIXED max_len: 9 w { init: NORMAL std: 0.7 }",
        "encoding_dim: 5 w { init: NORMAL std: 0.7 }"}) {
    for (int dim : {8, 11}) {
      auto layer = Make(config, {3, 7, dim + 1}, 2);
      absl::Status status = CheckLayerGradients(*layer, Input(3, 7, dim));
      EXPECT_TRUE(status.ok()) << config << " d = " << dim << ": " << status;
    }
  }
}

// Drawn encodings (here FIXED ones, drawn once by the code that draws STOCHASTIC ones per
// sample): mean 0 and covariance I / d_e for every distribution; unit norms for SPHERE and
// RADEMACHER, entries +-1/sqrt(d_e) for RADEMACHER, chi^2 norms for NORMAL.
TEST(SparseSelectTest, EncodingDistributionsHaveTheirMoments) {
  const int d = 64, n = 4000;
  for (const char* distribution : {"NORMAL", "SPHERE", "RADEMACHER"}) {
    auto layer = Make(absl::StrCat("encoding_dim: 64 positional: FIXED max_len: 4000 "
                                   "distribution: ",
                                   distribution),
                      {1, 10, 3});
    const Matrix<double>& p = layer->parameters()[1]->value;
    ASSERT_EQ(p.rows(), n);
    // Entries: mean 0 (standard error 1/sqrt(n d / d) = 1/sqrt(n d) * sqrt(d) / sqrt(d)).
    const double entries = double(n) * d;
    EXPECT_NEAR(p.mean(), 0, 5 / std::sqrt(entries * d)) << distribution;
    EXPECT_NEAR(p.squaredNorm() / entries, 1.0 / d, 0.05 / d) << distribution;
    // Two coordinates are uncorrelated: E[p_0 p_1] = 0 (standard error 1/(d sqrt(n))).
    EXPECT_NEAR(p.col(0).dot(p.col(1)) / n, 0, 5 / (d * std::sqrt(double(n)))) << distribution;
    const Eigen::VectorXd norms2 = p.rowwise().squaredNorm();
    if (std::string(distribution) == "NORMAL") {
      // ||p||^2 ~ chi^2_d / d: mean 1, variance 2/d.
      const double variance = (norms2.array() - 1).square().mean();
      EXPECT_NEAR(variance, 2.0 / d, 0.2 * 2.0 / d);
    } else {
      EXPECT_NEAR(norms2.minCoeff(), 1, 1e-12) << distribution;
      EXPECT_NEAR(norms2.maxCoeff(), 1, 1e-12) << distribution;
    }
    if (std::string(distribution) == "RADEMACHER") {
      EXPECT_NEAR(p.cwiseAbs().minCoeff(), 1 / std::sqrt(double(d)), 1e-15);
      EXPECT_NEAR(p.cwiseAbs().maxCoeff(), 1 / std::sqrt(double(d)), 1e-15);
    }
  }
}

// The stochastic path draws from the distribution too. Two tokens (1 and 0), y = {0}, W = I:
// f = a_0 = sigmoid(||p_0||^2 - p_0 . p_1). With d_e = 1, RADEMACHER encodings are +-1: the
// logit is 0 or 2, half the time each. With d_e = 2, SPHERE's logit is 1 - cos(theta), theta
// uniform: mean 1, variance 1/2 (NORMAL's: 1 from the norm, chi^2_2 / 2, and 1/2 from p_0 . p_1).
TEST(SparseSelectTest, StochasticEncodingsFollowTheDistribution) {
  auto logits = [](const std::string& config, int n) {
    auto layer = Make(config + " w { init: IDENTITY }", {n, 2, 2});
    Tensor<double> x({n, 2, 2}), out;
    for (int b = 0; b < n; ++b) x.sample(b) << 1, 1, 0, 0;
    ExecContext ctx(8);
    layer->Forward(x, &out, ctx);
    return Eigen::VectorXd((out.flat().array() / (1 - out.flat().array())).log());
  };
  const int n = 20000;
  const Eigen::VectorXd rademacher = logits("encoding_dim: 1 distribution: RADEMACHER", n);
  const int zeros = (rademacher.array().abs() < 1e-12).count();
  EXPECT_EQ(zeros + ((rademacher.array() - 2).abs() < 1e-12).count(), n);
  EXPECT_NEAR(zeros, n / 2, 5 * std::sqrt(n / 4.0));
  for (const auto& [distribution, variance] :
       {std::make_pair("SPHERE", 0.5), std::make_pair("NORMAL", 1.5)}) {
    const Eigen::VectorXd l =
        logits(absl::StrCat("encoding_dim: 2 distribution: ", distribution), n);
    EXPECT_NEAR(l.mean(), 1, 0.05) << distribution;
    EXPECT_NEAR((l.array() - l.mean()).square().mean(), variance, 0.1 * variance) << distribution;
  }
}

// p_t = (sin t, cos t) for d_e = 2 (scale sqrt(2 / 2) = 1); for d_e = 4 the second pair turns
// 100 times slower, and every encoding has norm 1.
TEST(SparseSelectTest, SinusoidalEncodingsByHand) {
  auto two = Make("encoding_dim: 2 positional: SINUSOIDAL max_len: 3", {1, 3, 2});
  const Matrix<double>& p = two->parameters()[1]->value;
  EXPECT_NEAR(p(0, 0), 0, 1e-15);
  EXPECT_NEAR(p(0, 1), 1, 1e-15);
  EXPECT_NEAR(p(2, 0), std::sin(2.0), 1e-15);
  EXPECT_NEAR(p(2, 1), std::cos(2.0), 1e-15);
  EXPECT_TRUE(two->parameters()[1]->frozen);
  auto four = Make("encoding_dim: 4 positional: SINUSOIDAL max_len: 5", {1, 5, 2});
  const Matrix<double>& q = four->parameters()[1]->value;
  EXPECT_NEAR(q(3, 2), std::sqrt(0.5) * std::sin(3 / 100.0), 1e-15);
  EXPECT_NEAR(q(3, 3), std::sqrt(0.5) * std::cos(3 / 100.0), 1e-15);
  EXPECT_NEAR(q.rowwise().norm().minCoeff(), 1, 1e-15);
}

TEST(SparseSelectTest, StochasticEncodingsAreFreshPerSampleAndCall) {
  auto layer = Make("encoding_dim: 170 w { init: IDENTITY }", {2, 200, 3});
  Tensor<double> x = Input(2, 200, 2), out1, out2;
  for (int b = 0; b < 2; ++b) x.sample(b).leftCols(2) = x.sample(0).leftCols(2);
  ExecContext ctx(4);
  layer->Forward(x, &out1, ctx);
  EXPECT_NE(out1.sample(0), out1.sample(1));  // same tokens, different encodings
  layer->Forward(x, &out2, ctx);
  EXPECT_NE(out1.flat(), out2.flat());  // a new draw every call
  ctx.Reseed(4);
  layer->Forward(x, &out2, ctx);
  EXPECT_EQ(out1.flat(), out2.flat());  // ... decided by the context's seed
}

TEST(SparseSelectTest, ResultsDoNotDependOnTheThreadCount) {
  auto layer = Make<float>("encoding_dim: 16 w { init: NORMAL std: 0.5 }", {64, 30, 5});
  Tensor<float> x({64, 30, 5}), out1, out2, grad_out({64, 1, 4}), grad1, grad2;
  x.flat().setRandom();
  grad_out.flat().setRandom();
  ExecContext one(9, 1), two(9, 2);
  layer->Forward(x, &out1, one);
  layer->Backward(grad_out, &grad1, one);
  const Matrix<float> w_grad1 = layer->parameters()[0]->grad;
  layer->Forward(x, &out2, two);
  layer->Backward(grad_out, &grad2, two);
  EXPECT_EQ(out1.flat(), out2.flat());
  EXPECT_EQ(grad1.flat(), grad2.flat());
  EXPECT_EQ(w_grad1, layer->parameters()[0]->grad);
}

// PROJECTED draws fewer numbers but must give outputs and weight gradients the same joint
// distribution as FULL, under every mechanism the layer takes. One sample: every call draws
// its own encodings, so N Forward/Backward passes give N independent draws of the sample's
// output f and of dW.
TEST(SparseSelectTest, ProjectedSamplerMatchesFullInDistributionUnderEveryMechanism) {
  const int n = 20000, seq_len = 12, dim = 2, enc = 4;
  Tensor<double> x = Input(1, seq_len, dim), grad_out({1, 1, dim});
  grad_out.flat() << 0.7, -1.3;
  // Per draw: f (2 entries) and dW (16); the first, second and fourth moments of each.
  struct Moments {
    Eigen::VectorXd m1 = Eigen::VectorXd::Zero(18), m2 = m1, m4 = m1;
  };
  int checked = 0;
  for (const std::string& mechanism : MechanismRegistry<double>().Names()) {
    absl::StatusOr<google::protobuf::Any> mechanism_config = MechanismConfig(mechanism, "");
    ASSERT_TRUE(mechanism_config.ok()) << mechanism_config.status();
    // The layer for `sampler`, or null when the layer does not take the mechanism.
    auto make = [&](const std::string& sampler) -> std::unique_ptr<Layer<double>> {
      auto config = WithMechanism("sparse_select",
                                  "encoding_dim: 4 w { init: NORMAL std: 0.8 } sampler: " + sampler,
                                  mechanism, *mechanism_config);
      EXPECT_TRUE(config.ok()) << config.status();
      auto layer = LayerRegistry<double>().Create("sparse_select", *config);
      if (!layer.ok()) return nullptr;
      ExecContext setup(3);
      if (!(*layer)->Setup({1, seq_len, dim + 1}, setup).ok()) return nullptr;
      return std::move(*layer);
    };
    auto moments = [&](Layer<double>& layer) {
      Moments m;
      ExecContext ctx(11);
      Tensor<double> out, grad_in;
      for (int i = 0; i < n; ++i) {
        layer.Forward(x, &out, ctx);
        layer.Backward(grad_out, &grad_in, ctx);
        Eigen::VectorXd draw(18);
        draw << out.data()[0], out.data()[1],
            Eigen::Map<const Eigen::VectorXd>(layer.parameters()[0]->grad.data(), enc * enc);
        m.m1 += draw / n;
        m.m2 += draw.cwiseAbs2() / n;
        m.m4 += draw.cwiseAbs2().cwiseAbs2() / n;
      }
      return m;
    };
    std::unique_ptr<Layer<double>> full_layer = make("FULL"), proj_layer = make("PROJECTED");
    if (full_layer == nullptr || proj_layer == nullptr) continue;  // not one query per sample
    ++checked;
    const Moments full = moments(*full_layer), proj = moments(*proj_layer);
    for (int k = 0; k < 18; ++k) {
      // Standard errors of the difference of two independent estimates, from the data.
      const double var = full.m2[k] - full.m1[k] * full.m1[k];
      const double var_of_square = full.m4[k] - full.m2[k] * full.m2[k];
      EXPECT_NEAR(proj.m1[k], full.m1[k], 5 * std::sqrt(2 * var / n) + 1e-12)
          << mechanism << ", entry " << k;
      EXPECT_NEAR(proj.m2[k], full.m2[k], 5 * std::sqrt(2 * var_of_square / n) + 1e-12)
          << mechanism << ", entry " << k;
    }
  }
  EXPECT_GE(checked, 5);  // softmax, sigmoid, relu, sparsemax, ... take one query per sample
}

TEST(SparseSelectTest, ProjectedSamplerInputGradientIsExact) {
  auto layer = Make("encoding_dim: 5 sampler: PROJECTED w { init: NORMAL std: 0.7 }", {3, 6, 3});
  // dL/dx = a g^T does not involve the sampled gradient noise, so finite differences apply to
  // the inputs; W's gradient is a draw (checked in distribution above).
  Tensor<double> x = Input(3, 6, 2), out, grad_in;
  ExecContext ctx(5);
  layer->Forward(x, &out, ctx);
  Tensor<double> grad_out(out.shape());
  grad_out.flat().setRandom();
  layer->Backward(grad_out, &grad_in, ctx);
  for (int i : {0, 4, 7, 13}) {
    if (i % 3 == 2) continue;  // the marks column
    auto loss = [&] {
      ctx.Reseed(5);
      layer->Forward(x, &out, ctx);
      return out.flat().cwiseProduct(grad_out.flat()).sum();
    };
    const double saved = x.data()[i];
    x.data()[i] = saved + 1e-6;
    const double plus = loss();
    x.data()[i] = saved - 1e-6;
    const double minus = loss();
    x.data()[i] = saved;
    EXPECT_NEAR(grad_in.data()[i], (plus - minus) / 2e-6, 1e-6) << i;
  }
}

TEST(SparseSelectTest, LongerSequencesNeedEncodings) {
  auto fixed = Make("encoding_dim: 4 positional: FIXED max_len: 10", {2, 6, 3});
  EXPECT_TRUE(fixed->OutputShape({5, 10, 3}).ok());
  EXPECT_FALSE(fixed->OutputShape({5, 11, 3}).ok());
  EXPECT_FALSE(fixed->OutputShape({5, 6, 4}).ok());
  auto spe = Make("encoding_dim: 4", {2, 6, 3});
  EXPECT_EQ(*spe->OutputShape({5, 1000, 3}), (Shape{5, 1, 2}));
}

TEST(SparseSelectTest, ConfigErrorsNameTheField) {
  auto error = [](const std::string& text) {
    Config config;
    google::protobuf::TextFormat::ParseFromString(text, &config);
    return ErrorField(SparseSelectAttention<double>::Create(config).status());
  };
  EXPECT_EQ(error(""), "encoding_dim");
  EXPECT_EQ(error("encoding_dim: 3 max_len: 5"), "max_len");
  EXPECT_EQ(error("encoding_dim: 3 positions { init: ZEROS }"), "positions");
  EXPECT_EQ(error("encoding_dim: 3 positional: LEARNED sampler: PROJECTED"), "sampler");
  EXPECT_EQ(error("encoding_dim: 4 sampler: PROJECTED distribution: SPHERE"), "distribution");
  EXPECT_EQ(error("encoding_dim: 4 positional: SINUSOIDAL distribution: SPHERE"), "distribution");
  EXPECT_EQ(error("encoding_dim: 3 positional: SINUSOIDAL"), "encoding_dim");
  EXPECT_EQ(error("encoding_dim: 4 positional: SINUSOIDAL positions { init: ZEROS }"), "positions");
  EXPECT_EQ(error("encoding_dim: 4 positional: FIXED distribution: RADEMACHER "
                  "positions { init: ZEROS }"),
            "distribution");
  Config config;
  config.set_encoding_dim(3);
  config.set_positional(Config::FIXED);
  config.set_max_len(4);
  auto layer = SparseSelectAttention<double>::Create(config);
  ExecContext ctx(1);
  EXPECT_EQ(ErrorField((*layer)->Setup({1, 6, 3}, ctx).status()), "max_len");
}

}  // namespace
}  // namespace attnlab
