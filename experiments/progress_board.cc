#include "experiments/progress_board.h"

#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace attnlab {

ProgressBoard::ProgressBoard(bool enabled, int total, std::string prefix)
    : enabled_(enabled),
      tty_(enabled && isatty(STDERR_FILENO)),
      total_(total),
      prefix_(std::move(prefix)),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBoard::Update(int index, const std::string& id, const Progress& progress) {
  if (!tty_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  running_[index] = {id, progress};
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(250)) return;
  last_draw_ = now;
  Redraw();
}

void ProgressBoard::Finish(int index, const std::string& label, const std::string& what,
                           double seconds) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  running_.erase(index);
  ++done_;
  std::fprintf(stderr, "%s%s[%d/%d] %s %s (%.2fs)\n", tty_ ? "\r\033[K" : "", prefix_.c_str(),
               done_, total_, label.c_str(), what.c_str(), seconds);
  if (tty_) Redraw();
  std::fflush(stderr);
}

void ProgressBoard::Redraw() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // ETA from the fraction of the work done: finished trials count 1, running ones their
  // fraction of steps.
  double fraction = done_;
  std::string line = absl::StrFormat("%s[%d/%d done]", prefix_, done_, total_);
  for (const auto& [index, r] : running_) {
    const Progress& p = r.progress;
    fraction += p.steps > 0 ? double(p.step) / p.steps : 0;
    absl::StrAppend(&line, absl::StrFormat(" %s %lld/%lld loss %.4g;", r.id.substr(0, 6),
                                           static_cast<long long>(p.step),
                                           static_cast<long long>(p.steps), p.loss));
  }
  if (fraction > 0) {
    absl::StrAppend(&line, absl::StrFormat(" ETA %.0fs", elapsed * (total_ - fraction) / fraction));
  }
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

}  // namespace attnlab
