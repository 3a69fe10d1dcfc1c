// Paper 4b, shortened: the 4b ViT (softmax, and RPC as the authors attack it: PAP with 2
// iterations in every block) trains on the tiny Fashion-MNIST fixture to well above chance,
// and the attacks, as the authors run them (on the model's predicted labels; PGD-20 in steps
// of 0.15 eps from a random start), are real: FGSM lowers accuracy, more with a larger
// epsilon, and PGD-20 lowers it at least as much as FGSM.
#include <cstdio>
#include <string>

#include "experiments/fashion_mnist_fixture.h"
#include "experiments/spec/field_path.h"
#include "experiments/trials/runner.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(RpcRobustnessTest, VitTrainsAboveChanceAndAttacksLowerAccuracy) {
  auto parsed = ReadSpecFile("experiments/rpc_robustness/4b.textproto");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExperimentSpec& spec = parsed->spec;
  UseFashionMnistFixture(&spec);
  // 150 steps of 64 (about 10 passes over the fixture), evaluation on all 500 test images.
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"training.steps", "150"},
           {"training.batch_size", "64"},
           {"training.log_every", "0"},
           {"sweep.seed", "[1]"},
           {"sweep.axis[0].point", R"([
              { label: "softmax" },
              { label: "rpc_all_n2_l4"
                set { field: "model.layer[1].config.attention.config.mechanism" value: "rpc" }
                set { field: "model.layer[1].config.attention.config.mechanism_config"
                      value: "{ iterations: 2 }" }
                set { field: "model.layer[2].config.attention.config.mechanism" value: "rpc" }
                set { field: "model.layer[2].config.attention.config.mechanism_config"
                      value: "{ iterations: 2 }" }
              }])"},
           {"metric", R"([
              { name: "clean" plugin: 'accuracy' config { set: "test" } },
              { name: "fgsm6" plugin: 'accuracy' config { set: "test" fgsm { epsilon: 0.0235294 }
                                         attack_labels: PREDICTED_LABELS } final_only: true },
              { name: "fgsm_big" plugin: 'accuracy' config { set: "test" fgsm { epsilon: 0.1 }
                                            attack_labels: PREDICTED_LABELS } final_only: true },
              { name: "pgd6" plugin: 'accuracy' config { set: "test" pgd { epsilon: 0.0235294 step_size: 0.0035294
                                                          random_start: true }
                                        attack_labels: PREDICTED_LABELS } final_only: true }])"},
           {"report.metric", R"(["clean", "fgsm6", "fgsm_big", "pgd6"])"}}) {
    ASSERT_TRUE(SetFieldFromText(&spec, field, value).ok()) << field;
  }
  RunOptions options;
  options.out_dir = ::testing::TempDir() + "/4b";
  options.progress = false;
  options.threads = 2;
  auto result = RunExperiment(*parsed, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->failed, 0) << result->errors[0];
  ASSERT_EQ(result->results.size(), 2u);
  for (size_t i = 0; i < result->results.size(); ++i) {
    const TrialResult& trial = *result->results[i];
    const std::string label = result->trials[i].labels[0].second;
    const double clean = trial.Final("clean"), fgsm6 = trial.Final("fgsm6");
    const double fgsm_big = trial.Final("fgsm_big"), pgd6 = trial.Final("pgd6");
    std::printf("%s: clean %.3f, FGSM 6/255 %.3f, FGSM 0.1 %.3f, PGD-20 6/255 %.3f\n",
                label.c_str(), clean, fgsm6, fgsm_big, pgd6);
    EXPECT_GT(clean, 0.4) << label;  // chance: 0.1
    // An attack that does nothing drops exactly 0. Over seeds 1-6 the smallest 6/255 drop was
    // 0.030 (RPC); experiments/rpc_robustness/README.md has the sweep.
    EXPECT_LT(fgsm6, clean - 0.02) << label;
    EXPECT_LT(fgsm_big, fgsm6 - 0.1) << label;
    EXPECT_LE(pgd6, fgsm6 + 0.01) << label;
  }
}

}  // namespace
}  // namespace attnlab
