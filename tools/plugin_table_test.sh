#!/usr/bin/env bash
# Every row of plugins/README.md's table is a registered plugin with its summary (a new plugin may
# be missing until the table is regenerated).
set -euo pipefail
"$1" --check --run "$2" --readme "$3"
