// Every experiment spec shipped in the repository parses, expands and builds every trial.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/spec/spec_loader.h"
#include "experiments/spec/sweep.h"
#include "experiments/trials/runner.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::vector<std::string> ShippedSpecs() {
  std::vector<std::string> specs;
  for (const auto& entry : std::filesystem::recursive_directory_iterator("experiments")) {
    const std::string path = entry.path().string();
    // Claims files (claims.proto) are checked by the claims tests.
    if (entry.path().extension() == ".textproto" && path.find("/testdata/") == std::string::npos &&
        entry.path().filename() != "claims.textproto") {
      specs.push_back(path);
    }
  }
  return specs;
}

TEST(AllSpecsTest, EverySpecBuilds) {
  const std::vector<std::string> specs = ShippedSpecs();
  EXPECT_GE(specs.size(), 4u);  // at least paper 1's 1a-1d
  std::vector<std::string> without_data;
  for (const std::string& path : specs) {
    auto parsed = ReadSpecFile(path);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    RunOptions options;
    options.dry_run = true;
    auto result = RunExperiment(*parsed, options);
    // Specs on ../shared or /usr/share data build only where that data is installed.
    if (result.status().code() == absl::StatusCode::kNotFound) {
      without_data.push_back(absl::StrCat(result.status().message()));
      continue;
    }
    EXPECT_TRUE(result.ok()) << result.status();
    EXPECT_FALSE(parsed->spec.name().empty()) << path << " has no name";
    EXPECT_FALSE(parsed->spec.description().empty()) << path << " has no description";
  }
  for (const std::string& message : without_data) std::cerr << "skipped: " << message << "\n";
  EXPECT_LT(without_data.size(), specs.size()) << "no spec's data is present";
}

// Configs are written without their type URLs (short_config.h); written out explicitly, as
// PrintSpec writes them, every spec reads the same and its trials keep their ids.
TEST(AllSpecsTest, EverySpecReadsAlikeWithExplicitConfigs) {
  for (const std::string& path : ShippedSpecs()) {
    auto short_form = ReadSpecFile(path);
    ASSERT_TRUE(short_form.ok()) << short_form.status();
    const std::string explicit_text = PrintSpec(short_form->spec);
    ASSERT_NE(explicit_text.find("[type.googleapis.com/"), std::string::npos) << path;
    auto explicit_form = ParseSpecText(explicit_text, path + " (explicit)");
    ASSERT_TRUE(explicit_form.ok()) << explicit_form.status();
    EXPECT_EQ(PrintSpec(explicit_form->spec), explicit_text) << path;
    auto short_trials = ExpandSweep(short_form->spec);
    auto explicit_trials = ExpandSweep(explicit_form->spec);
    ASSERT_TRUE(short_trials.ok() && explicit_trials.ok()) << path;
    ASSERT_EQ(short_trials->size(), explicit_trials->size()) << path;
    for (size_t i = 0; i < short_trials->size(); ++i) {
      EXPECT_EQ((*short_trials)[i].id, (*explicit_trials)[i].id) << path << " trial " << i;
    }
  }
}

}  // namespace
}  // namespace attnlab
