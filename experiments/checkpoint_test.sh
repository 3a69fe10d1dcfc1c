#!/usr/bin/env bash
# A single trial killed with SIGKILL partway resumes from its checkpoint and ends bit-identical
# to an uninterrupted run (metrics printed with 17 digits: loss, ||W|| and cos(W, I) along the
# way, which depend on the parameters, Adam's moments and the random stream; the parameter
# snapshots, some taken before a kill, byte for byte).
set -u
run="$PWD/experiments/run"
spec="$PWD/experiments/testdata/long_trial.textproto"
cd "$TEST_TMPDIR" || exit 1
"$run" --spec="$spec" --out=clean --threads=1 > /dev/null 2>&1 || { echo "clean run failed"; exit 1; }
clean_metrics=$(ls clean/*/metrics.csv)
# The trial's checkpoint: .<trial id>.<code key>.checkpoint.
checkpoint_of() { compgen -G "$1/.$(basename "$(dirname "$clean_metrics")").*.checkpoint"; }

# Two kills at named steps (the test hook ATTNLAB_TEST_SIGNAL, experiments/test_hooks.h; a
# checkpoint after every step), then a run to the end (with 2 threads: results do not depend on
# the thread count).
for attempt in 1 2; do
  ATTNLAB_TEST_SIGNAL=step:$((1500 * attempt)):KILL "$run" --spec="$spec" --out=killed \
    --threads=1 --set=training.checkpoint_seconds=0 > /dev/null 2>"killed$attempt.err"
  [[ $? -eq 137 ]] || { echo "attempt $attempt was not killed at its step"; cat "killed$attempt.err"; exit 1; }
done
checkpoint=$(checkpoint_of killed) || { echo "no checkpoint after the kills"; ls -a killed; exit 1; }
ls killed/*/metrics.csv > /dev/null 2>&1 && { echo "the trial finished before it was killed"; exit 1; }
"$run" --spec="$spec" --out=killed --threads=2 > /dev/null 2> resumed.err || {
  echo "resumed run failed"; cat resumed.err; exit 1; }
grep -q "resumed at step 3000 " resumed.err || { echo "did not resume at step 3000:"; cat resumed.err; exit 1; }
diff "$clean_metrics" killed/*/metrics.csv || { echo "metrics differ from an uninterrupted run"; exit 1; }
# Every file of the trial, its .npy snapshots (some taken before the kills) included.
diff -r "$(dirname "$clean_metrics")" killed/"$(basename "$(dirname "$clean_metrics")")" || {
  echo "the trial's files differ from an uninterrupted run's"; exit 1; }
diff clean/summary.csv killed/summary.csv || { echo "summary differs"; exit 1; }
[[ -e $checkpoint ]] && { echo "checkpoint left after the trial finished"; exit 1; }
ls -a killed | grep -q '\.tmp\.' && { echo "temporaries left behind"; exit 1; }

# Ctrl-C (SIGINT) and SIGTERM: the running trial writes a checkpoint (periodic ones are off
# here), the run exits 130 saying so, and the rerun resumes it to the same end. (Progress lines
# in a log file: progress_board_test.)
for signal in INT TERM; do
  ATTNLAB_TEST_SIGNAL=step:2000:$signal "$run" --spec="$spec" --out="signal$signal" --threads=1 \
    --set=training.checkpoint_seconds=1e9 > /dev/null 2> "signal$signal.err"
  status=$?
  [[ $status -eq 130 ]] || { echo "SIG$signal: exit status $status, expected 130"; cat "signal$signal.err"; exit 1; }
  grep -q "interrupted: signal$signal keeps the finished trials and a checkpoint of each running one" "signal$signal.err" || {
    echo "SIG$signal: expected the interruption to be explained:"; cat "signal$signal.err"; exit 1; }
  ls -a "signal$signal" | grep -q '\.checkpoint$' || { echo "SIG$signal: no checkpoint written"; exit 1; }
  "$run" --spec="$spec" --out="signal$signal" --threads=1 > /dev/null 2> "signal$signal.resumed.err" || {
    echo "SIG$signal: the rerun failed"; cat "signal$signal.resumed.err"; exit 1; }
  grep -q "resumed at step [1-9]" "signal$signal.resumed.err" || {
    echo "SIG$signal: did not resume:"; cat "signal$signal.resumed.err"; exit 1; }
  diff "$clean_metrics" "signal$signal"/*/metrics.csv || { echo "SIG$signal: metrics differ"; exit 1; }
done

# On a terminal the status line is redrawn in place and cleared before the table.
script -qec "$run --spec=$spec --out=tty --threads=1" tty.log > /dev/null || { echo "tty run failed"; exit 1; }
grep -aq $'\r\033\\[K\\[0/1 done\\]' tty.log || { echo "no status line on the terminal"; cat -v tty.log; exit 1; }
grep -a "^trial  *seed" tty.log | grep -q "done\]" && { echo "status line left before the table"; cat -v tty.log; exit 1; }

# A checkpoint is bound to its spec: another trial's checkpoint in its place is an error, not
# a mix of the two.
run_until_checkpoint() {  # out_dir, extra flags...: killed at step 100, a checkpoint after each
  local out=$1; shift
  ATTNLAB_TEST_SIGNAL=step:100:KILL "$run" --spec="$spec" --out="$out" --threads=1 \
    --set=training.checkpoint_seconds=0 "$@" > /dev/null 2>&1
}
run_until_checkpoint first
run_until_checkpoint other --set=optimizer.lr=0.02
other=$(ls -a other | grep '\.checkpoint$')
cp first/.*.checkpoint "other/$other"
"$run" --spec="$spec" --set=optimizer.lr=0.02 --out=other --threads=1 > other.out 2> other.err
grep -q "checkpoint other/$other: written for another spec" other.err || {
  echo "expected the other-spec error:"; cat other.err; exit 1; }

# A checkpoint with 8 flipped bits (one byte complemented, in the parameters' half) is refused:
# it resumed silently and gave other results.
run_until_checkpoint damaged
damaged="damaged/$(ls -a damaged | grep '\.checkpoint$')"
offset=$(( $(stat -c %s "$damaged") * 3 / 4 ))
byte=$(od -An -tu1 -j "$offset" -N1 "$damaged" | tr -d ' ')
printf "\\$(printf '%03o' $((255 - byte)))" | dd of="$damaged" bs=1 seek="$offset" conv=notrunc status=none
if "$run" --spec="$spec" --out=damaged --threads=1 > damaged.out 2> damaged.err; then
  echo "a damaged checkpoint resumed"; exit 1
fi
grep -q "$damaged: its checksum does not match its bytes (the file is damaged)" damaged.err || {
  echo "expected the checksum error:"; cat damaged.err; exit 1; }
echo "PASS ($(grep -o 'resumed at step [0-9]*' resumed.err))"
