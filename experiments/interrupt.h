// Ctrl-C (SIGINT) and SIGTERM as a request to stop: running trials write a checkpoint and the
// run exits with status 130. A second signal stops at once.
#ifndef ATTNLAB_EXPERIMENTS_INTERRUPT_H_
#define ATTNLAB_EXPERIMENTS_INTERRUPT_H_

namespace attnlab {

// Installs the handlers (once per process).
void CatchInterrupts();

// The signal that asked to stop, or 0.
int InterruptSignal();

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_INTERRUPT_H_
