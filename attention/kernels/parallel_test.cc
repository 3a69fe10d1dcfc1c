// ParallelFor and ParallelForContiguous cover [0, n) with disjoint ranges; the contiguous form
// makes one range per thread, fixed in advance. (Their subnormal mode: subnormal_mode_test.)
#include "attention/kernels/parallel.h"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

using Ranges = std::vector<std::pair<int, int>>;

template <typename Loop>
Ranges RangesOf(int threads, int n, int grain, const Loop& loop) {
  ExecContext ctx(1, threads);
  tbb::task_arena arena(threads);
  Ranges ranges;
  std::mutex mutex;
  arena.execute([&] {
    loop(ctx, n, [&](int begin, int end) {
      std::lock_guard<std::mutex> lock(mutex);
      ranges.push_back({begin, end});
    }, grain);
  });
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

void ExpectCover(const Ranges& ranges, int n) {
  ASSERT_FALSE(ranges.empty());
  EXPECT_EQ(ranges.front().first, 0);
  EXPECT_EQ(ranges.back().second, n);
  for (size_t i = 0; i + 1 < ranges.size(); ++i) EXPECT_EQ(ranges[i].second, ranges[i + 1].first);
}

TEST(ParallelTest, ContiguousMakesOneRangePerThread) {
  auto contiguous = [](ExecContext& ctx, int n, const auto& body, int grain) {
    ParallelForContiguous(ctx, n, body, grain);
  };
  EXPECT_EQ(RangesOf(2, 1025, 1, contiguous), (Ranges{{0, 512}, {512, 1025}}));
  EXPECT_EQ(RangesOf(3, 10, 1, contiguous), (Ranges{{0, 3}, {3, 6}, {6, 10}}));
  EXPECT_EQ(RangesOf(1, 1000, 1, contiguous), (Ranges{{0, 1000}}));
  // Fewer than 2 grains: the calling thread alone.
  EXPECT_EQ(RangesOf(2, 15, 8, contiguous), (Ranges{{0, 15}}));
  EXPECT_EQ(RangesOf(2, 16, 8, contiguous), (Ranges{{0, 8}, {8, 16}}));
}

TEST(ParallelTest, ParallelForCoversTheItems) {
  auto tasks = [](ExecContext& ctx, int n, const auto& body, int grain) {
    ParallelFor(ctx, n, body, grain);
  };
  for (int n : {1, 7, 1000}) {
    const Ranges ranges = RangesOf(2, n, 4, tasks);
    ExpectCover(ranges, n);
    // TBB splits a range while it holds more than a grain: halves of one at the least.
    for (const auto& [begin, end] : ranges) EXPECT_TRUE(end - begin >= 2 || ranges.size() == 1);
  }
}

}  // namespace
}  // namespace attnlab
