#include "experiments/trials/progress_board.h"

#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::string Contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, n);
  return text;
}

// Not a terminal (a log file): status lines of their own, at most one per interval (here every
// update), and the finished trials' lines; no terminal control sequences.
TEST(ProgressBoardTest, LogFilesGetStatusLines) {
  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  {
    ProgressBoard board(true, 2, "", /*log_seconds=*/1e-9, log);
    board.Update(0, "abcdef123456", {10, 100, 0.5});
    board.Update(0, "abcdef123456", {20, 100, 0.25});
    board.Finish(0, "abcdef123456 lr=1", "done, loss 0.1", 1.5);
  }
  const std::string text = Contents(log);
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_EQ(text.rfind("[0/2 done] abcdef 10/100 loss 0.5;", 0), 0u) << text;
  EXPECT_NE(text.find("\n[0/2 done] abcdef 20/100 loss 0.25;"), std::string::npos) << text;
  EXPECT_NE(text.find("\n[1/2] abcdef123456 lr=1 done, loss 0.1 (1.50s)\n"), std::string::npos)
      << text;
  std::fclose(log);
}

TEST(ProgressBoardTest, LogLinesWaitForTheInterval) {
  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  {
    ProgressBoard board(true, 1, "rank 1: ", /*log_seconds=*/3600, log);
    board.Update(0, "abcdef123456", {10, 100, 0.5});  // within the first hour: nothing
    board.Finish(0, "abcdef123456", "done", 2);
  }
  EXPECT_EQ(Contents(log), "rank 1: [1/1] abcdef123456 done (2.00s)\n");
  std::fclose(log);
}

// The ETA from measured rates: a trial at 100 steps/s with 800 of 1,000 steps left needs 8 s;
// two trials not started, at the 10 s a trial takes, spread over the 2 running side by side:
// 10 s more.
TEST(ProgressBoardTest, EtaFromMeasuredRates) {
  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  std::chrono::steady_clock::time_point now;
  {
    ProgressBoard board(true, 4, "", 1e-9, log, [&] { return now; });
    board.Update(0, "aaaaaa", {0, 1000, 1});
    board.Update(1, "bbbbbb", {0, 1000, 1});
    now += std::chrono::seconds(2);
    board.Update(0, "aaaaaa", {200, 1000, 1});
    now += std::chrono::milliseconds(1);  // past the (tiny) interval between lines
    board.Update(1, "bbbbbb", {200, 1000, 1});
  }
  const std::string text = Contents(log);
  EXPECT_NE(text.find("[0/4 done] aaaaaa 200/1000 loss 1; bbbbbb 200/1000 loss 1; ETA 18s\n"),
            std::string::npos)
      << text;
  std::fclose(log);
}

// A pause (the process stopped for an hour) counts neither in a running trial's rate nor in a
// finished trial's time. Both trials: 200 steps in 2 s, an hour stopped, then on. Trial 0 at
// 301 steps after 3 s of training has 699 left (7.0 s at 100.3 steps/s), trial 1 at 201 after
// 2 s has 799 (7.95 s), and the trial not started takes the 10 s a trial takes, over the 2
// running: ETA 13 s. Trial 0 then finishes after 3,610 s of wall time, 10 s of it training;
// trial 1 at 301 has 7.0 s left, and the last trial takes 10 s after it: ETA 17 s.
TEST(ProgressBoardTest, PausesAreNotTrainingTime) {
  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  std::chrono::steady_clock::time_point now;
  {
    ProgressBoard board(true, 3, "", 1e-9, log, [&] { return now; });
    auto both_at = [&](int64_t step) {
      board.Update(0, "aaaaaa", {step, 1000, 1});
      board.Update(1, "bbbbbb", {step, 1000, 1});
    };
    both_at(0);
    now += std::chrono::seconds(1);
    both_at(100);
    now += std::chrono::seconds(1);
    both_at(200);
    now += std::chrono::hours(1);
    both_at(201);
    now += std::chrono::seconds(1);
    board.Update(0, "aaaaaa", {301, 1000, 1});
    board.Finish(0, "aaaaaa", "done", 3610);
    now += std::chrono::milliseconds(1);
    board.Update(1, "bbbbbb", {301, 1000, 1});
  }
  const std::string text = Contents(log);
  EXPECT_NE(text.find("[0/3 done] aaaaaa 301/1000 loss 1; bbbbbb 201/1000 loss 1; ETA 13s\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[1/3] aaaaaa done (3610.00s)\n[1/3 done] bbbbbb 301/1000 loss 1; ETA 17s\n"),
            std::string::npos)
      << text;
  std::fclose(log);
}

}  // namespace
}  // namespace attnlab
