#include "experiments/trials/runner.h"
#include "experiments/trials/summary_table.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "attention/plugin_registry.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

// 1/2 (f - y)^2, mean over samples, recording the batch size of every call: which passes a
// trial ran.
std::vector<int> squared_loss_batches;
template <typename T>
class RecordingSquaredLoss : public Loss<T> {
 public:
  absl::Status Check(const Shape& p, const Shape& t) const override {
    return p == t ? absl::OkStatus() : absl::InvalidArgumentError("shapes differ");
  }
  T Compute(const Tensor<T>& p, const Tensor<T>& t, Tensor<T>* grad, ExecContext&) override {
    squared_loss_batches.push_back(p.batch());
    const T n = static_cast<T>(p.batch());
    if (grad != nullptr) {
      grad->Resize(p.shape());
      grad->flat() = (p.flat() - t.flat()) / n;
    }
    return static_cast<T>(0.5) * (p.flat() - t.flat()).squaredNorm() / n;
  }
};
ATTNLAB_REGISTER_LOSS("recording_squared", RecordingSquaredLoss, "test: squared, recording");

// Paper 1's model on two tiny sequences, swept over two initial prompts.
constexpr char kSpec[] = R"pb(name: "tiny"
model {
  layer {
    name: "attention"
    plugin: "prompt"
    config {
      scale: 1  # paper 1's scores have no 1/sqrt(d)
      w { init: IDENTITY frozen: true }
      v { value: [ 0, 1 ] frozen: true }
    }
  }
  loss { plugin: "logistic" }
}
dataset {
  plugin: "sequences" config {
    sequence { token { x: [ 1, 1 ] } token { x: [ 0, 0.5 ] } }
    sequence { token { x: [ -1, 1 ] } token { x: [ 0.5, 0 ] } }
  }
}
optimizer { plugin: "normalized_gd" lr: 0.1 }
training { steps: 20 log_every: 10 }
metric { name: "corr" plugin: "max_margin" config { layer: "attention" } }
sweep {
  axis {
    name: "p0"
    field: "model.layer[0].config.p.value"
    value: [ "[0, 0]", "[1, 0]" ]
  }
}
report { step: [ 10, 20 ] }
)pb";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class RunnerTest : public ::testing::Test {
 protected:
  absl::StatusOr<ExperimentResult> Run(const std::string& text, const std::string& out,
                                       int threads = 1) {
    auto parsed = ParseSpecText(text, "tiny.textproto");
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    RunOptions options;
    options.out_dir = ::testing::TempDir() + "/" + out;
    options.progress = false;
    options.threads = threads;
    return RunExperiment(*parsed, options);
  }
};

TEST_F(RunnerTest, WritesTheOutputContract) {
  auto result = Run(kSpec, "contract");
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->trials.size(), 2u);
  EXPECT_EQ(result->failed, 0);
  const std::string dir = ::testing::TempDir() + "/contract";
  const std::string summary = Read(dir + "/summary.csv");
  EXPECT_EQ(summary.substr(0, summary.find('\n')), "trial,p0,seed,status,loss,corr,code,commit");
  const std::string& id = result->trials[1].id;
  EXPECT_NE(summary.find(id + ",\"[1, 0]\",0,ok,"), std::string::npos) << summary;
  const std::string metrics = Read(dir + "/" + id + "/metrics.csv");
  EXPECT_EQ(metrics.substr(0, metrics.find('\n')), "step,metric,value");
  EXPECT_NE(metrics.find("\n20,corr,"), std::string::npos);
  EXPECT_NE(Read(dir + "/" + id + "/spec.textproto").find("value: 1"), std::string::npos);
  // The table shows every report step of every trial.
  const std::string table = SummaryTable(ParseSpecText(kSpec, "spec")->spec, *result);
  EXPECT_EQ(table.substr(0, table.find('\n')).substr(0, 5), "trial");
  EXPECT_NE(table.find("p0"), std::string::npos) << table;
  EXPECT_NE(table.find(id), std::string::npos) << table;
  // A spec without the sweep (ASan found the table reading past its header): still one
  // column per label.
  const std::string plain = SummaryTable(ExperimentSpec(), *result);
  EXPECT_NE(plain.find("p0"), std::string::npos) << plain;
}

