# For the tools' flag-error tests, sourced: `refused PROGRAM EXPECTED ARG...` runs PROGRAM ARG...
# and counts a failure (in $failures) unless it exits 2 printing exactly EXPECTED, the one line
# that names the bad argument.
failures=0
refused() {
  local program="$1" expected="$2"
  shift 2
  local out
  out=$("$program" "$@" 2>&1)
  local status=$?
  if [[ $status -ne 2 || "$out" != "$expected" ]]; then
    echo "FAIL: $program $*"
    echo "  expected (exit 2): $expected"
    echo "  got      (exit $status): $out"
    failures=$((failures + 1))
  fi
}
