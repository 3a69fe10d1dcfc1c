#include "experiments/trials/side_by_side.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "gtest/gtest.h"
#include "tbb/global_control.h"

namespace attnlab {
namespace {

TEST(ForEachSideBySide, CallsEveryItemOnce) {
  std::vector<std::atomic<int>> calls(37);
  ForEachSideBySide(2, 37, [&](int k) { ++calls[k]; });
  for (int k = 0; k < 37; ++k) EXPECT_EQ(calls[k].load(), 1) << "item " << k;
}

// The first item (a long trial) holds its thread until every other item has run: only another
// thread can run them, and it must, rather than wait for items queued behind the first. The
// wait's limit only ends a failing test; a passing one never reaches it.
TEST(ForEachSideBySide, AFreeThreadStartsTheItemsQueuedBehindARunningOne) {
  tbb::global_control two_threads(tbb::global_control::max_allowed_parallelism, 2);
  constexpr int kItems = 64;
  std::mutex mutex;
  std::condition_variable others_done;
  int finished = 0;
  bool first_saw_all = false;
  ForEachSideBySide(2, kItems, [&](int k) {
    std::unique_lock<std::mutex> lock(mutex);
    if (k != 0) {
      if (++finished == kItems - 1) others_done.notify_all();
      return;
    }
    first_saw_all = others_done.wait_for(lock, std::chrono::seconds(30),
                                         [&] { return finished == kItems - 1; });
  });
  EXPECT_TRUE(first_saw_all) << finished << " of " << kItems - 1
                             << " other items ran while the first held its thread";
}

}  // namespace
}  // namespace attnlab
