#include "attention/kernels/product_timing.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(ProductTimingTest, TimingsCoverEveryClassAndPickTheFastest) {
  const std::vector<ProductClassTiming> timings = TimeProductClasses(/*repeats=*/1);
  ASSERT_EQ(timings.size(), size_t(kProductClasses));
  for (int c = 0; c < kProductClasses; ++c) {
    const ProductClassTiming& t = timings[c];
    SCOPED_TRACE(ProductClassName(c));
    EXPECT_EQ(t.product_class, c);
    EXPECT_EQ(
        ProductClass(t.rows, t.cols, t.depth, PartsOf(c).lhs_transposed, PartsOf(c).strided_rhs),
        c);
    EXPECT_GT(t.tiled_us, 0);
    EXPECT_GT(t.libxsmm_us, 0);
    EXPECT_GT(t.onednn_us, 0);
    // In order of preference: the first within 10% of the fastest is chosen.
    const double times[] = {t.onednn_us, t.libxsmm_us, t.tiled_us};
    const double fastest = std::min({times[0], times[1], times[2]});
    const int chosen = t.chosen == ProductBackend::kOneDnn    ? 0
                       : t.chosen == ProductBackend::kLibxsmm ? 1
                                                              : 2;
    EXPECT_LE(times[chosen], fastest * 1.10);
    for (int before = 0; before < chosen; ++before) EXPECT_GT(times[before], fastest * 1.10);
  }
  const ProductChoices choices = ChoicesOf(timings);
  for (int c = 0; c < kProductClasses; ++c) EXPECT_EQ(choices[c], timings[c].chosen);
  // The table: a header, then a line a class ending in its chosen backend.
  const std::vector<std::string> lines =
      absl::StrSplit(ProductTimingsTable(timings), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), size_t(kProductClasses) + 1);
  EXPECT_TRUE(absl::EndsWith(lines[1], ProductBackendName(timings[0].chosen))) << lines[1];
  EXPECT_EQ(GetProductBackend(), ProductBackend::kChosen);  // left as it was
}

}  // namespace
}  // namespace attnlab
