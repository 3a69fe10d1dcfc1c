#include "plugins/layers/attention/multi_head_attention.h"

#include <cmath>

#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "attention/kernels/cuda/device.h"
#include "attention/layer_testing.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "plugins/mechanisms/softmax/softmax.pb.h"

namespace attnlab {
namespace {

using Config = plugins::AttentionConfig;

template <typename T = double>
std::unique_ptr<MultiHeadAttention<T>> Make(const std::string& text, const Shape& input,
                                            uint64_t seed = 1) {
  return SetUpLayer<MultiHeadAttention<T>>(text, input, seed);
}

void SetValues(const Matrix<double>& m, ParamSpec* spec) {
  for (Eigen::Index i = 0; i < m.size(); ++i) spec->add_value(m.data()[i]);
}

TEST(MultiHeadAttentionTest, SoftmaxByHand) {
  // T = 2, d = 1, Q = K = V = 1, scale 1: scores s_ij = x_i x_j.
  auto layer = Make("scale: 1 q { value: 1 } k { value: 1 } v { value: 1 }", {1, 2, 1});
  Tensor<double> x({1, 2, 1});
  x.flat() << 1, 2;
  Tensor<double> out;
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e4 = std::exp(4.0);
  EXPECT_NEAR(out.data()[0], (e1 * 1 + e2 * 2) / (e1 + e2), 1e-14);
  EXPECT_NEAR(out.data()[1], (e2 * 1 + e4 * 2) / (e2 + e4), 1e-14);
  EXPECT_NEAR(layer->attention().sample(0)(1, 0), e2 / (e2 + e4), 1e-15);

  auto causal =
      Make("causal: true scale: 1 q { value: 1 } k { value: 1 } v { value: 1 }", {1, 2, 1});
  causal->Forward(x, &out, ctx);
  EXPECT_EQ(out.data()[0], 1.0);  // token 0 sees only itself
  EXPECT_EQ(causal->attention().sample(0)(0, 1), 0.0);
  EXPECT_NEAR(out.data()[1], (e2 * 1 + e4 * 2) / (e2 + e4), 1e-14);
}

TEST(MultiHeadAttentionTest, DefaultScaleAndOutputMapAndBiasesByHand) {
  // d = 2, qk_dim 2: scale 1/sqrt(2); Q = I, K = I, V = I, O = [1; 1], bo = 0.5 after Setup.
  auto layer = Make(
      "qk_dim: 2 value_dim: 2 output_dim: 1 bias: true q { value: [ 1, 0, 0, 1 ] } "
      "k { value: [ 1, 0, 0, 1 ] } v { value: [ 1, 0, 0, 1 ] } o { value: [ 1, 1 ] }",
      {1, 2, 2});
  for (Parameter<double>* p : layer->parameters()) {
    if (p->name == "bo") p->value.setConstant(0.5);
  }
  Tensor<double> x({1, 2, 2}), out;
  x.flat() << 1, 0, 0, 1;  // orthogonal tokens: score 1/sqrt(2) for itself, 0 for the other
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const double a = std::exp(1 / std::sqrt(2.0)) / (std::exp(1 / std::sqrt(2.0)) + 1);
  // h_0 = a x_0 + (1 - a) x_1 = (a, 1 - a): summed by O to 1, plus bo.
  EXPECT_NEAR(out.data()[0], 1.5, 1e-14);
  EXPECT_NEAR(layer->attention().sample(0)(0, 0), a, 1e-15);
  EXPECT_NEAR(layer->attention().sample(0)(1, 1), a, 1e-15);
}

TEST(MultiHeadAttentionTest, SymmetricUsesTheKeysAsQueries) {
  auto symmetric = Make("symmetric: true qk_dim: 2 value_dim: 3", {2, 4, 3}, 5);
  const std::vector<Parameter<double>*> params = symmetric->parameters();  // k, v
  ASSERT_EQ(params.size(), 2u);
  Config config;
  config.set_qk_dim(2);
  config.set_value_dim(3);
  SetValues(params[0]->value, config.mutable_q());
  SetValues(params[0]->value, config.mutable_k());
  SetValues(params[1]->value, config.mutable_v());
  auto general = std::move(*MultiHeadAttention<double>::Create(config));
  ExecContext ctx(1);
  ASSERT_TRUE(general->Setup({2, 4, 3}, ctx).ok());
  Tensor<double> x({2, 4, 3}), a, b;
  x.flat().setRandom();
  symmetric->Forward(x, &a, ctx);
  general->Forward(x, &b, ctx);
  EXPECT_LT((a.flat() - b.flat()).cwiseAbs().maxCoeff(), 1e-14);
  const Matrix<double> m = symmetric->QueryKeyMatrix(0);
  EXPECT_LT((m - m.transpose()).norm(), 1e-14);
}

TEST(MultiHeadAttentionTest, HeadsAreIndependentSingleHeadsConcatenated) {
  auto two = Make("heads: 2 qk_dim: 2 value_dim: 3 causal: true", {2, 5, 4}, 7);
  const std::vector<Parameter<double>*> p = two->parameters();  // q, k, v
  Tensor<double> x({2, 5, 4}), out;
  x.flat().setRandom();
  ExecContext ctx(1);
  two->Forward(x, &out, ctx);
  for (int h = 0; h < 2; ++h) {
    Config config;
    config.set_qk_dim(2);
    config.set_value_dim(3);
    config.set_causal(true);
    SetValues(p[0]->value.middleRows(2 * h, 2), config.mutable_q());
    SetValues(p[1]->value.middleRows(2 * h, 2), config.mutable_k());
    SetValues(p[2]->value.middleCols(3 * h, 3), config.mutable_v());
    auto one = std::move(*MultiHeadAttention<double>::Create(config));
    ASSERT_TRUE(one->Setup({2, 5, 4}, ctx).ok());
    Tensor<double> head;
    one->Forward(x, &head, ctx);
    EXPECT_LT((out.flat().middleCols(3 * h, 3) - head.flat()).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((two->QueryKeyMatrix(h) - one->QueryKeyMatrix(0)).norm(), 1e-14);
  }
}

// AddQueryKeyGradient(h, G) is the gradient of <G, QueryKeyMatrix(h)>.
TEST(MultiHeadAttentionTest, QueryKeyGradientMatchesFiniteDifferences) {
  for (const char* text : {"heads: 3 qk_dim: 2 value_dim: 1", "symmetric: true qk_dim: 3"}) {
    auto layer = Make(text, {1, 3, 4}, 3);
    const int head = layer->heads() - 1;
    const Matrix<double> g = Matrix<double>::Random(4, 4);
    for (Parameter<double>* p : layer->parameters()) p->grad.setZero();
    layer->AddQueryKeyGradient(head, g);
    for (Parameter<double>* p : layer->parameters()) {
      for (Eigen::Index i = 0; i < p->value.size(); ++i) {
        const double saved = p->value.data()[i];
        p->value.data()[i] = saved + 1e-6;
        const double plus = layer->QueryKeyMatrix(head).cwiseProduct(g).sum();
        p->value.data()[i] = saved - 1e-6;
        const double minus = layer->QueryKeyMatrix(head).cwiseProduct(g).sum();
        p->value.data()[i] = saved;
        EXPECT_NEAR(p->grad.data()[i], (plus - minus) / 2e-6, 1e-7) << text << " " << p->name;
      }
    }
  }
}

TEST(MultiHeadAttentionTest, GradientChecksEveryForm) {
  for (const char* config : {"", "causal: true qk_dim: 2 value_dim: 2", "scale: 0.5 qk_dim: 4",
                             "heads: 2 qk_dim: 2 value_dim: 3 bias: true output_dim: 4",
                             "symmetric: true heads: 2 qk_dim: 3 bias: true output_dim: 4",
                             "symmetric: true causal: true qk_dim: 2 value_dim: 2"}) {
    auto layer = Make(config, {3, 5, 4}, 2);
    Tensor<double> x({3, 5, 4});
    x.flat().setRandom();
    absl::Status status = CheckLayerGradients(*layer, x);
    EXPECT_TRUE(status.ok()) << config << ": " << status;
  }
}

TEST(MultiHeadAttentionTest, FloatMatchesDouble) {
  auto d = Make<double>("heads: 2 qk_dim: 3 causal: true", {2, 6, 4}, 9);
  auto f = Make<float>("heads: 2 qk_dim: 3 causal: true", {2, 6, 4}, 9);
  Tensor<double> xd({2, 6, 4}), od;
  xd.flat().setRandom();
  Tensor<float> xf({2, 6, 4}), of;
  xf.flat() = xd.flat().cast<float>();
  ExecContext ctx(1);
  d->Forward(xd, &od, ctx);
  f->Forward(xf, &of, ctx);
  EXPECT_LT((od.flat().cast<float>() - of.flat()).cwiseAbs().maxCoeff(), 1e-5);
}

// device: CUDA runs the softmax heads on the GPU; outputs and every gradient must match the
// CPU path (relative to the largest entry, < 1e-5). Skips where CUDA cannot run.
TEST(MultiHeadAttentionTest, CudaPathMatchesCpu) {
  if (absl::Status status = CudaAvailable(); !status.ok()) GTEST_SKIP() << status.message();
  auto relative = [](const Matrix<float>& a, const Matrix<float>& b) {
    return (a - b).cwiseAbs().maxCoeff() / std::max(1.0f, b.cwiseAbs().maxCoeff());
  };
  for (const char* config : {"heads: 2 qk_dim: 3 value_dim: 2 bias: true output_dim: 5 "
                             "causal: true",
                             "symmetric: true heads: 2 qk_dim: 2", "scale: 0.5"}) {
    auto layer = Make<float>(config, {3, 7, 4}, 5);
    Tensor<float> x({3, 7, 4}), grad_out;
    x.flat().setRandom();
    std::vector<Matrix<float>> outputs, input_grads;
    std::vector<std::vector<Matrix<float>>> param_grads;
    for (bool cuda : {false, true}) {
      ExecContext ctx(1);
      ctx.set_cuda(cuda);
      Tensor<float> out, grad_in;
      layer->Forward(x, &out, ctx);
      if (!cuda) {
        grad_out.Resize(out.shape());
        grad_out.flat().setRandom();
      }
      layer->Backward(grad_out, &grad_in, ctx);
      outputs.push_back(out.flat());
      input_grads.push_back(grad_in.flat());
      param_grads.emplace_back();
      for (Parameter<float>* p : layer->parameters()) param_grads.back().push_back(p->grad);
    }
    EXPECT_LT(relative(outputs[1], outputs[0]), 1e-5) << config;
    EXPECT_LT(relative(input_grads[1], input_grads[0]), 1e-5) << config;
    for (size_t k = 0; k < param_grads[0].size(); ++k) {
      EXPECT_LT(relative(param_grads[1][k], param_grads[0][k]), 1e-5)
          << config << ": " << layer->parameters()[k]->name;
    }
  }
}

TEST(MultiHeadAttentionTest, ConfigErrorsNameTheField) {
  auto error = [](const std::string& text) {
    Config config;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
    return ErrorField(MultiHeadAttention<double>::Create(config).status());
  };
  EXPECT_EQ(error("heads: -1"), "heads");
  EXPECT_EQ(error("symmetric: true q { init: ZEROS }"), "q");
  EXPECT_EQ(error("o { init: ZEROS }"), "o");
  EXPECT_EQ(error("mechanism: \"no_such_mechanism\""), "mechanism");
  // A config of the wrong type for the mechanism is the config's error.
  Config config;
  config.set_mechanism("softmax");
  config.mutable_mechanism_config()->PackFrom(Config());
  EXPECT_EQ(ErrorField(MultiHeadAttention<double>::Create(config).status()), "mechanism_config");

  auto setup_error = [](const std::string& text, const Shape& input) {
    Config config;
    google::protobuf::TextFormat::ParseFromString(text, &config);
    auto layer = MultiHeadAttention<double>::Create(config);
    EXPECT_TRUE(layer.ok()) << layer.status();
    ExecContext ctx(1);
    return ErrorField((*layer)->Setup(input, ctx).status());
  };
  EXPECT_EQ(setup_error("heads: 3", {1, 4, 4}), "qk_dim");
  EXPECT_EQ(setup_error("heads: 3 qk_dim: 2", {1, 4, 4}), "value_dim");
  EXPECT_EQ(setup_error("k { value: 1 }", {1, 3, 3}), "k.value");
  EXPECT_EQ(setup_error("symmetric: true mechanism: \"rpc\"", {1, 3, 3}), "");  // rpc: symmetric
  EXPECT_EQ(setup_error("mechanism: \"rpc\"", {1, 3, 3}), "mechanism");
}

}  // namespace
}  // namespace attnlab
