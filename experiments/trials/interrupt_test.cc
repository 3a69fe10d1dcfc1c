#include "experiments/trials/interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

bool InterruptsBlockedHere() {
  sigset_t blocked;
  pthread_sigmask(SIG_BLOCK, nullptr, &blocked);
  return sigismember(&blocked, SIGINT) == 1 && sigismember(&blocked, SIGTERM) == 1;
}

// Threads that compute (this one and every one started after) never run a handler: the signal
// thread takes SIGTERM and asks to stop.
TEST(CatchInterrupts, OnlyTheSignalThreadTakesThem) {
  CatchInterrupts();
  EXPECT_TRUE(InterruptsBlockedHere());
  bool blocked_in_new_thread = false;
  std::thread([&] { blocked_in_new_thread = InterruptsBlockedHere(); }).join();
  EXPECT_TRUE(blocked_in_new_thread);
  EXPECT_EQ(InterruptSignal(), 0);
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  EXPECT_EQ(WaitForInterrupt(), SIGTERM);
  EXPECT_EQ(InterruptSignal(), SIGTERM);
}

TEST(CatchInterruptsDeathTest, TheSecondSignalEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child starts afresh, no signal seen
  EXPECT_EXIT(
      {
        CatchInterrupts();
        kill(getpid(), SIGINT);
        if (WaitForInterrupt() == SIGINT) kill(getpid(), SIGINT);
        for (;;) pause();  // until the second signal ends the process (it is blocked here)
      },
      testing::KilledBySignal(SIGINT), "");
}

}  // namespace
}  // namespace attnlab
