#!/usr/bin/env bash
# tools/plot renders a results directory as a PNG, and names what is wrong when it cannot.
set -u
export MPLCONFIGDIR="$TEST_TMPDIR/mpl"  # matplotlib wants a writable cache
out="$TEST_TMPDIR/corr.png"
tools/plot tools/testdata/plot_fixture --metric corr --out "$out" || exit 1
# A PNG: the 8-byte signature, and an image of real size (1 panel at 550x440 pixels).
[[ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] || { echo "not a PNG"; exit 1; }
width=$(od -An -tu1 -j16 -N4 "$out" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
[[ "$width" -eq 550 ]] || { echo "width $width, expected 550"; exit 1; }
message=$(tools/plot tools/testdata/plot_fixture --metric nope 2>&1 >/dev/null)
[[ $? -eq 2 && "$message" == "tools/plot: no metric 'nope' in tools/testdata/plot_fixture; metrics: corr, loss" ]] ||
  { echo "unexpected error: $message"; exit 1; }
# Summary modes: error against parameter count, and error across several columns.
tools/plot tools/testdata/plot_fixture --x loss --y corr --out "$TEST_TMPDIR/xy.png" || exit 1
tools/plot tools/testdata/plot_fixture --series loss,corr --at 1,2 --out "$TEST_TMPDIR/s.png" || exit 1
[[ -s "$TEST_TMPDIR/xy.png" && -s "$TEST_TMPDIR/s.png" ]] || { echo "summary plots missing"; exit 1; }
message=$(tools/plot tools/testdata/plot_fixture --series loss --at 1,2 2>&1 >/dev/null)
[[ $? -eq 2 && "$message" == "tools/plot: --series loss has 1 columns but --at 2 positions" ]] ||
  { echo "unexpected error: $message"; exit 1; }
# Two series panels, seeds averaged (one seed here: zero error bars): 2 panels, 1100 pixels.
tools/plot tools/testdata/plot_fixture --series loss --at 1 --series corr --at 2 --mean_seeds \
  --panel_title "the loss" --panel_title "the corr" --out "$TEST_TMPDIR/two.png" || exit 1
message=$(tools/plot tools/testdata/plot_fixture --series loss --at 1 --series corr --at 2 \
  --panel_title one --out "$TEST_TMPDIR/one_title.png" 2>&1 >/dev/null)
[[ $? -eq 2 && "$message" == "tools/plot: 1 --panel_title for 2 panels" ]] ||
  { echo "unexpected error: $message"; exit 1; }
width=$(od -An -tu1 -j16 -N4 "$TEST_TMPDIR/two.png" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
[[ "$width" -eq 1100 ]] || { echo "two panels: width $width, expected 1100"; exit 1; }
tools/plot tools/testdata/plot_fixture --metric corr --mean_seeds --out "$TEST_TMPDIR/m.png" || exit 1
# --mean_over lr: the two trials (lr 0.1 and 1) make one line, their mean.
tools/plot tools/testdata/plot_fixture --metric corr --mean_seeds --mean_over lr \
  --out "$TEST_TMPDIR/mo.png" --data "$TEST_TMPDIR/mo.csv" || exit 1
[[ $(cut -d, -f2 "$TEST_TMPDIR/mo.csv" | sort -u | grep -vc label) -eq 1 ]] ||
  { echo "--mean_over lr: expected one line"; cat "$TEST_TMPDIR/mo.csv"; exit 1; }
# --min_over: of the trials that differ only in lr, the lowest corr (0.8 of 0.9 and 0.8); with
# --also, a second directory's trials beside them.
tools/plot tools/testdata/plot_fixture --x seed --y corr --min_over lr --out "$TEST_TMPDIR/f.png" \
  --data "$TEST_TMPDIR/f.csv" || exit 1
[[ "$(tail -n +2 "$TEST_TMPDIR/f.csv" | tr -d '\r')" == "corr,all seeds,0.0,0.8," ]] || {
  echo "min_over: unexpected points:"; cat "$TEST_TMPDIR/f.csv"; exit 1; }
mkdir -p "$TEST_TMPDIR/other"
cp -r tools/testdata/plot_fixture/. "$TEST_TMPDIR/other/"
tools/plot tools/testdata/plot_fixture --x loss --y corr --also "$TEST_TMPDIR/other" \
  --out "$TEST_TMPDIR/a.png" --data "$TEST_TMPDIR/a.csv" || exit 1
[[ $(grep -c "^corr,other: lr=" "$TEST_TMPDIR/a.csv") -eq 2 &&
   $(grep -c "^corr,plot_fixture: lr=" "$TEST_TMPDIR/a.csv") -eq 2 ]] || {
  echo "also: unexpected points:"; cat "$TEST_TMPDIR/a.csv"; exit 1; }
message=$(tools/plot tools/testdata/plot_fixture --metric corr --min_over lr 2>&1 >/dev/null)
[[ $? -eq 2 && "$message" == "tools/plot: --also and --min_over go with --x and --y" ]] ||
  { echo "unexpected error: $message"; exit 1; }
echo PASS
