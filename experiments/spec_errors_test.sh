#!/usr/bin/env bash
# Bad input gets one line on stderr naming file:line:column and the field (or the flag), and
# exit status 2, never a crash.
set -u
run="experiments/run"
data="experiments/testdata"
failures=0

# expect <expected stderr line> <args...>; a line ending in "..." need only start with the rest
# (the list of known plugins grows with every plugin).
expect() {
  local expected="$1"
  shift
  local stderr status matches=1
  stderr=$("$run" "$@" 2>&1 >/dev/null)
  status=$?
  if [[ "$expected" == *... ]]; then
    [[ "${stderr:0:${#expected}-3}" == "${expected%...}" && "$stderr" != *$'\n'* ]] || matches=0
  else
    [[ "$stderr" == "$expected" ]] || matches=0
  fi
  if [[ $status -ne 2 || $matches -eq 0 ]]; then
    echo "FAIL: $run $*"
    echo "  expected (exit 2): $expected"
    echo "  got      (exit $status): $stderr"
    failures=$((failures + 1))
  fi
}

expect "$data/unknown_plugin.textproto:6:5: model.layer[0].plugin: unknown layer plugin 'sofmax'; known: attention, classifier, embedding, ..." \
  --spec="$data/unknown_plugin.textproto" --dry_run
expect "$data/missing_field.textproto:5:3: model.layer[0].plugin: missing required field 'plugin'" \
  --spec="$data/missing_field.textproto" --dry_run
expect "$data/wrong_type.textproto:5:10: Expected integer, got: \"many\"" \
  --spec="$data/wrong_type.textproto" --dry_run
expect "$data/syntax_error.textproto:6:1: Expected identifier, got: end of file (an unclosed '{'?)" \
  --spec="$data/syntax_error.textproto" --dry_run
expect "$data/bad_plugin_config.textproto:8:11: model.layer[0].config.p.value: has 2 entries, expected 3 (a 3 x 1 parameter, row-major)" \
  --spec="$data/bad_plugin_config.textproto" --dry_run
# Data a shape cannot vouch for: the field that rejects it, located in the spec.
expect "$data/small_lm.textproto:8:14: model.layer[0].config.vocab_size: the data holds token id 13, outside 0..9 (in the training set) (trial lambda=0 seed=0)" \
  --spec="$data/small_lm.textproto" --set='model.layer[0].config.vocab_size=10' --dry_run
# CUDA asked for where it cannot run (no --config=cuda here, or no GPU): an error, not the CPU.
expect "$data/small_lm.textproto:3:1: model.device: ..." \
  --spec="$data/small_lm.textproto" --set=model.device=CUDA --dry_run
expect "$data/no_such_spec.textproto: cannot read spec file (No such file or directory)" \
  --spec="$data/no_such_spec.textproto"
# Every --set counts, not only the last.
expect "--set optimizer.lr=fast: value 'fast' for 'optimizer.lr' does not parse: column 1: Expected double, got: fast" \
  --spec=experiments/max_margin/1a.textproto --dry_run --set=optimizer.lr=fast --set=training.steps=5
expect "--threads=-1: must be >= 0" --spec="$data/unknown_plugin.textproto" --threads=-1

# A batch larger than the machine's memory: a spec error, not std::bad_alloc (rc 134) at run time.
expect "experiments/max_margin/1a.textproto:37:1: training.batch_size: a batch of 2147483647 samples of 3 x 3 takes 144 GiB for its inputs alone; this machine has ..." \
  --spec=experiments/max_margin/1a.textproto --set=training.batch_size=2147483647
# A directory where a data file should be: said so (CIFAR-10's reader threw std::ios_failure).
expect "$data/cifar.textproto:6:13: dataset.config.train.images: $data/.: is a directory, not a file" \
  --spec="$data/cifar.textproto" --set='dataset.config.train.images=["."]' --dry_run

# An override the sweep replaces in every trial (1c's axis `optimizer` sets the whole optimizer):
# an error, not the default results (lr=nan exited 0).
expect "--set optimizer.lr=nan: the sweep's axis 'optimizer' (sweep.axis[1]) sets optimizer in every trial and would replace this value; change the axis's values instead" \
  --spec=experiments/max_margin/1c.textproto --set=optimizer.lr=nan --dry_run
