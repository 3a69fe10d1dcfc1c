#!/usr/bin/env bash
# tools/compare_pytorch/compare refuses bad flags (exit 2, one line naming the flag) before it
# starts PyTorch or a benchmark: a half-configured comparison would print a misleading table.
# And its table's header names the CPU right.
set -u
source tools/refusal_check.sh
expect() { refused tools/compare_pytorch/compare "$@"; }
none="$TEST_TMPDIR/none"
expect "compare: $none is missing: run tools/bazel build -c opt //experiments:bench first" \
  --bench "$none"
expect "compare: $none is missing: run tools/bazel build -c opt //attention/kernels:gemm_ab first" \
  --bench /bin/true --gemm-ab "$none"
# /bin/true stands in for the benchmarks: every check below comes before they run.
expect "compare: --repeat=2: at least 3 runs per side, for a median and a spread" \
  --bench /bin/true --gemm-ab /bin/true --repeat 2
expect "compare: --allocators: unknown 'jemalloc'; known: glibc, glibc-heap, tcmalloc" \
  --bench /bin/true --gemm-ab /bin/true --allocators glibc,jemalloc
expect "compare: --python: $none is missing" --bench /bin/true --gemm-ab /bin/true --python "$none"
expect "compare: --tcmalloc: $none is missing: install Debian's libtcmalloc-minimal4 (PyTorch may \
be faster with it), or pass --allocators glibc,glibc-heap and say so beside the results" \
  --bench /bin/true --gemm-ab /bin/true --tcmalloc "$none"

# The CPU its table's header names, from the first processor of /proc/cpuinfo.
cores=$(nproc)
for case in "xeon|Intel(R) Xeon(R) Platinum 8568Y+ (GenuineIntel family 6 model 207, $cores cores, AVX-512: yes)" \
  "zen3|AMD EPYC (AuthenticAMD family 25 model 1, $cores cores, AVX-512: no)"; do
  file=tools/testdata/cpuinfo/${case%%|*}.txt expected=${case#*|}
  got=$(/usr/bin/python3 -c 'import sys
from importlib.machinery import SourceFileLoader
compare = SourceFileLoader("compare", "tools/compare_pytorch/compare").load_module()
print(compare.machine(sys.argv[1]))' "$file")
  if [[ "$got" != "$expected" ]]; then
    echo "FAIL: machine($file)"
    echo "  expected: $expected"
    echo "  got:      $got"
    failures=$((failures + 1))
  fi
done

# The GEMM peak from the libraries: the fastest library's rate, summed over the processes that
# ran at once (a stand-in gemm_ab printing fixed rates: 90 and 110 GFLOP/s a process).
fake="$TEST_TMPDIR/gemm_ab"
cat > "$fake" <<'FAKE'
#!/bin/sh
echo '{"benchmarks": [{"name": "BM_Gemm/peak_2048/blis", "GFLOP/s": 9.0e10},
  {"name": "BM_Gemm/peak_2048/ours/tiled", "GFLOP/s": 1.1e11}]}'
FAKE
chmod +x "$fake"
got=$(/usr/bin/python3 -c 'import sys
from importlib.machinery import SourceFileLoader
compare = SourceFileLoader("compare", "tools/compare_pytorch/compare").load_module()
print(compare.library_peak(sys.argv[1], 2))' "$fake")
[[ "$got" == "(220.0, 'ours/tiled')" ]] || { echo "FAIL: library_peak: $got"; failures=$((failures + 1)); }
# The real gemm_ab has the rows it reads.
attention/kernels/gemm_ab --benchmark_list_tests 2>/dev/null | grep -q "^BM_Gemm/peak_2048/blis$" ||
  { echo "FAIL: gemm_ab lists no BM_Gemm/peak_2048/blis"; failures=$((failures + 1)); }

# Every form of attnlab's that compare times is a benchmark experiments/bench registers.
listed=$(experiments/bench --product_backend=tiled --benchmark_list_tests 2>/dev/null)
timed=$(/usr/bin/python3 -c 'from importlib.machinery import SourceFileLoader
compare = SourceFileLoader("compare", "tools/compare_pytorch/compare").load_module()
for ours, _ in compare.WORKLOADS.values():
    for benchmark in ours.values():
        print(benchmark)') || { echo "FAIL: could not read compare's workloads"; exit 1; }
for name in $timed; do
  for threads in 1 2; do
    if ! grep -q "^$name/threads:$threads/" <<<"$listed"; then
      echo "FAIL: compare times $name/threads:$threads, which experiments/bench does not register"
      failures=$((failures + 1))
    fi
  done
done
# Every PyTorch form compare runs is a workload of workloads.py (where this Python has PyTorch,
# which tools/bazel does not install: the comparison's own dependency).
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  missing=$(/usr/bin/python3 -c 'from importlib.machinery import SourceFileLoader
compare = SourceFileLoader("compare", "tools/compare_pytorch/compare").load_module()
workloads = SourceFileLoader("workloads", "tools/compare_pytorch/workloads.py").load_module()
for _, theirs in compare.WORKLOADS.values():
    for name in theirs:
        if name not in workloads.WORKLOADS:
            print(name)') || { echo "FAIL: could not read workloads.py's workloads"; exit 1; }
  for name in $missing; do
    echo "FAIL: compare runs PyTorch's $name, which workloads.py does not define"
    failures=$((failures + 1))
  done
  # Every subset draw compare races is a uniform draw of q distinct positions: the forms differ
  # in speed only. 20,000 draws of 3 of 10 (seeded): each position's share within 10% of 3/10.
  drawn=$(/usr/bin/python3 -c 'from importlib.machinery import SourceFileLoader
import torch
workloads = SourceFileLoader("workloads", "tools/compare_pytorch/workloads.py").load_module()
for name, draw in workloads.SUBSET_DRAWS.items():
    torch.manual_seed(0)
    subset = draw(20000, 10, 3)
    distinct = all(len(set(row)) == 3 for row in subset.tolist())
    share = torch.bincount(subset.flatten(), minlength=10).double() / 20000
    in_range = int(subset.min()) >= 0 and int(subset.max()) < 10
    if not (distinct and in_range and float((share - 0.3).abs().max()) < 0.03):
        print(name, distinct, in_range, share.tolist())') ||
    { echo "FAIL: could not draw workloads.py's subsets"; exit 1; }
  [[ -z "$drawn" ]] || { echo "FAIL: a subset draw is not uniform over distinct positions: $drawn"; failures=$((failures + 1)); }
else
  echo "compare's PyTorch forms not checked: /usr/bin/python3 has no torch"
fi
exit $((failures > 0))
