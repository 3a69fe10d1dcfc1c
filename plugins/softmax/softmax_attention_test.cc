#include "plugins/softmax/softmax_attention.h"

#include <cmath>

#include "attention/kernels/cuda/device.h"
#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Config = plugins::SoftmaxAttentionConfig;

template <typename T = double>
std::unique_ptr<SoftmaxAttention<T>> Make(const std::string& text, const Shape& input,
                                          uint64_t seed = 1) {
  Config config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  auto layer = SoftmaxAttention<T>::Create(config);
  EXPECT_TRUE(layer.ok()) << layer.status();
  ExecContext ctx(seed);
  auto out = (*layer)->Setup(input, ctx);
  EXPECT_TRUE(out.ok()) << out.status();
  return std::move(*layer);
}

TEST(SoftmaxAttentionTest, Paper1ModelByHand) {
  // TARGETS 1a with p = (0, 1, 0): scores x_t^T W p = (1, 0, 0), values v^T x_t = (1, .9, .9).
  auto layer = Make(R"pb(query: PROMPT
                         p { value: [ 0, 1, 0 ] }
                         w { value: [ 1, 0, 0, 0, 1, 0, 0, 0, 0 ] }
                         v { value: [ 0, 0, 1 ] })pb",
                    {1, 3, 3});
  Tensor<double> x({1, 3, 3});
  x.flat() << -0.1, 1, 1, 1, 0, 0.9, 0, 0, 0.9;
  Tensor<double> out;
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const double e = std::exp(1.0);
  EXPECT_EQ(out.shape(), (Shape{1, 1, 1}));
  EXPECT_NEAR(out.data()[0], (e * 1 + 0.9 + 0.9) / (e + 2), 1e-15);
  EXPECT_NEAR(layer->attention().sample(0)(0, 0), e / (e + 2), 1e-15);
  EXPECT_TRUE(CheckLayerGradients(*layer, x).ok());
}

TEST(SoftmaxAttentionTest, SelfAttentionByHand) {
  // T = 2, d = 1, W = V = 1, scale 1: scores s_ij = x_i x_j.
  auto layer = Make("query: SELF scale: 1 w { value: 1 } v { value: 1 }", {1, 2, 1});
  Tensor<double> x({1, 2, 1});
  x.flat() << 1, 2;
  Tensor<double> out;
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e4 = std::exp(4.0);
  EXPECT_NEAR(out.data()[0], (e1 * 1 + e2 * 2) / (e1 + e2), 1e-14);
  EXPECT_NEAR(out.data()[1], (e2 * 1 + e4 * 2) / (e2 + e4), 1e-14);

  auto causal = Make("query: SELF causal: true scale: 1 w { value: 1 } v { value: 1 }", {1, 2, 1});
  causal->Forward(x, &out, ctx);
  EXPECT_EQ(out.data()[0], 1.0);  // token 0 sees only itself
  EXPECT_EQ(causal->attention().sample(0)(0, 1), 0.0);
}

