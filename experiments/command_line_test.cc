#include "experiments/command_line.h"

#include <sched.h>
#include <stdlib.h>

#include <thread>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(DefaultThreadsTest, NoMoreThanTheCoresThisProcessMayRunOn) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  EXPECT_GE(DefaultThreads(), 1);
  EXPECT_LE(DefaultThreads(), std::min(cores, CPU_COUNT(&allowed)));
  // Bound to one core, as mpirun binds a rank: one thread.
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const int bound = DefaultThreads();
  ASSERT_EQ(sched_setaffinity(0, sizeof(allowed), &allowed), 0);
  EXPECT_EQ(bound, 1);
}

TEST(DefaultThreadsTest, TheMachinesCoresAreSharedByItsRanks) {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  const int half = DefaultThreads();
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "100000", 1);
  const int crowded = DefaultThreads();
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  EXPECT_LE(half, std::max(1, cores / 2));
  EXPECT_EQ(crowded, 1);
}

}  // namespace
}  // namespace attnlab
