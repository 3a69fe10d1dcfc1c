#include "experiments/trials/crash_stack.h"

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "absl/debugging/symbolize.h"

namespace attnlab {
namespace {

struct CrashSignal {
  int number;
  const char* name;
};
constexpr CrashSignal kCrashSignals[] = {{SIGSEGV, "SIGSEGV"},
                                         {SIGBUS, "SIGBUS"},
                                         {SIGFPE, "SIGFPE"},
                                         {SIGILL, "SIGILL"},
                                         {SIGABRT, "SIGABRT"}};

// Writes what snprintf put in `line` (cut to the buffer where it did not fit).
void Print(const char* line, int length, int size) {
  if (length > 0) (void)!write(STDERR_FILENO, line, length < size ? length : size - 1);
}

// Nothing that allocates: the heap may be what broke. (glibc's snprintf of %s and %p does not;
// backtrace's first call, which loads the unwinder, is made at install.) backtrace reads the
// unwind tables, so libc's own frames (abort, free) and their callers show, where a
// frame-pointer walk stops at the first libc frame.
void OnCrash(int signal) {
  // A crash while printing (or in another thread meanwhile) ends the process at once.
  const char* name = "a crash signal";
  for (const CrashSignal& crash : kCrashSignals) {
    std::signal(crash.number, SIG_DFL);
    if (crash.number == signal) name = crash.name;
  }
  void* frames[64];
  const int count = backtrace(frames, 64);
  char line[640];
  Print(line,
        std::snprintf(line, sizeof(line), "*** %s: the stack of the thread that crashed:\n", name),
        sizeof(line));
  for (int i = 0; i < count; ++i) {
    char symbol[512];
    const bool known = absl::Symbolize(frames[i], symbol, sizeof(symbol));
    Print(line, std::snprintf(line, sizeof(line), "    @ %p %s\n", frames[i], known ? symbol : "?"),
          sizeof(line));
  }
  std::raise(signal);
}

}  // namespace

void PrintStackOnCrash(const char* argv0) {
  absl::InitializeSymbolizer(argv0);
  void* first[1];
  backtrace(first, 1);  // loads the unwinder now, not in a crash
  // The handler runs on a stack of its own in this thread: after a stack overflow the thread's
  // stack has no room left for it (the kernel would kill the process without a word).
  static char alternate_stack[256 << 10];
  stack_t alternate = {};
  alternate.ss_sp = alternate_stack;
  alternate.ss_size = sizeof(alternate_stack);
  sigaltstack(&alternate, nullptr);
  struct sigaction action = {};
  action.sa_handler = OnCrash;
  action.sa_flags = SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (const CrashSignal& crash : kCrashSignals) sigaction(crash.number, &action, nullptr);
}

}  // namespace attnlab
