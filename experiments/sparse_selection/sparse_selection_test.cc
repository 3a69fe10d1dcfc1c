// Paper 3 reproduced in shortened form: the outcomes TARGETS.md asks of 3a, 3c and 3d, asserted
// on the shipped specs with a shorter schedule (1,500 steps of 128 samples at eta = 10 instead of
// 100,000 of 256 at eta = 1; eta = 10 diverges after ~2,000 steps, so it is for tests only).
// 3b's are the quick claims 3b-fixed and 3b-learned (//experiments:claims_quick_test_sparse_selection).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "experiments/spec/field_path.h"
#include "experiments/trials/runner.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

constexpr int kSteps = 1500;

ParsedSpec Load(const std::string& name) {
  auto parsed = ReadSpecFile("experiments/sparse_selection/" + name + ".textproto");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return *parsed;
}

void Set(ParsedSpec* parsed, const std::string& field, const std::string& value) {
  absl::Status status = SetFieldFromText(&parsed->spec, field, value);
  ASSERT_TRUE(status.ok()) << status;
}

// 3a's schedule shortened: eta 10, 1,500 steps of 128 samples, logged every 100.
void Shorten(ParsedSpec* parsed) {
  Set(parsed, "optimizer", "{ plugin: \"gd\" lr: 10 }");
  Set(parsed, "training.steps", std::to_string(kSteps));
  Set(parsed, "training.batch_size", "128");
  Set(parsed, "training.log_every", "100");
  Set(parsed, "training.log_step", "[]");
  Set(parsed, "report", "{}");
  Set(parsed, "sweep.seed", "[0]");
}

ExperimentResult RunSpec(const ParsedSpec& parsed, const std::string& out) {
  RunOptions options;
  options.out_dir = ::testing::TempDir() + "/" + out;
  options.progress = false;
  auto result = RunExperiment(parsed, options);
  EXPECT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->failed, 0);
  return *result;
}

// 3a: the loss falls below 30% of its start and cos(W, I) passes 0.95, for both samplers of
// the stochastic encodings (PROJECTED, the spec's, and FULL, every entry drawn).
TEST(SparseSelectionTest, Setup3aLearnsSparseAveraging) {
  for (const char* sampler : {"PROJECTED", "FULL"}) {
    ParsedSpec spec = Load("3a");
    Shorten(&spec);
    Set(&spec, "model.layer[0].config.sampler", sampler);
    const ExperimentResult result = RunSpec(spec, std::string("3a_") + sampler);
    const TrialResult& trial = *result.results[0];
    EXPECT_LT(trial.Final("loss"), 0.3 * trial.At(0, "loss")) << sampler;
    EXPECT_LT(trial.Final("err_T200"), 0.3 * trial.At(0, "err_T200")) << sampler;
    EXPECT_GT(trial.Final("cos_w_identity"), 0.95) << sampler;
    EXPECT_GT(trial.Final("mass_on_y"), 10 * trial.At(0, "mass_on_y")) << sampler;  // 3/200 at 0
    std::printf("3a %s: loss %.4f -> %.4f, cos(W, I) %.4f, mass on y %.3f\n", sampler,
                trial.At(0, "loss"), trial.Final("loss"), trial.Final("cos_w_identity"),
                trial.Final("mass_on_y"));
  }
}

// 3d_floor, shortened to a few c around the optimum: the best W = cI loss falls with d_e, and
// with unit-norm encodings (sphere, Rademacher) it is far below the normal encodings'.
TEST(SparseSelectionTest, Setup3dMonteCarloFloorFallsWithWidthAndUnitNorms) {
  ParsedSpec spec = Load("3d_floor");
  Set(&spec, "sweep.axis[1].point", R"([{ label: "170" },
      { label: "680" set { field: "model.layer[0].config.encoding_dim" value: "680" } }])");
  Set(&spec, "sweep.axis[2].value", R"(["5", "6", "7", "8"])");
  Set(&spec, "training.batch_size", "500");
  Set(&spec, "dataset.config.validation_size", "500");
  const ExperimentResult result = RunSpec(spec, "3d_floor");
  std::map<std::string, double> floor;  // "encodings d_e" -> min over c of err_T200
  for (size_t i = 0; i < result.trials.size(); ++i) {
    const auto& labels = result.trials[i].labels;
    const std::string key = labels[0].second + " " + labels[1].second;
    const double err = result.results[i]->Final("err_T200");
    floor[key] = floor.count(key) ? std::min(floor[key], err) : err;
  }
  for (const auto& [key, value] : floor) std::printf("3d floor %s: %.4f\n", key.c_str(), value);
  EXPECT_LT(floor["normal 680"], floor["normal 170"] - 0.05);
  EXPECT_LT(floor["sphere 170"], floor["normal 170"] - 0.05);
  EXPECT_LT(floor["rademacher 170"], floor["normal 170"] - 0.05);
}

