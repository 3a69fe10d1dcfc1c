#!/usr/bin/env bash
# tools/compare_pytorch/compare refuses bad flags (exit 2, one line naming the flag) before it
# starts PyTorch or a benchmark: a half-configured comparison would print a misleading table.
set -u
source tools/refusal_check.sh
expect() { refused tools/compare_pytorch/compare "$@"; }
none="$TEST_TMPDIR/none"
expect "compare: $none is missing: run tools/bazel build -c opt //experiments:bench first" \
  --bench "$none"
# /bin/true stands in for the benchmark: every check below comes before it runs.
expect "compare: --repeat=2: at least 3 runs per side, for a median and a spread" \
  --bench /bin/true --repeat 2
expect "compare: --allocators: unknown 'jemalloc'; known: glibc, tcmalloc" \
  --bench /bin/true --allocators glibc,jemalloc
expect "compare: --python: $none is missing" --bench /bin/true --python "$none"
expect "compare: --tcmalloc: $none is missing: install Debian's libtcmalloc-minimal4 (PyTorch may \
be faster with it), or pass --allocators glibc and say so beside the results" \
  --bench /bin/true --tcmalloc "$none"
exit $((failures > 0))