TEST_F(RunnerTest, RerunReusesFinishedTrialsBitIdentically) {
  auto first = Run(kSpec, "rerun");
  auto second = Run(kSpec, "rerun");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->reused, 0);
  EXPECT_EQ(second->reused, 2);
  for (size_t i = 0; i < 2; ++i) {
    const auto& a = first->results[i]->points;
    const auto& b = second->results[i]->points;
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].value, b[k].value);  // %.17g round trip
  }
}

// Runs as one sweep: each run's results are its own run's, a trial two runs share trains once,
// and every run keeps its own summary beside the store's.
TEST_F(RunnerTest, RunsAsOneSweepShareTrialsAndMatchSeparateRuns) {
  auto alone = Run(kSpec, "alone", /*threads=*/2);
  ASSERT_TRUE(alone.ok()) << alone.status();
  std::string longer = kSpec;
  longer.replace(longer.find("steps: 20"), 9, "steps: 30");
  auto alone_longer = Run(longer, "alone_longer", /*threads=*/2);
  ASSERT_TRUE(alone_longer.ok()) << alone_longer.status();

  auto parsed = ParseSpecText(kSpec, "tiny.textproto");
  auto parsed_longer = ParseSpecText(longer, "tiny.textproto");
  ASSERT_TRUE(parsed.ok() && parsed_longer.ok());
  RunOptions options;
  options.out_dir = ::testing::TempDir() + "/together";
  options.progress = false;
  options.threads = 2;
  squared_loss_batches.clear();
  auto together = RunExperiments({{&*parsed, options, "run a: ", "", "summary.a.csv"},
                                  {&*parsed_longer, options, "run b: ", "", "summary.b.csv"},
                                  {&*parsed, options, "run c: ", "", "summary.c.csv"}});
  ASSERT_TRUE(together.ok()) << together.status();
  ASSERT_EQ(together->size(), 3u);
  const std::vector<const ExperimentResult*> expected = {&*alone, &*alone_longer, &*alone};
  for (int r = 0; r < 3; ++r) {
    const ExperimentResult& got = (*together)[r];
    ASSERT_EQ(got.trials.size(), 2u);
    EXPECT_EQ(got.failed, 0);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(got.trials[i].id, expected[r]->trials[i].id);
      const auto& a = got.results[i]->points;
      const auto& b = expected[r]->results[i]->points;
      ASSERT_EQ(a.size(), b.size());
      for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].value, b[k].value) << r << " " << i;
    }
  }
  // Run c reads run a's trials: neither trained nor loaded again.
  EXPECT_EQ((*together)[0].reused, 0);
  EXPECT_EQ((*together)[2].reused, 2);
  const std::string a = Read(options.out_dir + "/summary.a.csv");
  const std::string b = Read(options.out_dir + "/summary.b.csv");
  EXPECT_NE(a.find((*together)[0].trials[0].id), std::string::npos) << a;
  EXPECT_EQ(a.find((*together)[1].trials[0].id), std::string::npos) << a;
  EXPECT_NE(b.find((*together)[1].trials[0].id), std::string::npos) << b;
}

// A spec error in any run stops all of them before a trial trains, naming the run.
TEST_F(RunnerTest, RunsAsOneSweepStopOnAnyRunsSpecError) {
  auto good = ParseSpecText(kSpec, "tiny.textproto");
  std::string bad_text = kSpec;
  bad_text.replace(bad_text.find("normalized_gd"), 13, "no_such_optimizer");
  auto bad = ParseSpecText(bad_text, "bad.textproto");
  ASSERT_TRUE(good.ok() && bad.ok());
  RunOptions options;
  options.out_dir = ::testing::TempDir() + "/one_bad";
  options.progress = false;
  auto result =
      RunExperiments({{&*good, options, "run a: ", "", ""}, {&*bad, options, "run b: ", "", ""}});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StartsWith(result.status().message(), "run b: ")) << result.status();
  EXPECT_FALSE(std::ifstream(options.out_dir + "/summary.csv").good());
}