TEST(SoftmaxAttentionTest, FactoredEqualsUnfactoredWithWEqualKtQ) {
  auto factored = Make("query: SELF qk_dim: 2 value_dim: 3", {3, 4, 3}, 5);
  const std::vector<Parameter<double>*> params = factored->parameters();  // k, q, v
  const Matrix<double> w = params[0]->value.transpose() * params[1]->value;
  Config config;
  config.set_query(Config::SELF);
  config.set_scale(1 / std::sqrt(2.0));
  for (int i = 0; i < 9; ++i) config.mutable_w()->add_value(w.data()[i]);
  for (int i = 0; i < 9; ++i) config.mutable_v()->add_value(params[2]->value.data()[i]);
  auto full = std::move(*SoftmaxAttention<double>::Create(config));
  ExecContext ctx(1);
  ASSERT_TRUE(full->Setup({3, 4, 3}, ctx).ok());
  Tensor<double> x({3, 4, 3}), a, b;
  x.flat().setRandom();
  factored->Forward(x, &a, ctx);
  full->Forward(x, &b, ctx);
  EXPECT_LT((a.flat() - b.flat()).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((factored->QueryKeyMatrix(0) - w.transpose()).norm(), 1e-14);
}

TEST(SoftmaxAttentionTest, HeadsAreIndependentSingleHeadsConcatenated) {
  auto two = Make("query: SELF heads: 2 qk_dim: 2 value_dim: 3 causal: true", {2, 5, 4}, 7);
  const std::vector<Parameter<double>*> p = two->parameters();  // k, q, v
  Tensor<double> x({2, 5, 4}), out;
  x.flat().setRandom();
  ExecContext ctx(1);
  two->Forward(x, &out, ctx);
  for (int h = 0; h < 2; ++h) {
    Config config;
    config.set_query(Config::SELF);
    config.set_qk_dim(2);
    config.set_value_dim(3);
    config.set_causal(true);
    const Matrix<double> k = p[0]->value.middleRows(2 * h, 2), q = p[1]->value.middleRows(2 * h, 2);
    const Matrix<double> v = p[2]->value.middleCols(3 * h, 3);
    for (int i = 0; i < k.size(); ++i) config.mutable_k()->add_value(k.data()[i]);
    for (int i = 0; i < q.size(); ++i) config.mutable_q()->add_value(q.data()[i]);
    for (int i = 0; i < v.size(); ++i) config.mutable_v()->add_value(v.data()[i]);
    auto one = std::move(*SoftmaxAttention<double>::Create(config));
    ASSERT_TRUE(one->Setup({2, 5, 4}, ctx).ok());
    Tensor<double> head;
    one->Forward(x, &head, ctx);
    EXPECT_LT((out.flat().middleCols(3 * h, 3) - head.flat()).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((two->QueryKeyMatrix(h) - one->QueryKeyMatrix(0)).norm(), 1e-14);
  }
}

// AddQueryKeyGradient(h, G) is the gradient of <G, QueryKeyMatrix(h)>.
TEST(SoftmaxAttentionTest, QueryKeyGradientMatchesFiniteDifferences) {
  for (const char* text : {"query: SELF heads: 3 qk_dim: 2 value_dim: 1", "query: SELF w { init: NORMAL std: 1 }"}) {
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

TEST(SoftmaxAttentionTest, GradientChecksEveryForm) {
  for (const char* config : {"query: PROMPT p { init: NORMAL std: 1 }",
                             "query: PROMPT qk_dim: 2 p { init: NORMAL std: 1 }",
                             "query: PROMPT value_dim: 3 w { init: NORMAL std: 1 }",
                             "query: SELF", "query: SELF causal: true qk_dim: 2 value_dim: 2",
                             "query: SELF w { init: NORMAL std: 1 } scale: 0.5",
                             "query: SELF heads: 2 qk_dim: 2 value_dim: 3 bias: true output_dim: 4",
                             "query: PROMPT heads: 2 qk_dim: 2 bias: true p { init: NORMAL std: 1 }"}) {
    auto layer = Make(config, {3, 5, 4}, 2);
    Tensor<double> x({3, 5, 4});
    x.flat().setRandom();
    absl::Status status = CheckLayerGradients(*layer, x);
    EXPECT_TRUE(status.ok()) << config << ": " << status;
  }
}

TEST(SoftmaxAttentionTest, FloatMatchesDouble) {
  auto d = Make<double>("query: SELF qk_dim: 3", {2, 6, 4}, 9);
  auto f = Make<float>("query: SELF qk_dim: 3", {2, 6, 4}, 9);
  Tensor<double> xd({2, 6, 4}), od;
  xd.flat().setRandom();
  Tensor<float> xf({2, 6, 4}), of;
  xf.flat() = xd.flat().cast<float>();
  ExecContext ctx(1);
  d->Forward(xd, &od, ctx);
  f->Forward(xf, &of, ctx);
  EXPECT_LT((od.flat().cast<float>() - of.flat()).cwiseAbs().maxCoeff(), 1e-5);
}

// device: CUDA runs the attention core on the GPU; outputs and every gradient must match the
// CPU path (relative to the largest entry, < 1e-5). Skips where CUDA cannot run.
TEST(SoftmaxAttentionTest, CudaPathMatchesCpu) {
  if (absl::Status status = CudaAvailable(); !status.ok()) GTEST_SKIP() << status.message();
  auto relative = [](const Matrix<float>& a, const Matrix<float>& b) {
    return (a - b).cwiseAbs().maxCoeff() / std::max(1.0f, b.cwiseAbs().maxCoeff());
  };
  for (const char* config : {"query: SELF heads: 2 qk_dim: 3 value_dim: 2 bias: true output_dim: 5 "
                             "causal: true",
                             "query: PROMPT heads: 2 qk_dim: 2 p { init: NORMAL std: 1 }",
                             "query: SELF w { init: NORMAL std: 1 } scale: 0.5"}) {
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

TEST(SoftmaxAttentionTest, ConfigErrorsNameTheField) {
  auto error = [](const std::string& text) {
    Config config;
    google::protobuf::TextFormat::ParseFromString(text, &config);
    return ErrorField(SoftmaxAttention<double>::Create(config).status());
  };
  EXPECT_EQ(error("k { init: ZEROS }"), "k");
  EXPECT_EQ(error("qk_dim: 2 w { init: ZEROS }"), "w");
  EXPECT_EQ(error("query: SELF p { init: ZEROS }"), "p");
  EXPECT_EQ(error("query: PROMPT causal: true"), "causal");
  EXPECT_EQ(error("query: SELF heads: 2"), "heads");
  EXPECT_EQ(error("query: SELF bias: true"), "bias");
  EXPECT_EQ(error("query: SELF o { init: ZEROS }"), "o");
  Config config;
  config.set_query(Config::PROMPT);
  config.mutable_p()->add_value(1);
  auto layer = SoftmaxAttention<double>::Create(config);
  ExecContext ctx(1);
  EXPECT_EQ(ErrorField((*layer)->Setup({1, 3, 3}, ctx).status()), "p.value");
}

}  // namespace
}  // namespace attnlab
