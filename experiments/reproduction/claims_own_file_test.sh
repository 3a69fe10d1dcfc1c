#!/usr/bin/env bash
# A researcher's own claims file works from any folder (`--claims`, a path from where the
# command was typed): CLAIMS.md and claims.csv beside it, its stores under --out, exit 0 on a
# first and on a resumed run, README's status table of the repository's papers left alone, and
# a CLAIMS.md that names the command that reruns it.
set -u
claims="$PWD/experiments/claims"
root="$TEST_TMPDIR/own"
mkdir -p "$root/workspace" "$root/mine" "$root/elsewhere"
readme='# x
<!-- claims status -->
the repository papers
<!-- end claims status -->
'
printf '%s' "$readme" > "$root/workspace/README.md"
cat > "$root/mine/tiny.textproto" <<'SPEC'
name: "tiny"
model {
  layer {
    name: "attention" plugin: "prompt"
    config { scale: 1 w { init: IDENTITY frozen: true } v { value: [0, 1] frozen: true } }
  }
  loss { plugin: "logistic" }
}
dataset { plugin: "sequences" config { sequence { token { x: [1, 1] } token { x: [0, 0.5] } } } }
optimizer { plugin: "normalized_gd" lr: 0.1 }
training { steps: 20 log_every: 10 }
metric { name: "corr" plugin: "max_margin" config { layer: "attention" } }
SPEC
cat > "$root/mine/claims.textproto" <<'CLAIMS'
number: 1
paper: "A follow-up paper"
run { name: "tiny" spec: "tiny.textproto" }
run { name: "tiny_again" spec: "tiny.textproto" set: "training.steps=30" }
claim {
  id: "f1" words: "the direction approaches p_mm"
  check { central: true name: "corr" run: "tiny" value { metric: "corr" } reproduced { op: GT value: 0 } }
}
claim {
  id: "f2" words: "and still does with more steps"
  check { central: true name: "corr" run: "tiny_again" value { metric: "corr" } reproduced { op: GT value: 0 } }
}
CLAIMS
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for attempt in first resumed; do
  (cd "$root/elsewhere" &&
    BUILD_WORKSPACE_DIRECTORY="$root/workspace" BUILD_WORKING_DIRECTORY="$root/elsewhere" \
      "$claims" --claims=../mine/claims.textproto --out=stores --threads=1 \
      > "$root/stdout" 2> "$root/stderr")
  status=$?
  [[ $status == 0 ]] || { fail "$attempt run exited $status"; tail -5 "$root/stderr"; }
done
[[ -f "$root/mine/CLAIMS.md" && -f "$root/mine/claims.csv" ]] || fail "no CLAIMS.md or claims.csv beside the claims file"
grep -q -- '-- --claims=../mine/claims.textproto`' "$root/mine/CLAIMS.md" ||
  fail "CLAIMS.md does not name --claims=../mine/claims.textproto"
[[ "$(cat "$root/workspace/README.md")" == "$(printf '%s' "$readme")" ]] || fail "README changed"
# Two runs of one spec share its store, each with its own summary.
for run in tiny tiny_again; do
  summary="$root/elsewhere/stores/tiny/summary.$run.csv"
  [[ -f $summary ]] || fail "no $summary: $(ls "$root/elsewhere/stores/"*)"
done
steps=$(cut -d, -f1 "$root/elsewhere/stores/tiny/summary.tiny_again.csv" | tail -n +2 | sort -u | wc -l)
[[ $steps == 1 ]] || fail "summary.tiny_again.csv holds $steps trials, expected 1"
[[ "$(tail -n +2 "$root/elsewhere/stores/tiny/summary.tiny.csv")" != \
   "$(tail -n +2 "$root/elsewhere/stores/tiny/summary.tiny_again.csv")" ]] ||
  fail "the two runs' summaries hold the same trial"
grep -q "f2  *reproduced" "$root/stdout" || fail "f2 not judged: $(cat "$root/stdout")"
exit $((failures > 0))