TEST_F(RunnerTest, AFailingTrialDoesNotStopTheOthers) {
  // With p0 = [1, 0] on a sequence whose two tokens coincide, ... instead make the ATT-SVM
  // infeasible for every trial except through the sweep: sequence 1's tokens become equal.
  std::string spec = kSpec;
  spec.replace(spec.find("axis {"), 0,
               "axis { name: \"dup\" field: \"dataset.config.sequence[1].token[1].x\" "
               "value: [\"[0.5, 0]\", \"[-1, 1]\"] }\n  ");
  auto result = Run(spec, "failing");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->trials.size(), 4u);
  EXPECT_EQ(result->failed, 2);
  EXPECT_NE(result->errors[2].find("ATT-SVM infeasible"), std::string::npos) << result->errors[2];
  const std::string summary = Read(::testing::TempDir() + "/failing/summary.csv");
  EXPECT_NE(summary.find(",failed: metric 'corr' at step 0: ATT-SVM infeasible"),
            std::string::npos)
      << summary;
}

// The divergence guard: a trial whose loss or gradients go NaN or Inf stops with the step and
// where it started, is recorded as failed, and the sweep goes on.
TEST_F(RunnerTest, ADivergedTrialStopsAloneAndSaysWhere) {
  std::string spec = kSpec;
  // A step size that overflows p to Inf after a few steps.
  spec.replace(spec.find("axis {"), 0,
               "axis { name: \"lr\" field: \"optimizer.lr\" value: [\"0.1\", \"1e308\"] }\n  ");
  auto result = Run(spec, "diverged");
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->trials.size(), 4u);  // (lr, p0): (0.1, [0, 0]), (0.1, [1, 0]), (1e308, ...)
  EXPECT_EQ(result->failed, 2);
  EXPECT_TRUE(result->results[0].has_value());
  EXPECT_TRUE(result->results[1].has_value());
  for (int i : {2, 3}) {
    EXPECT_TRUE(absl::StartsWith(result->errors[i], "diverged at step ")) << result->errors[i];
    EXPECT_TRUE(absl::EndsWith(result->errors[i], "first non-finite: parameter 'attention/p'"))
        << result->errors[i];
  }
  const std::string summary = Read(::testing::TempDir() + "/diverged/summary.csv");
  EXPECT_NE(summary.find(",failed: diverged at step "), std::string::npos) << summary;
}

// A non-finite number in a trial's spec (here a sweep value) is a spec error before anything
// runs, located in the file with the trial named (it trained and diverged at step 0).
TEST_F(RunnerTest, NonFiniteSpecValuesAreSpecErrors) {
  std::string spec = kSpec;
  spec.replace(spec.find("value: [ \"[0, 0]\", \"[1, 0]\" ]"), 32,
               "value: [ \"[0, 0]\", \"[nan, 0]\" ]");
  auto result = Run(spec, "nan");
  EXPECT_TRUE(absl::IsInvalidArgument(result.status()));
  EXPECT_EQ(std::string(result.status().message()),
            "tiny.textproto:6:5: model.layer[0].config.p.value[0]: must be a finite number, got "
            "nan (trial p0=[nan, 0] seed=0)");
}

TEST_F(RunnerTest, SpecErrorsAreLocatedAndNothingRuns) {
  std::string spec = kSpec;
  spec.replace(spec.find("\"logistic\""), 10, "\"logistik\"");
  auto result = Run(spec, "bad");
  EXPECT_TRUE(absl::IsInvalidArgument(result.status()));
  const std::string message(result.status().message());
  EXPECT_TRUE(absl::StartsWith(
      message, "tiny.textproto:12:10: model.loss.plugin: unknown loss plugin 'logistik'; known: "
               "correlation, "))
      << message;
  EXPECT_TRUE(absl::StrContains(message, ", logistic, ")) << message;
  EXPECT_TRUE(absl::EndsWith(message, " (trial p0=[0, 0] seed=0)")) << message;
  std::ifstream summary(::testing::TempDir() + "/bad/summary.csv");
  EXPECT_FALSE(summary.good());
}

// A shortened run (--set=training.steps=...) drops the log and report steps past its end, with
// a note (it failed with hints that led nowhere).
TEST_F(RunnerTest, StepsPastTheEndAreDroppedWithANote) {
  std::string spec = kSpec;
  spec.replace(spec.find("steps: 20 log_every: 10"), 23, "steps: 20 log_every: 10 log_step: [30]");
  spec.replace(spec.find("step: [ 10, 20 ]"), 16, "step: [ 10, 20, 30 ]");
  auto result = Run(spec, "past");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->notes, (std::vector<std::string>{
                               "report.step 30 is past training.steps (20): not shown",
                               "training.log_step 30 is past training.steps (20): not logged"}));
  const std::string table = SummaryTable(ParseSpecText(spec, "spec")->spec, *result);
  EXPECT_NE(table.find(" 20 "), std::string::npos) << table;
  EXPECT_EQ(table.find(" 30 "), std::string::npos) << table;
}

