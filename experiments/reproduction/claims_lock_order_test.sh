#!/usr/bin/env bash
# Two claims commands whose files list the same two stores in opposite orders, run at once:
# both finish. Each locks the stores in the order of their paths, so neither can hold one store
# while waiting for the other's (in the files' orders, each would wait for the other forever).
set -u
claims="$PWD/experiments/claims"
spec="$PWD/experiments/testdata/sweep.textproto"
root="$TEST_TMPDIR/lock_order"
mkdir -p "$root"
cd "$root" || exit 1
claims_file() {  # $1, $2: the stores in the file's order
  cat <<CLAIMS
number: 1
paper: "lock order test"
run { name: "$1" spec: "$spec" set: "store='$1'" set: "training.steps=100" }
run { name: "$2" spec: "$spec" set: "store='$2'" set: "training.steps=100" }
claim {
  id: "c1" words: "W aligns with the identity"
  check { central: true name: "cos" run: "$1" value { metric: "cos_w_identity" } reproduced { op: GT value: -2 } }
}
CLAIMS
}
claims_file alpha beta > forward.textproto
claims_file beta alpha > backward.textproto
: > forward.err
: > backward.err
# `timeout` guards against the deadlock this test is about; it times nothing.
ATTNLAB_TEST_HOLD_LOCK="$root/release" timeout 300 "$claims" --claims=forward.textproto \
  --out=stores --threads=1 > /dev/null 2>> forward.err &
forward=$!
# Blocks until process $1 writes line $3 to its log $2; false if it ends first.
says() { grep -q -m1 -F -- "$3" <(tail --pid="$1" -n +1 -f "$2"); }
says $forward forward.err "test hook: holding the store's lock" ||
  { echo "FAIL: the forward run ended early:"; cat forward.err; exit 1; }
timeout 300 "$claims" --claims=backward.textproto --out=stores --threads=1 > /dev/null \
  2>> backward.err &
backward=$!
says $backward backward.err "waiting for the run writing to" ||
  { echo "FAIL: the backward run did not wait:"; cat backward.err; exit 1; }
# It waits for alpha, the first store by path, and holds nothing meanwhile.
grep -q "waiting for the run writing to stores/alpha" backward.err ||
  { echo "FAIL: the backward run waited for another store first:"; cat backward.err; exit 1; }
touch "$root/release"
wait $forward || { echo "FAIL: the forward run: exit $?"; tail -5 forward.err; exit 1; }
wait $backward || { echo "FAIL: the backward run: exit $?"; tail -5 backward.err; exit 1; }
echo "PASS"
