// A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, or SIGABRT from a failed heap check or assert)
// prints the stack of the thread that crashed to stderr, then dies by the same signal: a crash
// hours into a run says where it happened, in the log the run already writes.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_CRASH_STACK_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_CRASH_STACK_H_

namespace attnlab {

// Installs the handlers (once per process, from main); argv0 is the program's argv[0], for its
// symbols. The calling thread's handler runs on a stack of its own, so that a stack overflow in
// it is reported too; other threads' run on their own stacks.
void PrintStackOnCrash(const char* argv0);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_CRASH_STACK_H_
