#include "experiments/trials/progress_board.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace attnlab {
namespace {

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

ProgressBoard::ProgressBoard(bool enabled, int total, std::string prefix, double log_seconds,
                             std::FILE* out, std::function<Clock::time_point()> now)
    : enabled_(enabled),
      tty_(enabled && isatty(fileno(out))),
      total_(total),
      prefix_(std::move(prefix)),
      log_interval_(log_seconds),
      out_(out),
      now_(std::move(now)),
      last_draw_(now_()) {}

ProgressBoard::~ProgressBoard() {
  if (drawn_) std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

void ProgressBoard::Update(int index, const std::string& id, const Progress& progress) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = now_();
  auto [it, fresh] = running_.try_emplace(index);
  Running& r = it->second;
  if (fresh) {
    r.id = id;
    r.first_time = now;
    r.first_step = progress.step;
  } else if (IsPause(r, now - r.last_time)) {
    r.paused += now - r.last_time;
  } else {
    ++r.intervals;
  }
  r.progress = progress;
  r.last_time = now;
  if (tty_) {
    if (now - last_draw_ < std::chrono::milliseconds(250)) return;
    std::fprintf(out_, "\r\033[K%s", Status().c_str());
    drawn_ = true;
  } else {
    if (now - last_draw_ < log_interval_) return;
    std::fprintf(out_, "%s\n", Status().c_str());
  }
  last_draw_ = now;
  std::fflush(out_);
}

void ProgressBoard::Finish(int index, const std::string& label, const std::string& what,
                           double seconds) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto it = running_.find(index); it != running_.end()) {
    // It trained (a reused trial never reports progress).
    ++finished_trained_;
    finished_seconds_ += std::max(0.0, seconds - Seconds(it->second.paused));
    running_.erase(it);
  }
  ++done_;
  std::fprintf(out_, "%s%s[%d/%d] %s %s (%.2fs)\n", tty_ ? "\r\033[K" : "", prefix_.c_str(), done_,
               total_, label.c_str(), what.c_str(), seconds);
  drawn_ = false;
  if (tty_ && !running_.empty()) {
    std::fprintf(out_, "%s", Status().c_str());
    drawn_ = true;
  }
  std::fflush(out_);
}

bool ProgressBoard::IsPause(const Running& r, Clock::duration gap) {
  // Updates come every 250 ms of training or every step, and a logged step's metrics can take
  // a while: only a gap of minutes and far beyond the trial's usual one is a pause.
  if (r.intervals == 0) return false;
  const double usual = Seconds(r.last_time - r.first_time - r.paused) / r.intervals;
  return Seconds(gap) > std::max(kMinPauseSeconds, 20 * usual);
}

double ProgressBoard::Eta() const {
  // Running trials: their remaining steps at their own measured rate. Trials not started: the
  // mean duration of the trials seen (finished, or running at their rate), spread over as many
  // of them at a time as are running now.
  double longest = 0, total_estimate = finished_seconds_;
  int measured = finished_trained_;
  for (const auto& [index, r] : running_) {
    const double elapsed = Seconds(r.last_time - r.first_time - r.paused);
    const int64_t steps = r.progress.step - r.first_step;
    if (steps <= 0 || elapsed <= 0) return -1;
    const double rate = steps / elapsed;
    longest = std::max(longest, (r.progress.steps - r.progress.step) / rate);
    total_estimate += r.progress.steps / rate;
    ++measured;
  }
  const int pending = total_ - done_ - static_cast<int>(running_.size());
  if (measured == 0) return -1;
  const double per_trial = total_estimate / measured;
  return longest + pending * per_trial / std::max<size_t>(running_.size(), 1);
}

std::string ProgressBoard::Status() const {
  std::string line = absl::StrFormat("%s[%d/%d done]", prefix_, done_, total_);
  for (const auto& [index, r] : running_) {
    const Progress& p = r.progress;
    absl::StrAppend(&line, absl::StrFormat(" %s %lld/%lld loss %.4g;", r.id.substr(0, 6),
                                           static_cast<long long>(p.step),
                                           static_cast<long long>(p.steps), p.loss));
  }
  if (const double eta = Eta(); eta >= 0)
    absl::StrAppend(&line, absl::StrFormat(" ETA %.0fs", eta));
  if (tty_ && line.size() > 160) line = line.substr(0, 157) + "...";
  return line;
}

}  // namespace attnlab
