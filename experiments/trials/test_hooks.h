// Points where a test interrupts a run on purpose, instead of racing it with sleeps and kills:
// each hook is read once from the environment and does nothing when its variable is unset.
//
//   ATTNLAB_TEST_SIGNAL=step:N:SIG    before training step N (of the first trial to reach it)
//                                     the process gets signal SIG (INT, TERM, KILL, SEGV, ABRT)
//   ATTNLAB_TEST_SIGNAL=trials:K:SIG  once this process has stored K trials
//   ATTNLAB_TEST_HOLD_LOCK=PATH       once the run holds its results store's lock, it waits until
//                                     PATH exists (a second run on the store must then wait)
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_TEST_HOOKS_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_TEST_HOOKS_H_

#include <cstdint>

namespace attnlab {

// In the trial runner, before each training step.
void TestHookBeforeStep(int64_t step);

// In the runner, after each trial it stored.
void TestHookTrialStored();

// In the runner, once it holds the store's lock.
void TestHookLockTaken();

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_TEST_HOOKS_H_
