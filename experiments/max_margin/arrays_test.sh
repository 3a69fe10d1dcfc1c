#!/usr/bin/env bash
# The main job's numbers can be checked from its files: numpy reads each 1c trial's p at the
# report steps and the ATT-SVM solution p_mm it was compared with, and recomputes the corr the
# table printed (and metrics.csv holds to 17 digits); p_mm's support tokens are the active
# constraints and its KKT residuals are tiny. (//experiments:max_margin is experiments/run with
# the 1c spec; in runfiles that binary would hide the spec folder of its name, so we call run.)
set -u
python=/usr/bin/python3
"$python" -c "import numpy" 2>/dev/null || {
  echo "needs numpy for $python: apt-get install python3-numpy"; exit 1; }
out="$TEST_TMPDIR/1c"
experiments/run --spec=experiments/max_margin/1c.textproto --out="$out" \
  > "$TEST_TMPDIR/table.txt" 2> "$TEST_TMPDIR/stderr.txt" || {
  echo "the main job failed:"; cat "$TEST_TMPDIR/stderr.txt"; exit 1; }
exec "$python" - "$out" "$TEST_TMPDIR/table.txt" experiments/max_margin/1c.textproto <<'PY'
import csv, os, re, sys
import numpy as np

out, table_path, spec_path = sys.argv[1:]
failures = []

def check(ok, what):
    if not ok:
        failures.append(what)

# The spec's tokens (the authors' draw), to check the constraints p_mm's support says are active.
tokens = [[float(v) for v in row.split(",")]
          for row in re.findall(r"token \{ x: \[([^\]]*)\] \}", open(spec_path).read())]
X = np.array(tokens).reshape(3, 7, 3)

with open(table_path) as f:
    rows = [line.split() for line in f if line.strip()]
header = rows[0]
printed = {(r[0], int(r[header.index("step")])): float(r[header.index("corr_mm")]) for r in rows[1:]}
trials = sorted({trial for trial, _ in printed})
check(len(trials) == 24, f"{len(trials)} trials in the table, expected 24")

for trial in trials:
    d = os.path.join(out, trial)
    steps = np.load(os.path.join(d, "params/steps.npy"))
    p = np.load(os.path.join(d, "params/attention/p.npy"))[:, :, 0]
    w = np.load(os.path.join(d, "params/attention/w.npy"))
    p_mm = np.load(os.path.join(d, "solutions/corr_mm/p_mm.npy"))
    check(list(np.load(os.path.join(d, "solutions/corr_mm/steps.npy"))) == list(steps),
          f"{trial}: solution steps differ from parameter steps")
    logged = {}
    with open(os.path.join(d, "metrics.csv")) as f:
        for row in csv.DictReader(f):
            if row["metric"] == "corr_mm":
                logged[int(row["step"])] = float(row["value"])
    for k, step in enumerate(steps):
        corr = p[k] @ p_mm[k] / (np.linalg.norm(p[k]) * np.linalg.norm(p_mm[k]))
        check(abs(corr - logged[step]) < 1e-14,
              f"{trial} step {step}: corr from the arrays {corr!r}, metrics.csv {logged[step]!r}")
        check(float(f"{corr:.6g}") == printed[(trial, int(step))],
              f"{trial} step {step}: corr from the arrays {corr:.6g}, table {printed[(trial, step)]}")
    # The last snapshot's solution: its support tokens are exactly the active constraints.
    W = w[-1].T  # the layer's query-key form is W^T
    support = np.load(os.path.join(d, "solutions/corr_mm/p_mm_support.npy"))[-1]
    selected = np.load(os.path.join(d, "solutions/corr_mm/selected.npy"))[-1]
    kkt = np.load(os.path.join(d, "solutions/corr_mm/p_mm_kkt.npy"))[-1]
    check(kkt.max() < 1e-12, f"{trial}: KKT residuals {kkt}")
    for i in range(3):
        for t in range(7):
            if t == selected[i]:
                continue
            margin = (X[i, selected[i]] - X[i, t]) @ W @ p_mm[-1]
            check(margin > 1 - 1e-9, f"{trial}: constraint ({i}, {t}) violated: {margin}")
            if support[i, t]:
                check(abs(margin - 1) < 1e-9, f"{trial}: support token ({i}, {t}) has margin {margin}")

if failures:
    print("\n".join(failures[:20]))
    sys.exit(1)
print(f"PASS: {len(trials)} trials, corr recomputed from the .npy files at {len(printed)} report rows")
PY
