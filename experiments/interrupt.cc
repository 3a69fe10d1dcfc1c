#include "experiments/interrupt.h"

#include <csignal>

namespace attnlab {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void OnSignal(int signal) {
  if (g_signal != 0) {  // the second: stop now
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_signal = signal;
}

}  // namespace

void CatchInterrupts() {
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
}

int InterruptSignal() { return g_signal; }

}  // namespace attnlab
