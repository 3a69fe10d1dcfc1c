// Progress of a sweep on stderr. On a terminal, one status line redrawn in place: trials done
// of total, each running trial's step and loss, and an ETA (from the time trials trained: a
// stopped process's pause is left out); cleared before anything else is printed. Otherwise (a
// log file, a pipe, a batch job), the same status as a line of its own every `log_seconds`.
// Always, one line per finished trial.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_PROGRESS_BOARD_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_PROGRESS_BOARD_H_

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "experiments/trials/trial_runner.h"

namespace attnlab {

class ProgressBoard {
 public:
  // `total`: trials in the whole sweep; `prefix` starts every line (e.g. "rank 1: "); `out`:
  // the stream (a terminal when isatty says so).
  // `now`: the clock (tests pass their own).
  ProgressBoard(
      bool enabled, int total, std::string prefix, double log_seconds = 30, std::FILE* out = stderr,
      std::function<std::chrono::steady_clock::time_point()> now = std::chrono::steady_clock::now);
  // Clears the terminal's status line.
  ~ProgressBoard();

  void Update(int index, const std::string& id, const Progress& progress);
  // A finished (or reused, or failed) trial: its line, e.g. "done, loss 0.31 (2.1s)".
  void Finish(int index, const std::string& label, const std::string& what, double seconds);

 private:
  using Clock = std::chrono::steady_clock;
  std::string Status() const;  // with mutex_ held
  double Eta() const;          // seconds, or < 0 when no rate is measured yet
  struct Running;
  static bool IsPause(const Running& r, Clock::duration gap);
  static constexpr double kMinPauseSeconds = 120;

  const bool enabled_, tty_;
  const int total_;
  const std::string prefix_;
  const std::chrono::duration<double> log_interval_;
  std::FILE* const out_;
  const std::function<Clock::time_point()> now_;
  std::mutex mutex_;
  int done_ = 0;
  int finished_trained_ = 0;     // finished trials that trained (not reused)
  double finished_seconds_ = 0;  // their total time
  struct Running {
    std::string id;
    Progress progress;
    Clock::time_point first_time;  // the first update: the rate is measured from there
    int64_t first_step = 0;
    Clock::time_point last_time;
    // Gaps between updates too long to be training (the process stopped, e.g. SIGSTOP, or the
    // machine suspended): left out of the trial's rate and of its time in the ETA.
    Clock::duration paused{0};
    int64_t intervals = 0;  // the gaps counted as training
  };
  std::map<int, Running> running_;
  Clock::time_point last_draw_;
  bool drawn_ = false;  // a status line is on the terminal
};

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_PROGRESS_BOARD_H_
