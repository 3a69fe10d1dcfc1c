#!/usr/bin/env bash
# The trial code's key covers the files that compute and keep a trial's result and none of the
# ones that only schedule trials (the manifest that tools/code_version hashes: $1).
manifest="$1"
status=0
for file in experiments/trials/trial_runner.cc experiments/trials/prepare_trials.cc \
    experiments/store/results_store.cc attention/model.cc solvers/optimizer.h; do
  if ! grep -q "	$file\$" "$manifest"; then
    echo "FAIL: $file is trial code but not in the key ($manifest)"
    status=1
  fi
done
for file in experiments/trials/runner.cc experiments/trials/cluster.cc \
    experiments/trials/progress_board.cc; do
  if grep -q "	$file\$" "$manifest"; then
    echo "FAIL: $file only schedules trials but is in the key ($manifest)"
    status=1
  fi
done
exit $status
