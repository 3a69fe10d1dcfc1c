// ParallelFor and ParallelForGuided cover [0, n) with disjoint ranges; the guided form hands
// out runs of consecutive items, largest first. (Their subnormal mode: subnormal_mode_test.)
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

// Runs of consecutive items, largest first: (items left) / (2 threads), at least a grain.
TEST(ParallelTest, GuidedHandsOutShrinkingRuns) {
  auto guided = [](ExecContext& ctx, int n, const auto& body, int grain) {
    ParallelForGuided(ctx, n, body, grain);
  };
  // Whichever thread takes a run, the runs are the same.
  EXPECT_EQ(RangesOf(2, 100, 8, guided),
            (Ranges{{0, 25}, {25, 43}, {43, 57}, {57, 67}, {67, 75}, {75, 83}, {83, 91},
                    {91, 99}, {99, 100}}));
  const Ranges runs = RangesOf(2, 1024, 8, guided);
  ExpectCover(runs, 1024);
  EXPECT_EQ(runs.front(), (std::pair<int, int>{0, 256}));
  EXPECT_LE(runs.size(), 24u);
  EXPECT_EQ(RangesOf(1, 1000, 1, guided), (Ranges{{0, 1000}}));
  // Fewer than 2 grains: the calling thread alone.
  EXPECT_EQ(RangesOf(2, 15, 8, guided), (Ranges{{0, 15}}));
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
