#!/usr/bin/env bash
# Every program no test runs otherwise (the per-setup targets, the zoo, the benchmarks) is built
# by `tools/bazel test //...` through this test, and starts: a benchmark lists its cases, any
# other program prints its flags, and refuses a word that is not a flag (exit 2, one line).
set -u
status=0
for program in "$@"; do
  case "$program" in
    *bench | *gemm_ab)
      out=$("$program" --benchmark_list_tests 2>&1) && [[ -n "$out" ]] ||
        { echo "$program --benchmark_list_tests failed: $out"; status=1; } ;;
    *)
      # absl's --help exits 1 after the usage text.
      out=$("$program" --help 2>&1)
      grep -q -- "--threads" <<<"$out" || { echo "$program --help: no usage: $out"; status=1; }
      out=$("$program" 3 2>&1)
      [[ $? -eq 2 && $out == "3: not a flag (flags are written --name=value; --help lists them)" ]] ||
        { echo "$program 3: expected exit 2 and one line, got: $out"; status=1; } ;;
  esac
done
exit $status
