#include "plugins/layers/prompt/prompt_attention.h"

#include <cmath>

#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "attention/layer_testing.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "plugins/layers/attention/attention.pb.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

using Config = plugins::PromptAttentionConfig;

template <typename T = double>
std::unique_ptr<PromptAttention<T>> Make(const std::string& text, const Shape& input,
                                         uint64_t seed = 1) {
  return SetUpLayer<PromptAttention<T>>(text, input, seed);
}

TEST(PromptAttentionTest, Paper1ModelByHand) {
  // TARGETS 1a with p = (0, 1, 0): scores x_t^T W p = (1, 0, 0), values v^T x_t = (1, .9, .9).
  auto layer = Make(R"pb(p { value: [ 0, 1, 0 ] }
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
  EXPECT_EQ(layer->QueryKeyMatrix(0), layer->parameters()[1]->value.transpose());  // W^T
}

// query: FIRST_ROW (the W-parametrization): each sample's first row z is its query; token x_t
// scores x_t^T W z over the rows after it.
TEST(PromptAttentionTest, FirstRowQueryByHand) {
  auto layer = Make(R"pb(query: FIRST_ROW
                         w { value: [ 1, 2, 0, 1 ] }
                         v { value: [ 1, -1 ] })pb",
                    {2, 3, 2});
  Tensor<double> x({2, 3, 2});
  // Sample 0: z = (1, 0), so W z = (1, 0): tokens (1, 1) and (0, 3) score 1 and 0, values 0
  // and -3. Sample 1: z = (0, 1), W z = (2, 1): tokens (1, 0) and (0, 1) score 2 and 1,
  // values 1 and -1.
  x.flat() << 1, 0, 1, 1, 0, 3, 0, 1, 1, 0, 0, 1;
  Tensor<double> out;
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const double e = std::exp(1.0);
  EXPECT_EQ(out.shape(), (Shape{2, 1, 1}));
  EXPECT_NEAR(out.data()[0], (e * 0 + 1 * -3) / (e + 1), 1e-15);
  EXPECT_NEAR(out.data()[1], (e * 1 + 1 * -1) / (e + 1), 1e-15);
  EXPECT_EQ(layer->attention().shape(), (Shape{2, 1, 2}));
  EXPECT_NEAR(layer->attention().sample(1)(0, 0), e / (e + 1), 1e-15);
  EXPECT_EQ(layer->parameters().size(), 2u);  // W and v: no p
  EXPECT_EQ(layer->AsPromptForm()->query(), nullptr);
}

// Metrics find the form through AsPromptForm and ask the mechanism's capability, not its name:
// the ATT-SVM correlations accept softmax's weights only.
TEST(PromptAttentionTest, PromptFormReportsItsParametersAndWhetherItsWeightsAreSoftmax) {
  auto softmax = Make("w { init: NORMAL std: 1 } v { init: NORMAL std: 1 }", {2, 3, 4});
  PromptForm<double>* form = softmax->AsPromptForm();
  ASSERT_NE(form, nullptr);
  EXPECT_FALSE(form->query_row());
  EXPECT_EQ(form->query(), softmax->parameters()[0]);
  EXPECT_EQ(&form->value(), softmax->parameters()[2]);
  EXPECT_TRUE(form->softmax_weights());
  EXPECT_EQ(form->mechanism(), "softmax");
  for (const char* mechanism : {"softmax1", "sigmoid"}) {
    auto other = Make(std::string("mechanism: \"") + mechanism +
                          "\" w { init: NORMAL std: 1 } v { init: NORMAL std: 1 }",
                      {2, 3, 4});
    EXPECT_FALSE(other->AsPromptForm()->softmax_weights()) << mechanism;
  }
}

