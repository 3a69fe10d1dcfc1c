#!/usr/bin/env bash
# claims_quick_test.sh CLAIMS_FILE: the paper's quick claims (shortened runs on the repository's
# fixtures) give the verdicts committed in its claims_quick.csv, every float product on our tiles
# (as claims_quick.csv was made): a timing must not move a number.
set -u
claims_file=$1
"$PWD/experiments/claims" --claims="$claims_file" --quick --check_quick --write=false \
  --out="$TEST_TMPDIR/claims" --threads=2 --reuse=same \
  --product_backend=tiled 2> "$TEST_TMPDIR/stderr"
status=$?
grep -v "^\[" "$TEST_TMPDIR/stderr" | tail -20
exit $status
