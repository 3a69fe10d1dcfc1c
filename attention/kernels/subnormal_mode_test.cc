// ScopedSubnormalMode flushes subnormal results and inputs to zero and restores the mode after;
// ParallelFor runs every task in its caller's mode, whatever mode the worker was left in.
#include "attention/kernels/subnormal_mode.h"

#include <atomic>
#include <thread>
#include <vector>

#include "attention/exec_context.h"
#include "attention/kernels/parallel.h"
#include "gtest/gtest.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

#if defined(__SSE__)

// 1e-30 * 1e-10 = 1e-40, below float's smallest normal number (1.18e-38): a subnormal.
float TinyProduct() {
  volatile float a = 1e-30f, b = 1e-10f;
  return a * b;
}

// A subnormal input, plus zero: itself, or 0 where inputs are flushed.
float SubnormalPlusZero() {
  volatile float subnormal = 1e-40f, zero = 0.0f;
  return subnormal + zero;
}

TEST(SubnormalModeTest, FlushesResultsAndInputsThenRestores) {
  ScopedSubnormalMode keep(false);
  EXPECT_FALSE(FlushesSubnormals());
  EXPECT_GT(TinyProduct(), 0.0f);
  EXPECT_GT(SubnormalPlusZero(), 0.0f);
  {
    ScopedSubnormalMode flush(true);
    EXPECT_TRUE(FlushesSubnormals());
    EXPECT_EQ(TinyProduct(), 0.0f);
    EXPECT_EQ(SubnormalPlusZero(), 0.0f);
    {
      ScopedSubnormalMode inner(false);
      EXPECT_GT(TinyProduct(), 0.0f);
    }
    EXPECT_TRUE(FlushesSubnormals());
    EXPECT_EQ(TinyProduct(), 0.0f);
  }
  EXPECT_FALSE(FlushesSubnormals());
  EXPECT_GT(TinyProduct(), 0.0f);
}

// Runs ParallelFor (or ParallelForGuided) over enough items that the arena's second thread
// takes some; returns each item's TinyProduct and counts the items run off the calling thread.
std::vector<float> TinyProductsInParallel(bool guided, int* off_caller) {
  ExecContext ctx(1, /*threads=*/2);
  const int n = 2000;
  std::vector<float> values(n, -1.0f);
  std::atomic<int> others{0};
  const std::thread::id caller = std::this_thread::get_id();
  auto body = [&](int begin, int end) {
    if (std::this_thread::get_id() != caller) others += end - begin;
    for (int i = begin; i < end; ++i) {
      values[i] = TinyProduct();
      for (volatile int spin = 0; spin < 2000; spin = spin + 1) {
      }  // long enough a task that the worker joins
    }
  };
  if (guided) {
    ParallelForGuided(ctx, n, body);
  } else {
    ParallelFor(ctx, n, body);
  }
  *off_caller = others;
  return values;
}

void ExpectTasksInTheCallersMode(bool guided) {
  ScopedSubnormalMode restored_after(false);  // the loops below may leave this thread changed
  tbb::task_arena arena(2);
  arena.execute([&] {
    for (bool flush : {true, false}) {
      // Leave the workers in the other mode first, as a library that sets it and never
      // restores would.
      tbb::parallel_for(0, 64, [&](int) {
        _mm_setcsr(flush ? _mm_getcsr() & ~0x8040u : _mm_getcsr() | 0x8040u);
        for (volatile int spin = 0; spin < 20000; spin = spin + 1) {
        }
      });
      ScopedSubnormalMode mode(flush);
      // Until the second thread has taken items (on a loaded machine it may join late).
      int off_caller = 0;
      for (int attempt = 0; attempt < 1000 && off_caller == 0; ++attempt) {
        const std::vector<float> values = TinyProductsInParallel(guided, &off_caller);
        for (size_t i = 0; i < values.size(); ++i) {
          if (flush) {
            ASSERT_EQ(values[i], 0.0f) << "item " << i;
          } else {
            ASSERT_GT(values[i], 0.0f) << "item " << i;
          }
        }
      }
      EXPECT_GT(off_caller, 0) << "the second thread took no items: nothing was tested";
    }
  });
}

TEST(SubnormalModeTest, ParallelForRunsTasksInTheCallersMode) {
  ExpectTasksInTheCallersMode(/*guided=*/false);
}

TEST(SubnormalModeTest, ParallelForGuidedRunsTasksInTheCallersMode) {
  ExpectTasksInTheCallersMode(/*guided=*/true);
}

#else

TEST(SubnormalModeTest, NoModeOutsideX86) {
  ScopedSubnormalMode flush(true);
  EXPECT_FALSE(FlushesSubnormals());
}

#endif

}  // namespace
}  // namespace attnlab
