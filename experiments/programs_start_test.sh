#!/usr/bin/env bash
# Every program no test runs otherwise (the per-setup targets, the zoo, the benchmarks) is built
# by `tools/bazel test //...` through this test, and starts: a benchmark lists its cases, any
# other program prints its flags.
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
      grep -q -- "--threads" <<<"$out" || { echo "$program --help: no usage: $out"; status=1; } ;;
  esac
done
exit $status
