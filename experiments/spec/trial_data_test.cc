#include "experiments/spec/trial_data.h"

#include <cstdlib>

#include "attention/base/files.h"
#include "experiments/spec/experiment.pb.h"
#include "experiments/spec/spec_loader.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

ExperimentSpec Spec(const std::string& text) {
  absl::StatusOr<ParsedSpec> parsed = ParseSpecText(text, "t.textproto");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? parsed->spec : ExperimentSpec();
}

TEST(TrialDataTest, FindsEveryMarkedPathResolvedLikeTheReaders) {
  const ExperimentSpec lm = Spec(R"pb(
    dataset { plugin: "wikitext" config {
      train: "data/train.tokens"
      validation { name: "a" path: "/abs/valid.tokens" }
      validation { name: "b" path: "data/train.tokens" }
    } })pb");
  EXPECT_EQ(DataFilePaths(lm, "/specs"),
            (std::vector<std::string>{"/specs/data/train.tokens", "/abs/valid.tokens"}));
  const ExperimentSpec images = Spec(R"pb(
    dataset { plugin: "images" config {
      format: IDX
      train { images: "i.gz" labels: "l.gz" }
      validation { name: "test" images: "ti.gz" labels: "tl.gz" }
    } })pb");
  EXPECT_EQ(DataFilePaths(images, ""),
            (std::vector<std::string>{"i.gz", "l.gz", "ti.gz", "tl.gz"}));
  EXPECT_TRUE(DataFilePaths(Spec("dataset { plugin: 'sparse_selection' config { seq_len: 5 } }"), "/x").empty());
}

TEST(TrialDataTest, HashFollowsTheContent) {
  setenv("XDG_CACHE_HOME", (::testing::TempDir() + "/cache").c_str(), 1);
  const std::string path = ::testing::TempDir() + "/tokens.txt";
  ASSERT_TRUE(WriteFileAtomically(path, "the cat sat\n").ok());
  auto first = FingerprintDataFiles({path});
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].size, 12u);
  EXPECT_EQ((*first)[0].hash.size(), 16u);
  // Asked again: the same answer (from the cache or not).
  EXPECT_EQ(FingerprintDataFiles({path})->at(0).hash, (*first)[0].hash);
  // The same size, other bytes, written at once: a new hash (a file changed within its
  // timestamps' resolution is never taken from the cache).
  ASSERT_TRUE(WriteFileAtomically(path, "the dog sat\n").ok());
  auto second = FingerprintDataFiles({path});
  ASSERT_TRUE(second.ok());
  EXPECT_NE((*second)[0].hash, (*first)[0].hash);
  // Another path to the same file: one canonical path.
  auto linked = FingerprintDataFiles({::testing::TempDir() + "/./tokens.txt"});
  ASSERT_TRUE(linked.ok());
  EXPECT_EQ((*linked)[0].path, (*second)[0].path);
}

TEST(TrialDataTest, MissingFileIsNotFound) {
  auto missing = FingerprintDataFiles({::testing::TempDir() + "/nope"});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nope: cannot read"), absl::string_view::npos);
}

}  // namespace
}  // namespace attnlab
