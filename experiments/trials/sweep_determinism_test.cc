// A trial's metrics depend only on its resolved spec: bit-identical with 1 or 2 threads, both
// when trials run side by side and when one trial's batch is split across the threads.
#include <fstream>
#include <sstream>

#include "experiments/spec/field_path.h"
#include "experiments/trials/runner.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ExperimentResult RunWithThreads(const ParsedSpec& spec, int threads, const std::string& out) {
  RunOptions options;
  options.out_dir = ::testing::TempDir() + "/" + out;
  options.threads = threads;
  options.progress = false;
  auto result = RunExperiment(spec, options);
  EXPECT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->failed, 0);
  return *result;
}

void ExpectIdenticalFiles(const ExperimentResult& result, const std::string& a,
                          const std::string& b) {
  const std::string dir = ::testing::TempDir() + "/";
  for (const Trial& trial : result.trials) {
    const std::string one = Read(dir + a + "/" + trial.id + "/metrics.csv");
    ASSERT_FALSE(one.empty());
    EXPECT_EQ(one, Read(dir + b + "/" + trial.id + "/metrics.csv")) << trial.id;
  }
  EXPECT_EQ(Read(dir + a + "/summary.csv"), Read(dir + b + "/summary.csv"));
}

TEST(SweepDeterminismTest, EightTrialsSideBySide) {
  auto spec = ReadSpecFile("experiments/testdata/sweep.textproto");
  ASSERT_TRUE(spec.ok()) << spec.status();
  const ExperimentResult one = RunWithThreads(*spec, 1, "side_1");
  RunWithThreads(*spec, 2, "side_2");
  ExpectIdenticalFiles(one, "side_1", "side_2");
}

TEST(SweepDeterminismTest, OneTrialSplitAcrossThreads) {
  auto spec = ReadSpecFile("experiments/testdata/sweep.textproto");
  ASSERT_TRUE(spec.ok());
  spec->spec.clear_sweep();  // one trial: the threads split its batches
  ASSERT_TRUE(SetFieldFromText(&spec->spec, "training.batch_size", "256").ok());
  const ExperimentResult one = RunWithThreads(*spec, 1, "split_1");
  RunWithThreads(*spec, 2, "split_2");
  ExpectIdenticalFiles(one, "split_1", "split_2");
}

}  // namespace
}  // namespace attnlab
