#!/usr/bin/env bash
# //experiments:claims refuses what it cannot mean (exit 2, one line naming the flag) before any
# run starts.
set -u
source tools/refusal_check.sh
expect() { refused experiments/claims "$@"; }
expect "--claim=9z: no claims file declares this claim" --claim=9z --out="$TEST_TMPDIR/stores"
expect "--claim=1a: paper 3 declares no such claim" --paper=3 --claim=3a,1a --out="$TEST_TMPDIR/stores"
expect "--claim: judges some claims and writes nothing (not with --status_only or --check_quick, which speak for every claim)" \
  --claim=3a --status_only
expect "--paper=7: no claims file declares this number" --paper=7 --out="$TEST_TMPDIR/stores"
expect "--check_quick: needs --quick" --check_quick
expect "--threads=-1: must be >= 0" --threads=-1
expect "--status_only: rewrites README's table of the repository's papers (not with --claims)" \
  --claims=mine/claims.textproto --status_only
expect "nowhere/claims.textproto: cannot read claims file (nowhere/claims.textproto: no such file)" \
  --claims=nowhere/claims.textproto --out="$TEST_TMPDIR/stores"
if [[ -e "$TEST_TMPDIR/stores" ]]; then
  echo "FAIL: a refused command made its stores directory"
  failures=$((failures + 1))
fi
exit $((failures > 0))
