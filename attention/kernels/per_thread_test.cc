// PerThread: each thread of an arena gets its own value, kept from loop to loop; a thread
// outside any arena gets slot 0.
#include "attention/kernels/per_thread.h"

#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "gtest/gtest.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

TEST(PerThreadTest, OutsideAnArenaTheCallerKeepsOneValue) {
  PerThread<int> value;
  value.Prepare();
  value.Local() = 5;
  EXPECT_EQ(value.Local(), 5);
}

TEST(PerThreadTest, ThreadsOfAnArenaNeverShareAValue) {
  PerThread<int> counts;
  std::mutex mutex;
  std::set<std::pair<std::thread::id, int*>> seen;  // (thread, its slot)
  tbb::task_arena arena(2);
  arena.execute([&] {
    counts.Prepare();
    for (int pass = 0; pass < 3; ++pass) {
      tbb::parallel_for(0, 20000, [&](int) {
        int& mine = counts.Local();
        ++mine;  // unsynchronized: a slot shared by two threads would lose increments
        std::lock_guard<std::mutex> lock(mutex);
        seen.insert({std::this_thread::get_id(), &mine});
      });
    }
  });
  // A worker may hand its arena slot to another (never both at once), so slots, not threads,
  // are what is counted: at most one per arena thread, and not one increment lost.
  std::set<int*> slots;
  int total = 0;
  for (const auto& [thread, slot] : seen) {
    if (slots.insert(slot).second) total += *slot;
  }
  EXPECT_LE(slots.size(), 2u);
  EXPECT_EQ(total, 3 * 20000);
  // Two threads' values never share a cache line (nor the pair the spatial prefetcher fetches).
  if (slots.size() == 2) {
    const auto first = reinterpret_cast<intptr_t>(*slots.begin());
    const auto second = reinterpret_cast<intptr_t>(*slots.rbegin());
    EXPECT_GE(second - first, 128);
  }
}

}  // namespace
}  // namespace attnlab