// With every sample's z equal to p, FIRST_ROW is the PROMPT form: the same output, the same
// dL/dW and dL/dv, and the sum over samples of dL/dz is the PROMPT form's dL/dp.
TEST(PromptAttentionTest, FirstRowWithTheSameQueryIsThePromptForm) {
  const std::string params = "value_dim: 2 w { init: NORMAL std: 1 } v { init: NORMAL std: 1 }";
  auto prompt = Make(params + " p { value: [0.3, -0.2, 0.5, 0.1] }", {5, 6, 4}, 7);
  auto first_row = Make(params + " query: FIRST_ROW", {5, 7, 4}, 7);
  Tensor<double> x({5, 6, 4}), xz({5, 7, 4}), grad_out({5, 1, 2});
  x.flat().setRandom();
  grad_out.flat().setRandom();
  for (int b = 0; b < 5; ++b) {
    xz.sample(b).row(0) << 0.3, -0.2, 0.5, 0.1;
    xz.sample(b).bottomRows(6) = x.sample(b);
  }
  ExecContext ctx(1);
  Tensor<double> out, out_z, grad_in, grad_in_z;
  prompt->Forward(x, &out, ctx);
  first_row->Forward(xz, &out_z, ctx);
  EXPECT_LT((out.flat() - out_z.flat()).cwiseAbs().maxCoeff(), 1e-14);
  prompt->Backward(grad_out, &grad_in, ctx);
  first_row->Backward(grad_out, &grad_in_z, ctx);
  const auto p = prompt->parameters(), z = first_row->parameters();  // (p, w, v), (w, v)
  EXPECT_LT((p[1]->grad - z[0]->grad).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LT((p[2]->grad - z[1]->grad).cwiseAbs().maxCoeff(), 1e-13);
  Matrix<double> grad_z = Matrix<double>::Zero(1, 4);
  for (int b = 0; b < 5; ++b) {
    grad_z += grad_in_z.sample(b).row(0);
    EXPECT_LT((grad_in.sample(b) - grad_in_z.sample(b).bottomRows(6)).cwiseAbs().maxCoeff(), 1e-13);
  }
  EXPECT_LT((p[0]->grad.transpose() - grad_z).cwiseAbs().maxCoeff(), 1e-13);
}

TEST(PromptAttentionTest, ScaleMultipliesTheScores) {
  auto layer = Make("scale: 2 p { value: [ 1 ] } w { value: [ 1 ] } v { value: [ 1 ] }", {1, 2, 1});
  Tensor<double> x({1, 2, 1}), out;
  x.flat() << 1, -1;
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const double a = std::exp(2.0) / (std::exp(2.0) + std::exp(-2.0));
  EXPECT_NEAR(out.data()[0], a - (1 - a), 1e-15);
}

// The token-pass path (Backward without dL/dX) and the head-by-head path (with it) give the
// same parameter gradients. With V frozen (paper 1's fixed v) the token-pass path skips dL/dV's
// moments and leaves V's gradient zero; the head-by-head path computes it anyway.
TEST(PromptAttentionTest, BothBackwardPathsAgree) {
  for (bool frozen_v : {false, true}) {
    SCOPED_TRACE(frozen_v ? "V frozen" : "V trained");
    std::string config = "value_dim: 3 w { init: NORMAL std: 1 } p { init: NORMAL std: 1 }";
    if (frozen_v) config += " v { init: NORMAL std: 1 frozen: true }";
    auto layer = Make(config, {70, 6, 5}, 3);
    Tensor<double> x({70, 6, 5}), out, grad_out({70, 1, 3}), grad_in;
    x.flat().setRandom();
    grad_out.flat().setRandom();
    ExecContext ctx(1);
    layer->Forward(x, &out, ctx);
    layer->Backward(grad_out, nullptr, ctx);
    const std::vector<Parameter<double>*> params = layer->parameters();  // p, w, v
    std::vector<Matrix<double>> fast;
    for (Parameter<double>* p : params) fast.push_back(p->grad);
    if (frozen_v) {
      EXPECT_EQ(fast[2], Matrix<double>::Zero(5, 3));
    }
    layer->Backward(grad_out, &grad_in, ctx);
    for (size_t i = 0; i < (frozen_v ? 2 : params.size()); ++i) {
      EXPECT_LT((params[i]->grad - fast[i]).cwiseAbs().maxCoeff(), 1e-13) << i;
    }
    EXPECT_GT(params[2]->grad.norm(), 0);
  }
}

// Samples are split over threads (in tasks of about 32K token values): 2 threads give the
// same bits as 1, on both paths. 300 samples of 8 x 64 make 5 tasks or more.
TEST(PromptAttentionTest, TwoThreadsGiveTheSameBits) {
  const char* config = "value_dim: 2 w { init: NORMAL std: 1 } p { init: NORMAL std: 1 }";
  Tensor<double> x({300, 8, 64}), grad_out({300, 1, 2});
  x.flat().setRandom();
  grad_out.flat().setRandom();
  std::vector<Matrix<double>> results[2];
  for (int threads : {1, 2}) {
    auto layer = Make(config, x.shape(), 4);
    ExecContext ctx(1, threads);
    tbb::task_arena arena(threads);
    arena.execute([&] {
      Tensor<double> out, grad_in;
      layer->Forward(x, &out, ctx);
      layer->Backward(grad_out, nullptr, ctx);  // the token-pass path
      results[threads - 1].push_back(out.flat());
      for (Parameter<double>* p : layer->parameters()) results[threads - 1].push_back(p->grad);
      layer->Backward(grad_out, &grad_in, ctx);  // the head-by-head path
      results[threads - 1].push_back(grad_in.flat());
      for (Parameter<double>* p : layer->parameters()) results[threads - 1].push_back(p->grad);
    });
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) EXPECT_EQ(results[0][i], results[1][i]) << i;
}

TEST(PromptAttentionTest, GradientChecks) {
  for (const char* config : {"p { init: NORMAL std: 1 }",
                             "value_dim: 3 w { init: NORMAL std: 1 } p { init: NORMAL std: 1 }",
                             "scale: 0.3 p { init: NORMAL std: 1 }",
                             "value_dim: 2 p { init: NORMAL std: 1 } v { init: NORMAL std: 1 "
                             "frozen: true }",
                             "query: FIRST_ROW value_dim: 2 w { init: NORMAL std: 1 }",
                             "query: FIRST_ROW scale: 0.5 w { init: NORMAL std: 1 } v { init: "
                             "NORMAL std: 1 frozen: true }"}) {
    auto layer = Make(config, {3, 5, 4}, 2);
    Tensor<double> x({3, 5, 4});
    x.flat().setRandom();
    absl::Status status = CheckLayerGradients(*layer, x);
    EXPECT_TRUE(status.ok()) << config << ": " << status;
  }
}

TEST(PromptAttentionTest, FloatMatchesDouble) {
  const char* config = "value_dim: 2 p { init: NORMAL std: 1 }";
  auto d = Make<double>(config, {2, 6, 4}, 9);
  auto f = Make<float>(config, {2, 6, 4}, 9);
  Tensor<double> xd({2, 6, 4}), od;
  xd.flat().setRandom();
  Tensor<float> xf({2, 6, 4}), of;
  xf.flat() = xd.flat().cast<float>();
  ExecContext ctx(1);
  d->Forward(xd, &od, ctx);
  f->Forward(xf, &of, ctx);
  EXPECT_LT((od.flat().cast<float>() - of.flat()).cwiseAbs().maxCoeff(), 1e-5);
}

TEST(PromptAttentionTest, ErrorsNameTheField) {
  auto error = [](const std::string& text) {
    Config config;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
    return ErrorField(PromptAttention<double>::Create(config).status());
  };
  EXPECT_EQ(error("value_dim: -2"), "value_dim");
  EXPECT_EQ(error("mechanism: \"nope\""), "mechanism");
  Config config;
  config.mutable_mechanism_config()->PackFrom(plugins::AttentionConfig());
  EXPECT_EQ(ErrorField(PromptAttention<double>::Create(config).status()), "mechanism_config");

  auto setup_error = [](const std::string& text) {
    Config config;
    google::protobuf::TextFormat::ParseFromString(text, &config);
    auto layer = PromptAttention<double>::Create(config);
    EXPECT_TRUE(layer.ok()) << layer.status();
    ExecContext ctx(1);
    return ErrorField((*layer)->Setup({1, 3, 3}, ctx).status());
  };
  EXPECT_EQ(setup_error("p { value: 1 }"), "p.value");
  EXPECT_EQ(setup_error("mechanism: \"rpc\""), "mechanism");  // PAP needs symmetric heads
  Config first_row;
  first_row.set_query(Config::FIRST_ROW);
  auto layer = PromptAttention<double>::Create(first_row);
  ExecContext ctx(1);
  EXPECT_NE((*layer)->Setup({1, 1, 3}, ctx).status().message().find("query: FIRST_ROW"),
            std::string::npos);  // a query row and no token
}

}  // namespace
}  // namespace attnlab