TEST_F(RunnerTest, ReportStepsMustBeLogged) {
  std::string spec = kSpec;
  spec.replace(spec.find("step: [ 10, 20 ]"), 16, "step: [ 15 ]");
  auto result = Run(spec, "report");
  EXPECT_EQ(std::string(result.status().message()),
            "tiny.textproto:30:10: report.step: step 15 is not logged; add it to "
            "training.log_step");
}

// A trial keeps its parameters and the ATT-SVM it solved at the report steps, as .npy files.
TEST_F(RunnerTest, TrialsKeepParameterSnapshotsAndReferenceSolutions) {
  auto result = Run(kSpec, "arrays");
  ASSERT_TRUE(result.ok()) << result.status();
  const TrialResult& trial = *result->results[1];
  const NpyArray& steps = trial.arrays.at("params/steps");
  EXPECT_EQ(steps.shape, (std::vector<int64_t>{2}));  // report steps 10 and 20
  const NpyArray& p = trial.arrays.at("params/attention/p");
  EXPECT_EQ(p.shape, (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(p.dtype, "<f8");
  const NpyArray& p_mm = trial.arrays.at("solutions/corr/p_mm");
  EXPECT_EQ(p_mm.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(trial.arrays.at("solutions/corr/p_mm_support").shape,
            (std::vector<int64_t>{2, 2, 2}));  // snapshots x sequences x tokens
  EXPECT_EQ(trial.arrays.at("solutions/corr/p_mm_kkt").shape, (std::vector<int64_t>{2, 4}));
  // The printed corr at step 20 is the correlation of the two stored vectors.
  const double* ps = reinterpret_cast<const double*>(p.data.data()) + 2;
  const double* ms = reinterpret_cast<const double*>(p_mm.data.data()) + 2;
  const double corr = (ps[0] * ms[0] + ps[1] * ms[1]) /
                      (std::hypot(ps[0], ps[1]) * std::hypot(ms[0], ms[1]));
  EXPECT_NEAR(corr, trial.At(20, "corr"), 1e-15);
  // On disk, beside metrics.csv.
  const std::string dir = ::testing::TempDir() + "/arrays/" + result->trials[1].id;
  EXPECT_EQ(Read(dir + "/params/attention/p.npy").substr(1, 5), "NUMPY");
  EXPECT_EQ(Read(dir + "/solutions/corr/p_mm.npy").size(), 128 + 2 * 2 * sizeof(double));
}

TEST_F(RunnerTest, ZeroStepsEvaluatesWithoutTraining) {
  std::string spec = kSpec;
  spec.replace(spec.find("steps: 20 log_every: 10"), 23, "steps: 0");
  spec.replace(spec.find("report { step: [ 10, 20 ] }"), 27, "");
  auto result = Run(spec, "evaluate");
  ASSERT_TRUE(result.ok()) << result.status();
  const TrialResult& trial = *result->results[1];
  ASSERT_EQ(trial.points.size(), 2u);  // loss and corr, at step 0 only
  EXPECT_EQ(trial.points[0].step, 0);
  EXPECT_EQ(trial.points[1].metric, "corr");
  const NpyArray& p = trial.arrays.at("params/attention/p");  // p0 = [1, 0], untouched
  EXPECT_EQ(reinterpret_cast<const double*>(p.data.data())[0], 1.0);
  EXPECT_EQ(reinterpret_cast<const double*>(p.data.data())[1], 0.0);
}

// One gradient step from p = 0 with a subnormal learning rate (1e-310, below double's smallest
// normal number 2.2e-308): p moves to a subnormal -1e-310 g where the trial keeps subnormals and
// stays exactly 0 where it flushes them (the default), on either thread count.
TEST_F(RunnerTest, TrialsRunInTheSpecsSubnormalMode) {
  for (const bool keep : {false, true}) {
    for (const int threads : {1, 2}) {
      std::string spec = kSpec;
      spec.replace(spec.find("optimizer { plugin: \"normalized_gd\" lr: 0.1 }"), 45,
                   "optimizer { plugin: 'gd' lr: 1e-310 }");
      spec.replace(spec.find("steps: 20 log_every: 10"), 23, "steps: 1 log_every: 1");
      spec.replace(spec.find("report { step: [ 10, 20 ] }"), 27, "report { step: [ 1 ] }");
      if (keep) spec.replace(spec.find("model {"), 7, "model { subnormals: KEEP");
      auto result = Run(spec, absl::StrCat("subnormals_", keep, "_", threads), threads);
      ASSERT_TRUE(result.ok()) << result.status();
      const NpyArray& p = result->results[0]->arrays.at("params/attention/p");  // p0 = [0, 0]
      ASSERT_EQ(p.shape, (std::vector<int64_t>{1, 2, 1}));  // step 1 only
      const double* at_step_1 = reinterpret_cast<const double*>(p.data.data());
      for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(absl::StrCat("keep ", keep, ", threads ", threads, ", p[", i, "]"));
        if (keep) {
          EXPECT_EQ(std::fpclassify(at_step_1[i]), FP_SUBNORMAL) << at_step_1[i];
        } else {
          EXPECT_EQ(at_step_1[i], 0.0);
        }
      }
    }
  }
}

// Paper 1's model on five sequences, trained by plain GD on the squared loss.
constexpr char kFiveSequences[] = R"pb(name: "five"
model {
  layer {
    name: "attention"
    plugin: "prompt"
    config {
      scale: 1
      p { value: [ 0.5, -0.25 ] }
      w { init: IDENTITY frozen: true }
      v { value: [ 0, 1 ] }
    }
  }
  loss { plugin: "recording_squared" }
}
dataset {
  plugin: "sequences" config {
    sequence { label: 1 token { x: [ 1, 1 ] } token { x: [ 0, 0.5 ] } }
    sequence { label: -1 token { x: [ -1, 1 ] } token { x: [ 0.5, 0 ] } }
    sequence { label: 1 token { x: [ 0.3, -1 ] } token { x: [ 1, 0.2 ] } }
    sequence { label: 1 token { x: [ 2, 0.1 ] } token { x: [ -0.4, 0.7 ] } }
    sequence { label: -1 token { x: [ 0.2, 0.9 ] } token { x: [ -1, -1 ] } }
  }
}
optimizer { plugin: "gd" lr: 0.5 }
training { steps: 20 log_every: 10 }
metric { name: "entropy" plugin: "attention_entropy" config { layer: "attention" } }
report { step: [ 20 ] }
)pb";

// Micro-batches of 2 run the five sequences as 2 + 2 + 1 at every step, and the trial ends where
// the whole-batch trial does (the same update in another order of sums), at 1 and 2 threads;
// a metric that reads the training forward pass sees the whole batch's.
TEST_F(RunnerTest, MicroBatchesMakeTheBatchsUpdate) {
  auto final_params = [&](const std::string& spec, const std::string& out, int threads) {
    auto result = Run(spec, out, threads);
    EXPECT_TRUE(result.ok()) << result.status();
    std::vector<double> values = {result->results[0]->At(20, "entropy")};
    for (const char* name : {"params/attention/p", "params/attention/v"}) {
      const NpyArray& array = result->results[0]->arrays.at(name);
      const double* data = reinterpret_cast<const double*>(array.data.data());
      values.insert(values.end(), data, data + array.data.size() / sizeof(double));
    }
    return values;
  };
  squared_loss_batches.clear();
  const std::vector<double> whole = final_params(kFiveSequences, "whole_batch", 1);
  EXPECT_EQ(squared_loss_batches, std::vector<int>(21, 5));  // steps 0-20

  std::string spec = kFiveSequences;
  spec.replace(spec.find("steps: 20 log_every: 10"), 23,
               "steps: 20 log_every: 10 micro_batch_size: 2");
  for (int threads : {1, 2}) {
    squared_loss_batches.clear();
    const std::vector<double> micro = final_params(spec, absl::StrCat("micro_", threads), threads);
    std::vector<int> expected;
    for (int step = 0; step <= 20; ++step) expected.insert(expected.end(), {2, 2, 1});
    EXPECT_EQ(squared_loss_batches, expected);
    ASSERT_EQ(micro.size(), whole.size());
    for (size_t i = 0; i < whole.size(); ++i) {
      EXPECT_NEAR(micro[i], whole[i], 1e-13 * (1 + std::abs(whole[i]))) << "parameter entry " << i;
    }
    EXPECT_GT(std::abs(whole[1] - 0.5), 1e-3) << "p did not move: nothing was compared";
  }
}

// Paper 3's attention with stochastic positional encodings, drawn in every forward pass: a
// trial in micro-batches ends on the same bits whether it logs a metric that reads the training
// forward pass (an extra whole-batch forward at each logged step) at every step or never.
TEST_F(RunnerTest, LoggingInMicroBatchesLeavesTheRandomStream) {
  constexpr char kStochastic[] = R"pb(name: "spe"
model {
  dtype: FLOAT
  layer {
    name: "attention"
    plugin: "sparse_select"
    config {
      encoding_dim: 16 positional: STOCHASTIC
    }
  }
  loss { plugin: "squared" }
}
dataset { plugin: "sparse_selection" config { seq_len: 20 q: 3 dim: 5 } }
optimizer { plugin: "gd" lr: 1 }
training { steps: 6 batch_size: 8 micro_batch_size: 3 LOGGING }
metric { name: "mass_on_y" plugin: "marked_attention" config { layer: "attention" } }
report { step: [ 6 ] }
)pb";
  auto final_w = [&](const std::string& logging, const std::string& out) {
    std::string spec = kStochastic;
    spec.replace(spec.find("LOGGING"), 7, logging);
    auto result = Run(spec, out);
    EXPECT_TRUE(result.ok()) << result.status();
    return result->results[0]->arrays.at("params/attention/w").data;
  };
  const std::string every_step = final_w("log_every: 1", "log_every_step");
  const std::string never = final_w("log_every: 0", "log_never");
  EXPECT_FALSE(every_step.empty());
  EXPECT_TRUE(every_step == never) << "the final W depends on how often the trial logs";
}