// 3d and 3d_encodings shortened: trained, the floor falls with d_e (170 to 340, eta scaled with
// it), and with unit-norm encodings.
TEST(SparseSelectionTest, Setup3dTrainedFloorFallsWithWidthAndUnitNorms) {
  ParsedSpec width = Load("3d");
  Shorten(&width);
  Set(&width, "sweep.axis[0].point", R"([{ label: "170" },
      { label: "340" set { field: "model.layer[0].config.encoding_dim" value: "340" }
                     set { field: "optimizer.lr" value: "20" } }])");
  Set(&width, "dataset.config.validation_size", "500");
  const ExperimentResult widths = RunSpec(width, "3d");
  const double err170 = widths.results[0]->Final("err_T200");
  const double err340 = widths.results[1]->Final("err_T200");
  std::printf("3d trained: d_e 170 %.4f, 340 %.4f\n", err170, err340);
  EXPECT_LT(err340, err170 - 0.03);

  ParsedSpec encodings = Load("3d_encodings");
  Shorten(&encodings);
  Set(&encodings, "sweep.axis[0].point", R"([{ label: "normal" },
      { label: "sphere" set { field: "model.layer[0].config.sampler" value: "FULL" }
                        set { field: "model.layer[0].config.distribution" value: "SPHERE" } }])");
  Set(&encodings, "dataset.config.validation_size", "500");
  // In 3d's store: its normal trial is 3d's d_e = 170 one, reused.
  const ExperimentResult distributions = RunSpec(encodings, "3d");
  const double normal = distributions.results[0]->Final("err_T200");
  const double sphere = distributions.results[1]->Final("err_T200");
  std::printf("3d_encodings trained: normal %.4f, sphere %.4f\n", normal, sphere);
  EXPECT_LT(sphere, normal - 0.03);
}

// 3c: an FC net with as many parameters as the transformer (m = 24: 28,949 against 28,900)
// stays at an error at least 3x the transformer's.
TEST(SparseSelectionTest, Setup3cFcNetOfComparableSizeFails) {
  ParsedSpec spec = Load("3c");
  const std::string schedule =
      "training { steps: " + std::to_string(kSteps) + " batch_size: 256 log_every: 500 }";
  Set(&spec, "sweep.axis[0].value",
      "['model { dtype: FLOAT loss { plugin: \"squared\" } layer { name: \"attention\" "
      "plugin: \"sparse_select\" config { [type.googleapis.com/attnlab.plugins.SparseSelectConfig] "
      "{ encoding_dim: 170 sampler: PROJECTED } } } } optimizer { plugin: \"gd\" lr: 10 } " + schedule + "',"
      "'model { dtype: FLOAT loss { plugin: \"squared\" } layer { name: \"mlp\" plugin: \"fc_net\" "
      "config { [type.googleapis.com/attnlab.plugins.FcNetConfig] { hidden: 24 output_dim: 5 "
      "init: TORCH_LINEAR } } } } "
      "optimizer { plugin: \"adam\" lr: 0.001 } " + schedule + "']");
  Set(&spec, "sweep.axis[0].label", "['attention', 'fc m=24']");
  Set(&spec, "sweep.seed", "[0]");
  const ExperimentResult result = RunSpec(spec, "3c");
  const TrialResult& attention = *result.results[0];
  const TrialResult& fc = *result.results[1];
  EXPECT_NEAR(fc.Final("params"), attention.Final("params"), 100);
  EXPECT_GT(fc.Final("err_T200"), 3 * attention.Final("err_T200"));
  EXPECT_TRUE(std::isnan(fc.Final("err_T400")));  // an FC net takes one length only
  std::printf("3c: attention (%g params) %.4f, fc (%g params) %.4f\n", attention.Final("params"),
              attention.Final("err_T200"), fc.Final("params"), fc.Final("err_T200"));
}

}  // namespace
}  // namespace attnlab
