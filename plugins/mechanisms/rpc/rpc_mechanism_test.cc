#include "plugins/mechanisms/rpc/rpc_mechanism.h"

#include <cmath>

#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "attention/layer_testing.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "plugins/layers/attention/multi_head_attention.h"
#include "plugins/metrics/pap_agreement/pap_reference.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

// TARGETS 4a's algorithm transcribed line by line, sharing no code with the plugin.
Mat DirectPap(const Mat& k, const Mat& v, int iterations, double lambda, double c_width,
              bool over_mu) {
  return attnlab::DirectPap(k, v, iterations, lambda, c_width, over_mu,
                            1 / std::sqrt(double(k.cols())))
      .output;
}

TEST(RpcMechanismTest, PapMatchesADirectTranscription) {
  for (bool over_mu : {false, true}) {
    for (int iterations : {1, 2, 4}) {
      const Mat k = Mat::Random(7, 3), v = Mat::Random(7, 3);
      PapTrace<double> trace;
      PapScratch<double> scratch;
      Mat a(7, 7), ours(7, 3);
      // lambda 0.05 so that both conventions leave some entries in S.
      PrincipalAttentionPursuit<double>(k, v, iterations, 0.05, over_mu, 8.0, 1 / std::sqrt(3.0),
                                        &trace, &scratch, a, ours);
      const Mat direct = DirectPap(k, v, iterations, 0.05, 8.0, over_mu);
      EXPECT_LT((ours - direct).cwiseAbs().maxCoeff(), 1e-12) << iterations << " " << over_mu;
      EXPECT_GT(trace.s.back().cwiseAbs().maxCoeff(), 0.0);  // the shrinkage did something
    }
  }
}

// d<G, PAP(K, V)> against finite differences, through the unrolled iterations and mu.
TEST(RpcMechanismTest, PapGradientMatchesFiniteDifferences) {
  for (bool over_mu : {false, true}) {
    Mat k = Mat::Random(6, 3), v = Mat::Random(6, 3);
    const Mat g = Mat::Random(6, 3);
    PapTrace<double> trace;
    PapScratch<double> scratch;
    const double scale = 1 / std::sqrt(3.0);
    Mat a(6, 6), h(6, 3);
    PrincipalAttentionPursuit<double>(k, v, 3, 0.05, over_mu, 8.0, scale, &trace, &scratch, a, h);
    Mat dk = Mat::Zero(6, 3), dv = Mat::Zero(6, 3);
    PrincipalAttentionPursuitBackward<double>(k, v, 0.05, over_mu, 8.0, scale, trace, a, g,
                                              &scratch, dk, dv);
    auto value = [&] {
      PapTrace<double> other;
      Mat other_a(6, 6), other_h(6, 3);
      PrincipalAttentionPursuit<double>(k, v, 3, 0.05, over_mu, 8.0, scale, &other, &scratch,
                                        other_a, other_h);
      return other_h.cwiseProduct(g).sum();
    };
    for (Mat* x : {&k, &v}) {
      const Mat& analytic = x == &k ? dk : dv;
      for (Eigen::Index i = 0; i < x->size(); ++i) {
        const double saved = x->data()[i];
        x->data()[i] = saved + 1e-6;
        const double plus = value();
        x->data()[i] = saved - 1e-6;
        const double minus = value();
        x->data()[i] = saved;
        EXPECT_NEAR(analytic.data()[i], (plus - minus) / 2e-6, 1e-6)
            << (x == &k ? "K" : "V") << "[" << i << "] over_mu=" << over_mu;
      }
    }
  }
}

// The float backward, a ViT head's size, 4 iterations, against the same in double: the
// backward recovers the earlier duals Y from the last one through the update (rounding
// included) instead of storing them, and must stay within float's rounding of the exact
// gradient.
TEST(RpcMechanismTest, FloatGradientAgreesWithDouble) {
  const Mat k = Mat::Random(50, 16), v = Mat::Random(50, 16), g = Mat::Random(50, 16);
  const double scale = 0.25;
  auto gradients = [&](auto zero) {
    using T = decltype(zero);
    using M = Matrix<T>;
    const M kt = k.cast<T>(), vt = v.cast<T>(), gt = g.cast<T>();
    PapTrace<T> trace;
    PapScratch<T> scratch;
    M a(50, 50), h(50, 16), dk = M::Zero(50, 16), dv = M::Zero(50, 16);
    PrincipalAttentionPursuit<T>(kt, vt, 4, T(0.3), false, T(64), T(scale), &trace, &scratch, a, h);
    PrincipalAttentionPursuitBackward<T>(kt, vt, T(0.3), false, T(64), T(scale), trace, a, gt,
                                         &scratch, dk, dv);
    return std::make_pair(Mat(dk.template cast<double>()), Mat(dv.template cast<double>()));
  };
  const auto [dk, dv] = gradients(0.0);
  const auto [dk_float, dv_float] = gradients(0.0f);
  EXPECT_LT((dk_float - dk).norm() / dk.norm(), 1e-5);
  EXPECT_LT((dv_float - dv).norm() / dv.norm(), 1e-5);
}

// The attention layer around the rpc mechanism (plugins/attention).
std::unique_ptr<MultiHeadAttention<double>> Make(const std::string& text, const Shape& input) {
  return SetUpLayer<MultiHeadAttention<double>>(text, input, /*seed=*/5);
}

constexpr char kRpc[] =
    "mechanism: 'rpc' mechanism_config { "
    "[type.googleapis.com/attnlab.plugins.RpcConfig] { ";

// With iterations n, the layer's heads are PAP's output: one head, D = C = 1, K = V = X, O = 1.
TEST(RpcMechanismTest, LayerHeadsArePap) {
  auto layer = Make(std::string("symmetric: true qk_dim: 1 value_dim: 1 output_dim: 1 "
                                "k { value: 1 } v { value: 1 } o { value: 1 } ") +
                        kRpc + "iterations: 2 lambda: 0.05 } }",
                    {1, 4, 1});
  Tensor<double> x({1, 4, 1}), out;
  x.flat() << 1, 2, -0.5, 0.25;
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const Mat direct = DirectPap(x.flat(), x.flat(), 2, 0.05, 1.0, false);
  EXPECT_LT((out.flat() - direct).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(RpcMechanismTest, LayerGradientChecksWithPaperSettings) {
  // n = 4 iterations, lambda = 4, both thresholds, biases and the output map.
  for (const char* options : {"iterations: 4 } }", "iterations: 4 threshold: LAMBDA_OVER_MU } }"}) {
    auto layer = Make(std::string("symmetric: true heads: 2 qk_dim: 3 value_dim: 3 output_dim: 5 "
                                  "bias: true ") +
                          kRpc + options,
                      {2, 5, 6});
    Tensor<double> x({2, 5, 6});
    x.flat().setRandom();
    absl::Status status = CheckLayerGradients(*layer, x);
    EXPECT_TRUE(status.ok()) << options << ": " << status;
  }
}

TEST(RpcMechanismTest, NeedsSymmetricHeads) {
  plugins::AttentionConfig config;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(std::string(kRpc) + "iterations: 2 } }",
                                                            &config));
  auto layer = MultiHeadAttention<double>::Create(config);
  ASSERT_TRUE(layer.ok()) << layer.status();
  ExecContext ctx(1);
  const absl::Status status = (*layer)->Setup({1, 4, 4}, ctx).status();
  EXPECT_EQ(ErrorField(status), "mechanism");
  EXPECT_NE(status.message().find("needs symmetric attention"), std::string::npos) << status;
}

}  // namespace
}  // namespace attnlab