TEST_F(RunnerTest, MicroBatchSizeMustNotBeNegative) {
  std::string spec = kFiveSequences;
  spec.replace(spec.find("steps: 20 log_every: 10"), 23, "steps: 20 micro_batch_size: -1");
  auto result = Run(spec, "negative_micro");
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StrContains(result.status().message(), "training.micro_batch_size"))
      << result.status();
}

TEST_F(RunnerTest, RatiosOfMetricsAtTheStepsBothAreLogged) {
  std::string spec = kSpec;
  spec.replace(spec.find("metric {"), 0,
               "metric { name: \"p_norm\" plugin: \"param_norm\" config { param: \"attention/p\" } }\n"
               "metric { name: \"norm_per_corr\" plugin: \"ratio\" config { numerator: \"p_norm\" "
               "denominator: \"corr\" } }\n");
  auto result = Run(spec, "ratio");
  ASSERT_TRUE(result.ok()) << result.status();
  const TrialResult& trial = *result->results[1];
  for (int64_t step : {0, 10, 20}) {
    EXPECT_EQ(trial.At(step, "norm_per_corr"), trial.At(step, "p_norm") / trial.At(step, "corr"));
  }
  spec.replace(spec.find("denominator: \"corr\""), 20, "denominator: \"cor\"");
  EXPECT_EQ(std::string(Run(spec, "ratio_bad").status().message()),
            "tiny.textproto:23:77: metric[1].config.denominator: no other metric 'cor'; metrics: "
            "loss, p_norm, corr (trial p0=[0, 0] seed=0)");
}

