#!/usr/bin/env bash
# generate.sh hashes the core and each plugin folder apart: editing a plugin's file changes its
# folder's hash and nothing else; editing a core file changes only the core's.
set -euo pipefail
generate=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p core plugins/metrics/a plugins/b
echo 'int core;' > core/c.cc
echo 'int a;' > plugins/metrics/a/a.cc
echo 'int b;' > plugins/b/b.cc
printf '\tcore/c.cc\nplugins/metrics/a\tplugins/metrics/a/a.cc\nplugins/b\tplugins/b/b.cc\n#settings\n\t//core:c [[], [], []]\nplugins/b\t//plugins:b [["-O3"], [], []]\n#flags\n\t-c opt\n' > manifest
printf 'STABLE_GIT_COMMIT abc\nSTABLE_GIT_TREE clean\n' > status
hashes() {  # the core's and each plugin's hash, one per line
  "$generate" manifest status "-c opt" out.cc
  grep -oE '(version.source = "[0-9a-f]+"|\{"plugins/[^"]+", "[0-9a-f]+"\})' out.cc
}
before=$(hashes)
[[ $(wc -l <<<"$before") == 3 ]] || { echo "expected 3 hashes, got: $before"; exit 1; }
# The lines of $2 that differ from $1's.
changed() { diff <(echo "$1") <(echo "$2") | sed -n 's/^> //p' || true; }
echo 'int a = 1;' > plugins/metrics/a/a.cc
after=$(hashes)
[[ $(changed "$before" "$after") == '{"plugins/metrics/a", '* ]] ||
  { echo "editing plugins/metrics/a changed: $(changed "$before" "$after")"; exit 1; }
[[ $(changed "$before" "$after" | wc -l) == 1 ]] || { echo "more than one hash changed"; exit 1; }
echo 'int core = 1;' > core/c.cc
again=$(hashes)
[[ $(changed "$after" "$again") == 'version.source = '* ]] ||
  { echo "editing the core changed: $(changed "$after" "$again")"; exit 1; }
[[ $(changed "$after" "$again" | wc -l) == 1 ]] || { echo "more than one hash changed"; exit 1; }
echo PASS
