#include "experiments/trials/test_hooks.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace attnlab {
namespace {

struct SignalHook {
  enum Trigger { kNone, kStep, kTrials };
  Trigger trigger = kNone;
  int64_t at = 0;
  int signal = 0;
};

int SignalNumber(const std::string& name) {
  if (name == "INT") return SIGINT;
  if (name == "TERM") return SIGTERM;
  if (name == "KILL") return SIGKILL;
  if (name == "SEGV") return SIGSEGV;
  if (name == "ABRT") return SIGABRT;
  return 0;
}

// ATTNLAB_TEST_SIGNAL, parsed once; a malformed value is said on stderr and ignored.
const SignalHook& Hook() {
  static const SignalHook hook = [] {
    SignalHook parsed;
    const char* value = std::getenv("ATTNLAB_TEST_SIGNAL");
    if (value == nullptr) return parsed;
    const std::vector<std::string> parts = absl::StrSplit(value, ':');
    if (parts.size() == 3 && absl::SimpleAtoi(parts[1], &parsed.at) &&
        (parsed.signal = SignalNumber(parts[2])) != 0 &&
        (parts[0] == "step" || parts[0] == "trials")) {
      parsed.trigger = parts[0] == "step" ? SignalHook::kStep : SignalHook::kTrials;
    } else {
      std::fprintf(stderr, "ATTNLAB_TEST_SIGNAL=%s: expected step:N:SIG or trials:K:SIG\n", value);
    }
    return parsed;
  }();
  return hook;
}

std::atomic<bool> fired{false};

void Fire() {
  if (fired.exchange(true)) return;
  const int signal = Hook().signal;
  // A crash happens on the thread that crashes; an interruption is addressed to the process
  // (one thread takes SIGINT and SIGTERM, the others block them: interrupt.h).
  if (signal == SIGSEGV || signal == SIGABRT) {
    raise(signal);
  } else {
    kill(getpid(), signal);
  }
}

}  // namespace

void TestHookBeforeStep(int64_t step) {
  if (Hook().trigger == SignalHook::kStep && step == Hook().at) Fire();
}

void TestHookTrialStored() {
  static std::atomic<int64_t> stored{0};
  if (Hook().trigger == SignalHook::kTrials && ++stored == Hook().at) Fire();
}

void TestHookLockTaken() {
  static const char* path = std::getenv("ATTNLAB_TEST_HOLD_LOCK");
  if (path == nullptr) return;
  std::fprintf(stderr, "test hook: holding the store's lock until %s exists\n", path);
  while (access(path, F_OK) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace attnlab