// A dataset, an optimizer and a metric, each a registered plugin named in the spec (the
// templates in plugins/): the prompt layer learns to retrieve the highest-scoring token, so its
// attention concentrates and its validation loss falls.
TEST_F(RunnerTest, PluginDatasetsOptimizersAndMetricsRunInASpec) {
  constexpr char kPlugins[] = R"pb(name: "plugins"
model {
  layer {
    name: "attention"
    plugin: "prompt"
    config { value_dim: 4 }
  }
  loss { plugin: "squared" }
}
dataset {
  plugin: "max_token_retrieval"
  config {
    seq_len: 8 dim: 4 validation_size: 256
  }
  seed: 3
}
optimizer {
  plugin: "sign_gd"
  config { momentum: 0.9 }
  lr: 0.01
}
training { steps: 300 batch_size: 32 log_every: 100 }
metric { name: "val" plugin: "validation_loss" config { set: "test" } }
metric {
  name: "top1"
  plugin: "attention_top_mass"
  config { layer: "attention" }
}
)pb";
  auto result = Run(kPlugins, "plugins");
  ASSERT_TRUE(result.ok()) << result.status();
  const TrialResult& trial = *result->results[0];
  EXPECT_DOUBLE_EQ(trial.At(0, "top1"), 1.0 / 8);  // p = 0: uniform attention
  EXPECT_GT(trial.At(300, "top1"), 0.3);
  EXPECT_LT(trial.At(300, "val"), 0.7 * trial.At(0, "val"));
  // A plugin's mistakes name its spec line and field, as a layer's do.
  std::string unknown = kPlugins;
  unknown.replace(unknown.find("\"sign_gd\""), 9, "\"sign_sgd\"");
  // (The known list grows with every optimizer plugin: its start and one name are checked.)
  const std::string unknown_error(ParseSpecText(unknown, "tiny.textproto").status().message());
  EXPECT_EQ(unknown_error.rfind("tiny.textproto:18:3: optimizer.plugin: unknown optimizer plugin "
                                "'sign_sgd'; known: adam, ",
                                0),
            0u)
      << unknown_error;
  EXPECT_NE(unknown_error.find(", sign_gd"), std::string::npos) << unknown_error;
  std::string bad_k = kPlugins;
  bad_k.replace(bad_k.find("layer: \"attention\" }"), 0, "k: 0 ");
  EXPECT_EQ(std::string(Run(bad_k, "plugins_bad_k").status().message()),
            "tiny.textproto:27:12: metric[1].config.k: must be >= 1, got 0");
}

