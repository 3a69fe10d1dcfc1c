// A stack overflow in the thread that installed the handlers still prints its stack: the
// handler has a stack of its own there (without one the kernel kills the process silently).
#include <csignal>

#include "experiments/trials/crash_stack.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

// Recurses until the stack runs out (no stack holds a billion frames of a kilobyte); the
// volatile frame keeps it from becoming a loop.
__attribute__((noinline)) int Overflow(int depth) {
  if (depth == 1 << 30) return 0;
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  return Overflow(depth + 1) + frame[0];
}

TEST(CrashStackDeathTest, StackOverflowPrintsTheStack) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        PrintStackOnCrash("crash_stack_overflow_test");
        Overflow(0);
      },
      testing::KilledBySignal(SIGSEGV),
      "SIGSEGV: the stack of the thread that crashed:\n.*Overflow");
}

}  // namespace
}  // namespace attnlab
