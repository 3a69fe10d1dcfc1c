#!/usr/bin/env bash
# README's plugin table lists exactly the registered plugins, with their summaries.
set -euo pipefail
"$1" --check --run "$2" --readme "$3"