// A frozen parameter's gradient may be left at zero (the prompt layer skips V's): its norm is
// refused rather than logged as 0.
TEST_F(RunnerTest, GradNormOfAFrozenParameterIsRefused) {
  std::string spec = kSpec;
  spec.replace(spec.find("metric {"), 0,
               "metric { name: \"v_grad\" plugin: \"grad_norm\" config { param: \"attention/v\" } }\n");
  EXPECT_EQ(std::string(Run(spec, "frozen_grad").status().message()),
            "tiny.textproto:22:54: metric[0].config.param: 'attention/v' is frozen: it has no "
            "gradient (trial p0=[0, 0] seed=0)");
  spec.replace(spec.find("param: \"attention/v\""), 21, "param: \"attention/p\"");
  EXPECT_TRUE(Run(spec, "p_grad").ok());
}

TEST_F(RunnerTest, TrainingStepsAreRequired) {
  std::string spec = kSpec;
  spec.replace(spec.find("steps: 20 log_every: 10"), 23, "log_every: 10");
  auto result = Run(spec, "no_steps");
  EXPECT_EQ(std::string(result.status().message()),
            "tiny.textproto:21:1: training.steps: missing required field 'steps' (0: evaluate "
            "only) (trial p0=[0, 0] seed=0)");
}

// summary.csv has one column per name: an axis may not take a metric's or a fixed column's.
TEST_F(RunnerTest, SweepColumnsMustNotClash) {
  for (const char* name : {"loss", "corr", "seed", "status", "trial"}) {
    std::string spec = kSpec;
    spec.replace(spec.find("name: \"p0\""), 11, absl::StrCat("name: \"", name, "\""));
    auto result = Run(spec, "clash");
    EXPECT_TRUE(absl::IsInvalidArgument(result.status())) << name;
    EXPECT_TRUE(absl::StartsWith(
        result.status().message(),
        absl::StrCat("tiny.textproto:25:5: sweep.axis[0].name: the column '", name, "' is ")))
        << result.status();
  }
  std::string two_axes = kSpec;
  two_axes.replace(two_axes.find("axis {"), 0,
                   "axis { name: \"p0\" field: \"optimizer.lr\" value: [\"0.1\"] }\n  ");
  auto result = Run(two_axes, "clash2");
  EXPECT_EQ(std::string(result.status().message()),
            "tiny.textproto:26:5: sweep.axis[1].name: the column 'p0' is another axis's column; "
            "rename the axis");
}

}  // namespace
}  // namespace attnlab
