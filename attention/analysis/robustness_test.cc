#include "attention/analysis/robustness.h"

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<Model<double>> MakeModel(const std::string& text, const Shape& input,
                                         const Shape& target) {
  ModelSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  ExecContext ctx(1);
  auto model = Model<double>::Create(spec, input, target, ctx);
  EXPECT_TRUE(model.ok()) << model.status();
  return std::move(*model);
}

// Logits = x for x in R^2 (a classifier with w = I), class 0.
constexpr char kIdentityClassifier[] = R"pb(
  layer {
    plugin: "classifier"
    config {
      [type.googleapis.com/attnlab.plugins.ClassifierConfig] { classes: 2 w { init: IDENTITY } }
    }
  }
  loss { plugin: "cross_entropy" })pb";

TEST(RobustnessTest, FgsmAndPgdOnALinearModelByHand) {
  auto model = MakeModel(kIdentityClassifier, {1, 1, 2}, {1, 1, 1});
  Tensor<double> x({1, 1, 2}), y({1, 1, 1}), out;
  x.flat() << 0.3, 0.1;
  y.flat() << 0;
  ExecContext ctx(1);
  // d(loss)/dx = softmax(x) - e_0 = (-, +): FGSM moves x to (0.3 - eps, 0.1 + eps).
  Perturb(*model, x, y, {Perturbation::kFgsm, 0.05}, &out, ctx);
  EXPECT_NEAR(out.data()[0], 0.25, 1e-15);
  EXPECT_NEAR(out.data()[1], 0.15, 1e-15);
  EXPECT_EQ(Accuracy(*model, x, y, {Perturbation::kFgsm, 0.05}, ctx), 1.0);
  EXPECT_EQ(Accuracy(*model, x, y, {Perturbation::kFgsm, 0.15}, ctx), 0.0);  // (0.15, 0.25)
  // PGD walks to the same corner of the ball and stays there.
  Perturbation pgd{Perturbation::kPgd, 0.15};
  Perturb(*model, x, y, pgd, &out, ctx);
  EXPECT_NEAR(out.data()[0], 0.15, 1e-15);
  EXPECT_NEAR(out.data()[1], 0.25, 1e-15);
  EXPECT_EQ(Accuracy(*model, x, y, {}, ctx), 1.0);
}

// The paper-4 authors' attacks (cleverhans defaults): labels are the model's predictions, and
// PGD starts from a uniform draw in the ball.
TEST(RobustnessTest, AttacksOnPredictedLabelsAndFromARandomStart) {
  auto model = MakeModel(kIdentityClassifier, {1, 1, 2}, {1, 1, 1});
  Tensor<double> x({1, 1, 2}), y({1, 1, 1}), out;
  x.flat() << 0.3, 0.1;  // predicted class 0
  y.flat() << 1;         // a wrong target: against it, FGSM would raise x_1 - x_0 ...
  ExecContext ctx(1);
  Perturbation fgsm{Perturbation::kFgsm, 0.05};
  fgsm.predicted_labels = true;  // ... against the prediction it lowers it, as for y = 0
  Perturb(*model, x, y, fgsm, &out, ctx);
  EXPECT_NEAR(out.data()[0], 0.25, 1e-15);
  EXPECT_NEAR(out.data()[1], 0.15, 1e-15);
  // One PGD step of size 0 from a random start: a uniform point of the ball, seeded.
  Perturbation pgd{Perturbation::kPgd, 0.1, 1, 1e-300, 5};
  pgd.random_start = true;
  Tensor<double> again;
  Perturb(*model, x, y, pgd, &out, ctx);
  Perturb(*model, x, y, pgd, &again, ctx);
  EXPECT_EQ(out.flat(), again.flat());
  EXPECT_NE(out.flat(), x.flat());
  EXPECT_LE((out.flat() - x.flat()).cwiseAbs().maxCoeff(), 0.1);
  pgd.seed = 6;
  Perturb(*model, x, y, pgd, &again, ctx);
  EXPECT_NE(out.flat(), again.flat());
  // Accuracy still counts against the true targets.
  EXPECT_EQ(Accuracy(*model, x, y, fgsm, ctx), 0.0);
}

TEST(RobustnessTest, GaussianNoiseIsIndependentOfChunking) {
  auto model = MakeModel(kIdentityClassifier, {100, 1, 2}, {100, 1, 1});
  Tensor<double> x({100, 1, 2}), y({100, 1, 1});
  for (int i = 0; i < 100; ++i) {
    x.flat()(i, 0) = 0.01 * i;  // margins 0 .. 0.99
    x.flat()(i, 1) = 0;
    y.data()[i] = 0;
  }
  ExecContext ctx(1);
  EXPECT_EQ(Accuracy(*model, x, y, {}, ctx), 1.0);  // the tie at x = 0 goes to the first class
  const Perturbation noise{Perturbation::kGaussian, 0.5, 20, 0, 7};
  const double a = Accuracy(*model, x, y, noise, ctx, 0, 250);
  EXPECT_EQ(a, Accuracy(*model, x, y, noise, ctx, 0, 7));
  EXPECT_LT(a, 0.9);
  EXPECT_GT(a, 0.5);
}

TEST(RobustnessTest, InputGradientMatchesFiniteDifferencesAndKeepsParameterGradients) {
  const Shape input{3, 8, 8};
  auto model = MakeModel(R"pb(
    layer {
      plugin: "patch_embedding"
      config {
        [type.googleapis.com/attnlab.plugins.PatchEmbeddingConfig] {
          channels: 1 patch: 4 dim: 6 class_token: true positions: true
        }
      }
    }
    layer {
      plugin: "transformer_block"
      config {
        [type.googleapis.com/attnlab.plugins.TransformerBlockConfig] {
          norm: PRE
          ffn_hidden: 8
          attention {
            plugin: "attention"
            config {
              [type.googleapis.com/attnlab.plugins.AttentionConfig] { heads: 2 qk_dim: 3 bias: true }
            }
          }
        }
      }
    }
    layer { plugin: "layer_norm" }
    layer {
      plugin: "classifier"
      config { [type.googleapis.com/attnlab.plugins.ClassifierConfig] { classes: 3 } }
    }
    loss { plugin: "cross_entropy" })pb", input, {3, 1, 1});
  Tensor<double> x(input), y({3, 1, 1}), grad;
  x.flat().setRandom();
  y.flat() << 0, 2, 1;
  ExecContext ctx(1);
  model->TrainStep(x, y, ctx);
  std::vector<Matrix<double>> before;
  for (const Parameter<double>* p : model->parameters()) before.push_back(p->grad);
  model->InputGradient(x, y, &grad, ctx);
  for (size_t k = 0; k < before.size(); ++k) {
    EXPECT_EQ(model->parameters()[k]->grad, before[k]) << model->parameters()[k]->name;
  }
  ASSERT_EQ(grad.shape(), input);
  const double h = 1e-6;
  double worst = 0;
  for (Eigen::Index i = 0; i < x.size(); i += 5) {
    Tensor<double> plus = x, minus = x;
    plus.data()[i] += h;
    minus.data()[i] -= h;
    model->Forward(plus, ctx);
    const double up = model->EvaluateLoss(y, ctx);
    model->Forward(minus, ctx);
    const double down = model->EvaluateLoss(y, ctx);
    worst = std::max(worst, std::abs((up - down) / (2 * h) - grad.data()[i]));
  }
  EXPECT_LT(worst, 1e-8);
  EXPECT_GT(grad.flat().norm(), 1e-3);
}

}  // namespace
}  // namespace attnlab
