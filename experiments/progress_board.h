// Progress of a sweep on stderr. On a terminal, one status line redrawn in place: trials done
// of total, each running trial's step and loss, and an ETA. Always, one line per finished
// trial (all that shows when stderr is a file or a pipe).
#ifndef ATTNLAB_EXPERIMENTS_PROGRESS_BOARD_H_
#define ATTNLAB_EXPERIMENTS_PROGRESS_BOARD_H_

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "experiments/trial_runner.h"

namespace attnlab {

class ProgressBoard {
 public:
  // `total`: trials in the whole sweep; `prefix` starts every line (e.g. "rank 1: ").
  ProgressBoard(bool enabled, int total, std::string prefix);

  void Update(int index, const std::string& id, const Progress& progress);
  // A finished (or reused, or failed) trial: its line, e.g. "done, loss 0.31 (2.1s)".
  void Finish(int index, const std::string& label, const std::string& what, double seconds);

 private:
  void Redraw();  // with mutex_ held

  const bool enabled_, tty_;
  const int total_;
  const std::string prefix_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  int done_ = 0;
  struct Running {
    std::string id;
    Progress progress;
  };
  std::map<int, Running> running_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_PROGRESS_BOARD_H_
