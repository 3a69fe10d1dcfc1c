#!/usr/bin/env bash
# `mpirun -np 2 claims` writes the same CLAIMS.md and claims.csv as one process, with both ranks
# training; a rank killed mid-run ends the job with a non-zero exit (not a hang), and the same
# command then finishes with the same files.
set -u
if ! command -v mpirun > /dev/null; then
  echo "SKIP: no mpirun on this machine (tools/bazel installs openmpi-bin)"
  exit 0
fi
claims="$PWD/experiments/claims"
spec="$PWD/experiments/testdata/sweep.textproto"
root="$TEST_TMPDIR/claims_mpi"
mkdir -p "$root/workspace"
printf '# x\n<!-- claims status -->\n<!-- end claims status -->\n' > "$root/workspace/README.md"
# Five runs of one store: 8 trials, 8 more at 200 steps, the first 8 again (trained once), and
# runs of 1 and 3 new trials: 20 distinct, 10 on each rank only when the runs are interleaved
# (run by run, the ranks would train 4+4+1+2 and 4+4+0+1).
claims_file() {
  cat <<CLAIMS
number: 1
paper: "MPI test"
run { name: "sweep" spec: "$spec" }
run { name: "sweep_short" spec: "$spec" set: "training.steps=200" }
run { name: "sweep_again" spec: "$spec" }
run { name: "one" spec: "$spec" set: "sweep.axis[0].value=['3']" set: "sweep.seed=[3]" }
run { name: "three" spec: "$spec" set: "sweep.axis[0].value=['1', '2', '5']" set: "sweep.seed=[3]" }
claim {
  id: "c1" words: "W aligns with the identity"
  check { central: true name: "cos" run: "sweep" value { metric: "cos_w_identity" } reproduced { op: GT value: 0.5 } }
}
claim {
  id: "c2" words: "the error at T = 100 is small after 200 steps"
  check { central: true name: "err" run: "sweep_short" value { metric: "err_T100" } aggregate: MEAN reproduced { op: LT value: 0.5 } }
}
claim {
  id: "c3" words: "and the same trials read again agree"
  check { central: true name: "cos" run: "sweep_again" value { metric: "cos_w_identity" } reproduced { op: GT value: 0.5 } }
}
claim {
  id: "c4" words: "other learning rates align too"
  check { central: true name: "cos" run: "one" value { metric: "cos_w_identity" } reproduced { op: GT value: 0.5 } }
  check { name: "cos3" run: "three" value { metric: "cos_w_identity" } reproduced { op: GT value: 0.5 } }
}
CLAIMS
}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# Runs the claims command in folder $1 (its claims file, CLAIMS.md and stores live there) with
# the launcher words that follow; prints its exit status. `timeout` guards against a hang, it
# times nothing.
judge() {
  local folder="$root/$1"
  shift
  mkdir -p "$folder"
  [[ -f "$folder/claims.textproto" ]] || claims_file > "$folder/claims.textproto"
  (cd "$folder" && BUILD_WORKSPACE_DIRECTORY="$root/workspace" BUILD_WORKING_DIRECTORY="$folder" \
    timeout 600 "$@" > "$folder/stdout" 2>> "$folder/stderr")
  echo $?
}
flags=(--claims=claims.textproto --out=stores --threads=1)
same_as_single() {
  for file in CLAIMS.md claims.csv; do
    cmp -s "$root/single/$file" "$root/$1/$file" ||
      fail "$1/$file differs from one process's: $(diff "$root/single/$file" "$root/$1/$file" | head -5)"
  done
}
mpi=(mpirun --allow-run-as-root --oversubscribe)

[[ $(judge single "$claims" "${flags[@]}") == 0 ]] || fail "one process: $(tail -3 "$root/single/stderr")"
[[ $(judge mpi "${mpi[@]}" -np 2 "$claims" "${flags[@]}") == 0 ]] || fail "-np 2: $(tail -3 "$root/mpi/stderr")"
same_as_single mpi
# The 20 distinct trials, 10 on each rank; sweep_again's trained by neither, in one process too.
for rank in 0 1; do
  count=$(grep -c "^rank $rank: .* done, loss" "$root/mpi/stderr")
  [[ $count == 10 ]] || fail "rank $rank trained $count trials, expected 10"
done
count=$(grep -c " done, loss" "$root/single/stderr")
[[ $count == 20 ]] || fail "one process trained $count trials, expected 20"
# Each trial's line names its run, as the runs' trials interleave.
count=$(grep -c " run three: .* done, loss" "$root/single/stderr")
[[ $count == 3 ]] || fail "$count trial lines name run three, expected 3"

# Rank 1 killed once its first trial is stored (the test hook ATTNLAB_TEST_SIGNAL).
status=$(judge killed "${mpi[@]}" -np 1 "$claims" "${flags[@]}" \
  : -np 1 env ATTNLAB_TEST_SIGNAL=trials:1:KILL "$claims" "${flags[@]}")
[[ $status != 0 && $status != 124 ]] || fail "a killed rank: exit $status, expected non-zero, not a hang"
grep -qi "signal 9\|killed" "$root/killed/stderr" || fail "rank 1 was not killed: $(tail -5 "$root/killed/stderr")"
[[ ! -f "$root/killed/CLAIMS.md" ]] || fail "CLAIMS.md written by a job that lost a rank"
[[ $(judge killed "${mpi[@]}" -np 2 "$claims" "${flags[@]}") == 0 ]] || fail "rerun after the kill: $(tail -3 "$root/killed/stderr")"
same_as_single killed
# A rank that stops at once (here rank 0, on a word that is not a flag) ends the job.
status=$(judge early "${mpi[@]}" -np 1 "$claims" 3 : -np 1 "$claims" "${flags[@]}")
[[ $status != 0 && $status != 124 ]] || fail "rank 0 stopped early: exit $status, expected non-zero, not a hang"
exit $((failures > 0))
