#!/usr/bin/env bash
# tools/claims_figures refuses what it cannot mean (exit 2, one line naming the argument) before
# it runs anything: a mistyped flag would otherwise become a stores directory and train there.
set -u
source tools/refusal_check.sh
expect() { refused tools/claims_figures "$@"; }
expect "tools/claims_figures: --paper=3: unknown flag (usage: tools/claims_figures [--papers=1,2,3] [STORES])" \
  --paper=3
expect "tools/claims_figures: --papers=5: expected paper numbers 1-4, comma-separated" --papers=5
expect "tools/claims_figures: b: one stores directory at most" a b
expect "tools/claims_figures: $TEST_TMPDIR/none: no such stores directory (run //experiments:claims first)" \
  "$TEST_TMPDIR/none"
exit $((failures > 0))
