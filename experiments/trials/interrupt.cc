#include "experiments/trials/interrupt.h"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>

namespace attnlab {
namespace {

std::atomic<int> g_signal{0};
std::mutex g_mutex;  // with g_arrived, for WaitForInterrupt
std::condition_variable g_arrived;

sigset_t InterruptSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

// The signal thread: the first signal asks to stop, the second ends the process as if nothing
// had caught it.
void TakeSignals(sigset_t signals) {
  for (;;) {
    int signal = 0;
    if (sigwait(&signals, &signal) != 0) continue;
    if (g_signal.load() == 0) {
      {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_signal.store(signal);
      }
      g_arrived.notify_all();
      continue;
    }
    std::signal(signal, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
    std::raise(signal);
  }
}

}  // namespace

void CatchInterrupts() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t signals = InterruptSignals();
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread(TakeSignals, signals).detach();
  });
}

int InterruptSignal() { return g_signal.load(); }

int WaitForInterrupt() {
  std::unique_lock<std::mutex> lock(g_mutex);
  g_arrived.wait(lock, [] { return g_signal.load() != 0; });
  return g_signal.load();
}

}  // namespace attnlab