expect "--set training={ steps: 5 }: the sweep's axis 'model' (sweep.axis[0]) sets training in every trial and would replace this value; change the axis's values instead" \
  --spec=experiments/sparse_selection/3c.textproto '--set=training={ steps: 5 }' --dry_run

# Numbers at the extremes and non-finite ones (the first two exited 134 with std::bad_alloc, the
# others trained: std inf made every pixel 0, an optimizer through "." was dropped).
expect "experiments/max_margin/1a.textproto:39:3: training.log_every: every 10 of training.steps = 9223372036854775807 logs 922337203685477581 steps; at most 1000000 fit a trial's results (raise log_every) (trial s=1 seed=0)" \
  --spec=experiments/max_margin/1a.textproto --set=training.steps=9223372036854775807
expect "experiments/max_margin/1a.textproto:39:3: training.log_every: every 10 of training.steps = 1000000000000 logs 100000000001 steps; at most 1000000 fit a trial's results (raise log_every) (trial s=1 seed=0)" \
  --spec=experiments/max_margin/1a.textproto --set=training.steps=1000000000000 --dry_run
expect "$data/cifar.textproto:4:20: dataset.config.std[0]: must be a finite number, got inf" \
  --spec="$data/cifar.textproto" '--set=dataset.config.std=[inf, 1, 1]' '--set=dataset.config.mean=[0, 0, 0]' --dry_run
expect "--set .=optimizer { plugin: \"adam\" lr: nan }: the sweep's axis 'optimizer' (sweep.axis[1]) sets optimizer in every trial and would replace this value; change the axis's values instead" \
  --spec=experiments/max_margin/1c.textproto '--set=.=optimizer { plugin: "adam" lr: nan }' --dry_run
# A directory where the spec should be: said so (it read as an empty spec).
expect "experiments: is a directory, not a spec file" --spec=experiments --dry_run

# A retired config type or plugin name: the error names what replaced it.
expect "$data/retired_config.textproto:6:75: Could not find type \"type.googleapis.com/attnlab.plugins.SoftmaxAttentionConfig\" stored in google.protobuf.Any.; SoftmaxAttentionConfig was replaced (2026-11-23) by the layer plugin 'attention' with AttentionConfig (heads, qk_dim, value_dim, causal, bias, output_dim, q/k/v/o; softmax is its default mechanism) and, for query: PROMPT, by the plugin 'prompt' with PromptAttentionConfig (p, w, v, scale)" \
  --spec="$data/retired_config.textproto" --dry_run
expect "$data/retired_builtins.textproto:9:13: optimizer.adam: attnlab.OptimizerSpec has no field 'adam'; the built-in optimizers are plugins since 2026-12-02: write \`adam { ... }\` as \`plugin: \"adam\" config { ... }\` (paths: adam.x is config.x)" \
  --spec="$data/retired_builtins.textproto" --dry_run
expect "experiments/max_margin/1a.textproto:11:5: model.layer[0].plugin: unknown layer plugin 'softmax'; known: attention, ..." \
  --spec=experiments/max_margin/1a.textproto '--set=model.layer[0].plugin=softmax' --dry_run
stderr=$("$run" --spec=experiments/max_margin/1a.textproto '--set=model.layer[0].plugin=softmax' --dry_run 2>&1)
[[ "$stderr" == *"; softmax is a mechanism since 2026-11-23: the layer plugin 'attention' runs it by default, 'prompt' is paper 1's one-query form (trial s=1 seed=0)" ]] || {
  echo "FAIL: the retired plugin 'softmax' without its replacement: $stderr"; failures=$((failures + 1)); }

# A good spec passes the same dry run.
if ! "$run" --spec=experiments/max_margin/1a.textproto --dry_run >/dev/null; then
  echo "FAIL: the 1a spec does not pass --dry_run"
  failures=$((failures + 1))
fi
exit $((failures > 0))
