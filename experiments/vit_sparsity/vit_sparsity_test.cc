// Paper 1g, shortened: training the 1g ViT on the tiny Fashion-MNIST fixture makes its softmax
// attention sparser in both layers: ||W_Q W_K^T|| grows, the max-softmax rises, the attention
// entropy falls.
#include <cstdio>
#include <string>

#include "experiments/fashion_mnist_fixture.h"
#include "experiments/spec/field_path.h"
#include "experiments/trials/runner.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(VitSparsityTest, AttentionGrowsSparserInEveryLayer) {
  auto parsed = ReadSpecFile("experiments/vit_sparsity/1g.textproto");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExperimentSpec& spec = parsed->spec;
  UseFashionMnistFixture(&spec);
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"training.steps", "300"},
           {"training.batch_size", "64"},
           {"training.log_every", "0"},
           {"sweep.seed", "[1]"},
           {"report.step", "[0, 300]"}}) {
    ASSERT_TRUE(SetFieldFromText(&spec, field, value).ok()) << field;
  }
  RunOptions options;
  options.out_dir = ::testing::TempDir() + "/1g";
  options.progress = false;
  options.threads = 2;
  auto result = RunExperiment(*parsed, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->failed, 0) << result->errors[0];
  const TrialResult& trial = *result->results[0];
  for (const std::string layer : {"0", "1"}) {
    const double norm0 = trial.At(0, "qk_norm" + layer), norm = trial.Final("qk_norm" + layer);
    const double max0 = trial.At(0, "max_softmax" + layer),
                 max = trial.Final("max_softmax" + layer);
    const double ent0 = trial.At(0, "entropy" + layer), ent = trial.Final("entropy" + layer);
    std::printf("layer %s: ||W_QK|| %.4f -> %.4f, max-softmax %.4f -> %.4f, entropy %.4f -> %.4f\n",
                layer.c_str(), norm0, norm, max0, max, ent0, ent);
    EXPECT_GT(norm, norm0) << layer;
    EXPECT_GT(max, 1.2 * max0) << layer;
    EXPECT_LT(ent, ent0 - 0.05) << layer;
  }
  EXPECT_GT(trial.Final("test_acc"), 0.4);  // chance: 0.1
}

}  // namespace
}  // namespace attnlab
