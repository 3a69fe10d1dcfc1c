#!/usr/bin/env bash
# A fuzz target's test: its seed corpus (with the regressions kept there) replayed, then a few
# seconds of fuzzing from a copy of it. Usage: run_fuzzer.sh FUZZER SECONDS CORPUS_FILE...
set -eu
fuzzer="$PWD/$1"
seconds=$2
shift 2
corpus="$TEST_TMPDIR/corpus"
mkdir -p "$corpus"
cp "$@" "$corpus"/
# Specs that name data files find the repository's fixtures (experiments/fuzz/spec_fuzzer).
export ATTNLAB_FUZZ_DATA_DIR="$PWD/datasets/testdata"
cd "$TEST_TMPDIR"
# The same flags mean the same to libFuzzer (--config=fuzz) and to replay_main (other builds).
exec "$fuzzer" -max_total_time="$seconds" -seed=1 -max_len=4096 -rss_limit_mb=2048 -timeout=20 \
  -print_final_stats=1 "$corpus"
