#include "datasets/data_path.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

constexpr char kSpecDir[] = "/repo/experiments/qk_spectrum";
constexpr char kWikiText[] = "../../../shared/data/wikitext-2/wiki.test.tokens";

TEST(DataPathTest, RelativePathsAreRelativeToTheSpec) {
  unsetenv("ATTNLAB_SHARED_DATA");
  EXPECT_EQ(ResolveDataPath(kWikiText, kSpecDir),
            "/repo/experiments/qk_spectrum/../../../shared/data/wikitext-2/wiki.test.tokens");
  EXPECT_EQ(ResolveDataPath("tiny/a.idx", kSpecDir), "/repo/experiments/qk_spectrum/tiny/a.idx");
  EXPECT_EQ(ResolveDataPath("/abs/a.idx", kSpecDir), "/abs/a.idx");
  EXPECT_EQ(ResolveDataPath("a.idx", ""), "a.idx");
}

TEST(DataPathTest, SharedDataIsFoundWhereTheEnvironmentSays) {
  setenv("ATTNLAB_SHARED_DATA", "/data/papers", 1);
  EXPECT_EQ(ResolveDataPath(kWikiText, kSpecDir), "/data/papers/wikitext-2/wiki.test.tokens");
  EXPECT_EQ(ResolveDataPath("shared/data/cifar/x.bin", kSpecDir), "/data/papers/cifar/x.bin");
  // Only a folder named exactly shared/data, and only relative paths.
  EXPECT_EQ(ResolveDataPath("myshared/data/x.bin", kSpecDir),
            "/repo/experiments/qk_spectrum/myshared/data/x.bin");
  EXPECT_EQ(ResolveDataPath("/srv/shared/data/x.bin", kSpecDir), "/srv/shared/data/x.bin");
  unsetenv("ATTNLAB_SHARED_DATA");
}

TEST(DataPathTest, AMissingSharedFileSaysHowToPointAtTheData) {
  const absl::Status missing = CheckDataFile("/nowhere/shared/data/wikitext-2/wiki.test.tokens");
  EXPECT_TRUE(absl::IsNotFound(missing));
  EXPECT_NE(missing.message().find("ATTNLAB_SHARED_DATA"), std::string::npos) << missing;
  const absl::Status other = CheckDataFile("/nowhere/a.idx");
  EXPECT_TRUE(absl::IsNotFound(other));
  EXPECT_EQ(other.message().find("ATTNLAB_SHARED_DATA"), std::string::npos) << other;
}

}  // namespace
}  // namespace attnlab
