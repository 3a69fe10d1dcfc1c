#!/usr/bin/env bash
# The results store under faults: two runs on one --out at once (both succeed, every file as a
# single run writes it; they deleted each other's live temporaries), an --out that cannot be
# written (an error before any trial trains), and a write that fails mid-run (a full disk,
# here a file-size limit: the trial fails saying what, nothing half-written stays, a rerun
# completes the store).
set -u
run="$PWD/experiments/run"
spec="$PWD/experiments/testdata/sweep.textproto"
cd "$TEST_TMPDIR" || exit 1
"$run" --spec="$spec" --out=single --threads=1 > /dev/null 2>&1 || { echo "single run failed"; exit 1; }

# Two runs on one --out, overlapping for certain: the first holds the lock until the second says
# it waits (the test hook ATTNLAB_TEST_HOLD_LOCK, experiments/test_hooks.h); both succeed and the
# store is a single run's.
# Each log exists before its process starts, so that `says` never opens it first.
: > first.err
: > second.err
: > held.err
ATTNLAB_TEST_HOLD_LOCK="$TEST_TMPDIR/release" "$run" --spec="$spec" --out=overlap --threads=1 \
  > /dev/null 2>> first.err &
first=$!
# Blocks until process $1 writes line $3 to its log $2; false if it ends first (tail --pid).
says() { grep -q -m1 -F -- "$3" <(tail --pid="$1" -n +1 -f "$2"); }
says $first first.err "test hook: holding the store's lock" ||
  { echo "the first run ended early:"; cat first.err; exit 1; }
"$run" --spec="$spec" --out=overlap --threads=1 > /dev/null 2>> second.err &
second=$!
says $second second.err "waiting for the run writing to overlap (pid $first) to finish" ||
  { echo "the second run did not wait:"; cat second.err; exit 1; }
touch "$TEST_TMPDIR/release"
wait $first || { echo "the first run failed"; cat first.err; exit 1; }
wait $second || { echo "the second run failed"; cat second.err; exit 1; }
diff -r --exclude=.lock single overlap > /dev/null || { echo "the overlapped store differs"; exit 1; }

# Ten more pairs started together, however they interleave.
for pair in $(seq 1 10); do
  "$run" --spec="$spec" --out="pair$pair" --threads=1 > /dev/null 2> "a$pair.err" &
  a=$!
  "$run" --spec="$spec" --out="pair$pair" --threads=1 > /dev/null 2> "b$pair.err" &
  b=$!
  wait $a || { echo "pair $pair: first run failed"; cat "a$pair.err"; exit 1; }
  wait $b || { echo "pair $pair: second run failed"; cat "b$pair.err"; exit 1; }
  diff -r --exclude=.lock single "pair$pair" > /dev/null || {
    echo "pair $pair: the store differs from a single run's"; diff -r --exclude=.lock single "pair$pair"; exit 1; }
done

# An --out that is a file: said before any trial trains, exit status 2.
touch a_file
message=$("$run" --spec="$spec" --out=a_file 2>&1 >/dev/null)
[[ $? -eq 2 && "$message" == "--out=a_file: cannot write in a_file: Not a directory" ]] || {
  echo "unexpected: $message"; exit 1; }

# Writes that fail mid-run (file-size limit of 2 KB; SIGXFSZ ignored, so write() says EFBIG).
(trap '' XFSZ; ulimit -f 2; "$run" --spec="$spec" --out=full --threads=1 > /dev/null 2> full.err)
[[ $? -eq 1 ]] || { echo "expected exit status 1 under the size limit"; cat full.err; exit 1; }
grep -q "FAILED: finished, but not stored: cannot write full/\.[0-9a-f]*\.tmp\.[0-9]*/.*: File too large" full.err || {
  echo "expected the failed write to be named:"; cat full.err; exit 1; }
ls -a full | grep -q '\.tmp\.' && { echo "temporaries left behind"; ls -a full; exit 1; }
grep -q "failed: finished, but not stored" full/summary.csv || { echo "summary.csv lacks the failures"; exit 1; }
"$run" --spec="$spec" --out=full --threads=1 > /dev/null 2> refill.err || { echo "rerun failed"; cat refill.err; exit 1; }
diff -r --exclude=.lock single full > /dev/null || { echo "the rerun store differs from a single run's"; exit 1; }

# Ctrl-C while waiting for another run's lock ends the wait, exit 130 (the wait restarted after
# the signal and went on until the lock was free). A run that kept waiting would take the lock
# only when the holder's 600 s end, and then exit 0, which fails below.
mkdir -p held
flock held/.lock sleep 600 > /dev/null 2>&1 &
holder=$!
release() { pkill -P $holder; kill $holder 2> /dev/null; }
"$run" --spec="$spec" --out=held --threads=1 > /dev/null 2>> held.err &
waiting=$!
says $waiting held.err "waiting for the run writing to" ||
  { echo "the second run did not wait:"; cat held.err; release; exit 1; }
kill -INT $waiting
wait $waiting
status=$?
release
[[ $status -eq 130 ]] || { echo "Ctrl-C while waiting for the lock: exit $status, expected 130"; cat held.err; exit 1; }
grep -q "interrupted while waiting for the run writing to" held.err || { echo "no interruption message:"; cat held.err; exit 1; }
echo "PASS: 10 concurrent pairs"
