#!/usr/bin/env bash
# A crash prints the stack of the thread that crashed, with our function names, and the process
# still dies by its signal (the shell sees 128 + the signal's number). The crash is simulated
# by the trial raising the signal at step 100 (the test hook ATTNLAB_TEST_SIGNAL,
# experiments/test_hooks.h); SIGABRT is what a failed heap check raises.
set -u
run="$PWD/experiments/run"
spec="$PWD/experiments/testdata/long_trial.textproto"
cd "$TEST_TMPDIR" || exit 1
for signal in SEGV ABRT; do
  ATTNLAB_TEST_SIGNAL=step:100:$signal "$run" --spec="$spec" --out="$signal" --threads=1 \
    > /dev/null 2> "$signal.err"
  status=$?
  expected=$((128 + $(kill -l $signal)))
  [[ $status -eq $expected ]] || { echo "SIG$signal: exit status $status, expected $expected"; cat "$signal.err"; exit 1; }
  grep -q "^\*\*\* SIG$signal: the stack of the thread that crashed:$" "$signal.err" || {
    echo "SIG$signal: no stack header:"; cat "$signal.err"; exit 1; }
  grep -q "^    @ 0x[0-9a-f]* attnlab::.*Main()$" "$signal.err" || {
    echo "SIG$signal: the stack does not name the program's Main:"; cat "$signal.err"; exit 1; }
done
