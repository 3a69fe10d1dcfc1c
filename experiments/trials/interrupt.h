// Ctrl-C (SIGINT) and SIGTERM as a request to stop: running trials write a checkpoint and the
// run exits with status 130. A second signal stops at once.
//
// One thread of its own takes the two signals; every other thread blocks them. A handler run on
// a thread inside oneDNN's JIT sgemm, which points the stack pointer into the heap, writes its
// frame over the heap (oneDNN issue 4845): the next free aborts.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_INTERRUPT_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_INTERRUPT_H_

namespace attnlab {

// Blocks SIGINT and SIGTERM in this thread, and so in every thread it starts from now on, and
// starts the thread that takes them (once per process). Call it first in main: a thread that a
// library started before it keeps the signals unblocked.
void CatchInterrupts();

// The signal that asked to stop, or 0.
int InterruptSignal();

// Blocks until a signal has asked to stop (after CatchInterrupts), and returns it.
int WaitForInterrupt();

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_INTERRUPT_H_
