#!/usr/bin/env bash
# A sweep killed with SIGKILL partway resumes: finished trials are not rerun, the rest are, and
# the final summary equals an uninterrupted run's. A finished trial damaged outside attnlab (its
# metrics.csv cut short, its manifest gone) does not pass for finished: it runs again.
set -u
run="$PWD/experiments/run"
spec="$PWD/experiments/testdata/sweep.textproto"
cd "$TEST_TMPDIR" || exit 1
"$run" --spec="$spec" --out=clean --threads=1 > /dev/null 2>&1 || { echo "clean run failed"; exit 1; }

# Killed once 2 trials have finished (the test hook ATTNLAB_TEST_SIGNAL, experiments/test_hooks.h).
ATTNLAB_TEST_SIGNAL=trials:2:KILL "$run" --spec="$spec" --out=killed --threads=1 > /dev/null 2>&1
[[ $? -eq 137 ]] || { echo "the run was not killed after its second trial"; exit 1; }
finished=$(find killed -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l)
[[ $finished -eq 2 ]] || { echo "expected 2 finished trials, found $finished"; exit 1; }
[[ -e killed/summary.csv ]] && { echo "summary.csv written by a killed run"; exit 1; }
# Remember the finished trials' files (inode and modification time).
stamps=$(for d in killed/*/; do stat -c '%n %i %Y' "$d/metrics.csv"; done)

"$run" --spec="$spec" --out=killed --threads=1 > /dev/null 2> resumed.err || { echo "rerun failed"; cat resumed.err; exit 1; }
grep -c "finished earlier, reused" resumed.err | grep -qx "$finished" || {
  echo "expected $finished reused trials:"; cat resumed.err; exit 1; }
while read -r name inode mtime; do
  [[ "$(stat -c '%i %Y' "$name")" == "$inode $mtime" ]] || { echo "$name was rewritten"; exit 1; }
done <<< "$stamps"
ls -a killed | grep -q '\.tmp\.' && { echo "temporaries left behind"; exit 1; }
diff clean/summary.csv killed/summary.csv || { echo "summary differs from an uninterrupted run"; exit 1; }
# Damage two finished trials: one's metrics.csv cut to its first rows (summary.csv took those
# rows' values as final), another's manifest removed.
trials=(killed/*/)
head -5 "${trials[0]}metrics.csv" > cut.csv && cp cut.csv "${trials[0]}metrics.csv"
rm "${trials[1]}manifest.tsv"
"$run" --spec="$spec" --out=killed --threads=1 > /dev/null 2> damaged.err || {
  echo "run over damaged trials failed"; cat damaged.err; exit 1; }
grep -q "note: trial $(basename "${trials[0]}") in killed is damaged (metrics.csv: [0-9]* bytes, the manifest says [0-9]*): running it again" damaged.err &&
  grep -q "note: trial $(basename "${trials[1]}") in killed is damaged (manifest.tsv missing" damaged.err || {
  echo "expected both damaged trials to be noted:"; cat damaged.err; exit 1; }
[[ $(grep -c "finished earlier, reused" damaged.err) -eq 6 ]] || { echo "expected 6 reused:"; cat damaged.err; exit 1; }
diff clean/summary.csv killed/summary.csv || { echo "summary differs after rerunning damaged trials"; exit 1; }
diff -r "clean/$(basename "${trials[0]}")" "${trials[0]}" || { echo "a rerun trial's files differ"; exit 1; }
echo "PASS ($finished of 8 trials finished before the kill)"
