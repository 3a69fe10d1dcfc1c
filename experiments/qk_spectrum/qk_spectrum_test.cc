// Paper 2 on a tiny fixture: the language model learns a repeated corpus, its gradients (with
// the LocAteR penalty) match finite differences, and LocAteR shrinks the eigenvalue variance of
// W_QK; 2a's runs are shared with 2b.
#include <set>
#include <string>

#include "attention/gradient_check.h"
#include "attention/model.h"
#include "datasets/dataset.h"
#include "experiments/trials/runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

// A 1-layer Post-LN LM (2 heads) on the fixture's repeated 15-token line.
constexpr char kTinyLm[] = R"pb(
name: "tiny_lm"
description: "a tiny LM on a repeated line"
model {
  dtype: DOUBLE
  layer { name: "embed" plugin: "embedding"
    config { vocab_size: 16 dim: 16 max_len: 15 } }
  layer { name: "block0" plugin: "transformer_block"
    config { ffn_hidden: 32
      attention { plugin: "attention" config { heads: 2 qk_dim: 8 bias: true output_dim: 16 causal: true } } } }
  loss { plugin: "lm_cross_entropy"
    config { vocab_size: 16 bias: true } }
  regularizer { plugin: "locater"
    config { lambda: 0 } }
}
dataset { plugin: "wikitext" config { train: "../../datasets/testdata/wikitext_tiny/repeated.tokens"
                     seq_len: 15 vocab_size: 16 } }
optimizer { plugin: "adam" lr: 0.01 }
training { steps: 300 log_every: 100 }
metric { name: "eig_var" plugin: "qk_spectrum" config { layer: "block0/attn" statistic: VARIANCE } }
metric { name: "entropy" plugin: "attention_entropy" config { layer: "block0/attn" } }
)pb";

ExperimentResult RunText(const std::string& text, const std::string& out) {
  auto parsed = ParseSpecText(text, "tiny_lm.textproto");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  parsed->directory = "experiments/qk_spectrum";
  RunOptions options;
  options.out_dir = ::testing::TempDir() + "/" + out;
  options.progress = false;
  auto result = RunExperiment(*parsed, options);
  EXPECT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->failed, 0) << result->errors[0];
  return *result;
}

TEST(QkSpectrumTest, LanguageModelLearnsARepeatedCorpus) {
  const ExperimentResult result = RunText(kTinyLm, "memorize");
  const TrialResult& trial = *result.results[0];
  EXPECT_GT(trial.At(0, "loss"), 2.0);  // ~log 16 at the start
  EXPECT_LT(trial.Final("loss"), 0.02);
  std::printf("tiny LM: loss %.4f -> %.5f\n", trial.At(0, "loss"), trial.Final("loss"));
}

TEST(QkSpectrumTest, LocaterShrinksTheEigenvalueVariance) {
  std::string strong = kTinyLm;
  strong.replace(strong.find("lambda: 0"), 9, "lambda: 0.1");
  const double plain = RunText(kTinyLm, "lambda0").results[0]->Final("eig_var");
  const double regularized = RunText(strong, "lambda01").results[0]->Final("eig_var");
  EXPECT_LT(regularized, 0.2 * plain);
  std::printf("eigenvalue variance: lambda 0 -> %.4g, lambda 0.1 -> %.4g\n", plain, regularized);
}

// The whole model, penalty included: every parameter's gradient against finite differences.
TEST(QkSpectrumTest, ModelGradientsWithLocaterMatchFiniteDifferences) {
  auto parsed = ParseSpecText(kTinyLm, "tiny_lm.textproto");
  ASSERT_TRUE(parsed.ok());
  ModelSpec spec = parsed->spec.model();
  // Smaller, and a penalty large enough to matter.
  spec.mutable_layer(0)->mutable_config()->Clear();
  spec.mutable_regularizer(0)->mutable_config()->Clear();
  auto small = ParseSpecText(
      R"pb(model { layer { name: "embed" plugin: "embedding" config {
             vocab_size: 5 dim: 4 max_len: 3 } }
           layer { name: "block0" plugin: "transformer_block" config {
             ffn_hidden: 3
               attention { plugin: "attention" config {
                 heads: 2 qk_dim: 2 value_dim: 2 bias: true output_dim: 4 causal: true } } } }
           loss { plugin: "lm_cross_entropy" config {
             vocab_size: 5 bias: true } }
           regularizer { plugin: "locater" config {
             lambda: 0.7 } } })pb",
      "small.textproto");
  ASSERT_TRUE(small.ok()) << small.status();
  spec = small->spec.model();
  ExecContext ctx(4);
  auto model = Model<double>::Create(spec, {2, 3, 1}, {2, 3, 1}, ctx);
  ASSERT_TRUE(model.ok()) << model.status();
  Tensor<double> ids({2, 3, 1}), next({2, 3, 1});
  ids.flat() << 0, 4, 2, 1, 1, 3;
  next.flat() << 4, 2, 0, 1, 3, 3;
  absl::Status status = CheckModelGradients(**model, ids, next);
  EXPECT_TRUE(status.ok()) << status;
  (*model)->Forward(ids, ctx);
  (*model)->ComputeLoss(next, ctx);
  EXPECT_GT((*model)->last_penalty(), 0);
}

TEST(QkSpectrumTest, TwoBReusesEveryRunOfTwoA) {
  auto a = ReadSpecFile("experiments/qk_spectrum/2a.textproto");
  auto b = ReadSpecFile("experiments/qk_spectrum/2b.textproto");
  ASSERT_TRUE(a.ok() && b.ok());
  auto trials_a = ExpandSweep(a->spec), trials_b = ExpandSweep(b->spec);
  ASSERT_TRUE(trials_a.ok() && trials_b.ok());
  std::set<std::string> ids_b;
  for (const Trial& t : *trials_b) ids_b.insert(t.id);
  EXPECT_EQ(trials_a->size(), 25u);  // 5 regularizers x 5 seeds
  for (const Trial& t : *trials_a) EXPECT_EQ(ids_b.count(t.id), 1u) << t.id;
  EXPECT_EQ(a->spec.store(), b->spec.store());
}

}  // namespace
}  // namespace attnlab
