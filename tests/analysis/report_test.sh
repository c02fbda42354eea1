#!/bin/bash
# The analysis report on a small campaign made here: analysis/report.py must write every table and
# figure, its tables must hold the /summary values of the runs they came from (means and 95% CIs
# over seeds), it must follow a campaign.json and skip a failed point, and analysis/dikeio.py must
# reject a truncated output with one clear line.
#
#   report_test.sh DIKE_EMU SOURCE_DIR MPIEXEC_NP_FLAG MPIEXEC...
#
# Needs Debian's /usr/bin/python3 with python3-h5py, python3-numpy and python3-matplotlib (or
# $DIKE_PYTHON); without them the test FAILS naming the packages: the analysis is part of the
# product (scripts/deps.sh installs them). Registered by tests/analysis/CMakeLists.txt.
set -eu
DIKE_EMU="$1"
SRC_DIR=$(readlink -f -- "$2")
DIKE_NP_FLAG="$3"
DIKE_MPIEXEC=("${@:4}")
. "$(dirname "$0")/../lib/testlib.sh"
PY="${DIKE_PYTHON:-/usr/bin/python3}"
HERE="$SRC_DIR/tests/analysis"

if ! "$PY" -c 'import h5py, numpy, matplotlib, scipy, tabulate' 2>/dev/null; then
    fail "$PY cannot import h5py, numpy, matplotlib, scipy and tabulate: apt-get install python3-h5py python3-numpy python3-matplotlib python3-scipy python3-tabulate (scripts/deps.sh)"
fi
ok "$PY has h5py, numpy, matplotlib, scipy and tabulate"
dike_tmp_init analysis_report
cd "$T"
export MPLBACKEND=Agg

# report PATHS... -- ARGS...: run report.py, output in $T/<name>.log; exit status in $rc.
report()
{
    local log="$1"
    shift
    rc=0
    "$PY" "$SRC_DIR/analysis/report.py" "$@" >"$log" 2>&1 || rc=$?
}

# The campaign: 8 nodes of 8 GPUs, 120 synthetic jobs of 3 tenants; 2 loads x 2 seeds x
# (fifo, sjf, themis, dike w=0, dike w=1) = 20 points in one process, and point 0 once more on
# 2 ranks (scaling figure) in a second output folder.
cat >grid.ini <<'EOF'
[campaign]
name = an
out_dir = runs

[cluster]
nodes = 8
nodes_per_rack = 4

[workload]
jobs = 120
tenants = 3

[output]
timeseries_interval_s = 600

[sweep:baselines]
policy = fifo, sjf, themis
load = 0.7, 1.2
seed = 1, 2

[sweep:dike]
policy = dike
dike.fairness_weight = 0, 1
load = 0.7, 1.2
seed = 1, 2
EOF
# the analysis's default knob is the emulator's (dikeio.DEFAULT_KNOB, used by report.py and held_out.py)
want=$(bash "$SRC_DIR/scripts/config-default.sh" "$DIKE_EMU" dike fairness_weight) || want=""
got=$(cd "$SRC_DIR/analysis" && "$PY" -c 'import dikeio; print("%g" % dikeio.DEFAULT_KNOB)')
[ -n "$want" ] && [ "$want" = "$got" ] || fail "dikeio.DEFAULT_KNOB is $got, dike-emu config-reference says '$want'"
ok "dikeio.DEFAULT_KNOB = the emulator's default fairness_weight ($want)"
emu campaign grid.ini -q >campaign.log 2>&1 || { show_file log campaign.log; fail "dike-emu campaign grid.ini"; }
emu_mpi 2 campaign grid.ini --ranks-per-run 2 --point 0 --out-dir extra -q >campaign2.log 2>&1 ||
    { show_file log campaign2.log; fail "dike-emu campaign grid.ini --point 0 on 2 ranks"; }
nruns=$(ls runs/*.h5 | wc -l)
[ "$nruns" -eq 20 ] && [ "$(ls extra/*.h5 | wc -l)" -eq 1 ] || fail "expected 20 + 1 outputs, got $nruns + $(ls extra/*.h5 | wc -l)"
ok "campaign: 20 points in runs/, point 0 on 2 ranks in extra/"
DIKE_W0=$(ls runs/*policy=dike-fairness_weight=0-load=0.7-seed=1.h5)
SJF=$(ls runs/*policy=sjf-load=1.2-seed=1.h5)

# --- dikeio: a complete file gives one line; a truncated copy exits 1 with one clear line.
"$PY" "$SRC_DIR/analysis/dikeio.py" "$DIKE_W0" >dikeio.out 2>dikeio.err ||
    { show_file stderr dikeio.err; fail "dikeio.py on a complete file: non-zero exit"; }
grep -q 'policy dike (w=0), placement pack, seed 1' dikeio.out && [ "$(wc -l <dikeio.out)" -eq 1 ] ||
    { show_file stdout dikeio.out; fail "dikeio.py: expected one summary line naming policy dike (w=0), seed 1"; }
ok "dikeio.py accepts a complete file: $(cut -c1-60 dikeio.out)..."
mkdir -p loose
cp "$SJF" loose/sjf.h5
head -c $(($(stat -c %s "$SJF") / 2)) "$SJF" >truncated.h5
rc=0
"$PY" "$SRC_DIR/analysis/dikeio.py" truncated.h5 >dikeio.out 2>dikeio.err || rc=$?
[ "$rc" -eq 1 ] || fail "dikeio.py on a truncated file: exit status $rc, expected 1"
[ "$(wc -l <dikeio.err)" -eq 1 ] && [ ! -s dikeio.out ] ||
    { show_file stderr dikeio.err; fail "dikeio.py on a truncated file: expected exactly one stderr line and no stdout"; }
grep -q "^dikeio: truncated.h5: truncated HDF5 file (.*): not a complete dike-emu output$" dikeio.err ||
    { show_file stderr dikeio.err; fail "dikeio.py: the message does not say the file is truncated"; }
ok "dikeio.py rejects a truncated file: $(cat dikeio.err)"
"$PY" - "$SRC_DIR/analysis" truncated.h5 <<'EOF' || fail "dikeio.load did not raise NotDikeOutput on the truncated file"
import sys
sys.path.insert(0, sys.argv[1])
import dikeio
try:
    dikeio.load(sys.argv[2])
except dikeio.NotDikeOutput:
    sys.exit(0)
sys.exit(1)
EOF
ok "dikeio.load raises NotDikeOutput on the truncated file"

# --- the report on the campaign (runs/ through its campaign.json, extra/ through its own)
report report.log runs extra -o report
[ "$rc" -eq 0 ] || { show_file log report.log; fail "report.py runs extra: exit status $rc"; }
grep -q "extra/campaign.json: 19 points not run yet (status pending), e.g. point 1; skipped" report.log ||
    { show_file log report.log; fail "report.py: no single warning for extra/'s 19 pending points"; }
ok "report.py on 21 runs: exit 0, one warning line for the 19 points extra/ did not run"

for f in report.md tables/runs.csv tables/scaling.csv tables/scaling.md tables/monotonicity.csv; do
    [ -s "report/$f" ] || fail "missing or empty: $f"
done
nfig=0
for slug in synthetic-load-0.7-64-gpus synthetic-load-1.2-64-gpus; do
    for ext in md csv tex; do
        [ -s "report/tables/$slug.$ext" ] || fail "missing or empty: tables/$slug.$ext"
    done
    grep -q "(tables/$slug.csv)" report/report.md || fail "report.md does not link tables/$slug.csv"
    for ext in md csv; do
        [ -s "report/tables/$slug-tenants.$ext" ] || fail "missing or empty: tables/$slug-tenants.$ext"
    done
    grep -q "(tables/$slug-tenants.csv)" report/report.md || fail "report.md does not link tables/$slug-tenants.csv"
    for fig in jct_cdf rho_cdf timeseries tenant_share tenant_entitlement frontier jct_by_size; do
        for ext in png pdf; do
            [ -s "report/figures/$slug-$fig.$ext" ] || fail "missing or empty: figures/$slug-$fig.$ext"
        done
        grep -q "(figures/$slug-$fig.png)" report/report.md || fail "report.md does not embed figures/$slug-$fig.png"
        nfig=$((nfig + 1))
    done
done
# both loads (0.7, 1.2) on one cluster size: one figure against load, and its section
for ext in png pdf; do
    [ -s "report/figures/synthetic-64-gpus-against_load.$ext" ] || fail "missing or empty: figures/synthetic-64-gpus-against_load.$ext"
done
grep -q "(figures/synthetic-64-gpus-against_load.png)" report/report.md && grep -q '^## Against load$' report/report.md &&
    grep -q '^| dike w=0 | ' report/report.md ||
    fail "report.md does not embed the figure against load, its section or its table"
nfig=$((nfig + 1))
[ -s report/figures/scaling.png ] && [ -s report/figures/scaling.pdf ] || fail "missing scaling figure"
grep -q "(figures/scaling.png)" report/report.md || fail "report.md does not embed the scaling figure"
nfig=$((nfig + 1))
for f in report/figures/*.png; do
    [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$(basename "$f") is not a PNG"
done
for f in report/figures/*.pdf; do
    [ "$(head -c 5 "$f")" = "%PDF-" ] || fail "$(basename "$f") is not a PDF"
done
extra=$(ls report/figures | grep -cv -E '^(synthetic-load-(0\.7|1\.2)-64-gpus-(jct_cdf|rho_cdf|timeseries|tenant_share|tenant_entitlement|frontier|jct_by_size)|synthetic-64-gpus-against_load|scaling)\.(png|pdf)$' || true)
[ "$extra" -eq 0 ] || fail "unexpected files in figures/: $(ls report/figures)"
ok "$nfig figures (PNG and PDF, nothing else) and 2 x (3 + 2 tenant) group tables + runs/scaling tables exist; report.md embeds them"

"$PY" "$HERE/check_report.py" report runs extra || fail "tables differ from /summary"
dike_checks=$((dike_checks + 1))

for want in 'Generated by `analysis/report.py` from 21 runs in 2 (trace, load, cluster size) groups' \
            '**Knob monotonicity**' '### Checks' \
            '95% confidence interval' '### Dike against the best baseline' 'Tolerance: values that print the same' '## Inputs' \
            '### Tenants' "Each cell: the tenant's received share" '### Paired differences from dike w=1' \
            '| extra/an-0000-policy=fifo-load=0.7-seed=1.h5 | fifo | 1 | 2 |' \
            'for 1 configuration run with several rank counts (ranks 1, 2)'; do
    grep -qF -- "$want" report/report.md || fail "report.md lacks '$want'"
done
ok "report.md: run count, CI note, Dike comparison, paired differences, inputs with seed and ranks, scaling over ranks 1 and 2"

# --- paper options: one unit everywhere (--units min), chosen columns, page-wide figures; the
# LaTeX table has the chosen columns only, and figures are drawn at their printed width.
report paper.log runs -o paper --units min --columns avg_jct,unfair_fraction,jain --figsize column \
    --figure-kinds frontier,jct_cdf --dpi 100 --policies fifo,dike --reference fifo
[ "$rc" -eq 0 ] || { show_file log paper.log; fail "report.py with --units/--columns/--figsize/--policies: exit $rc"; }
grep -q '(min)' paper/report.md && ! grep -qE 'JCT \((s|h)\)' paper/report.md ||
    fail "report.md: --units min, yet a JCT header in s or h"
tex=paper/tables/synthetic-load-1.2-64-gpus.tex
grep -q '^policy & avg JCT & unfair & Jain \\\\$' "$tex" && grep -q 'begin{tabular}{@{}lrrr@{}}' "$tex" ||
    { show_file tex "$tex"; fail "LaTeX: --columns avg_jct,unfair_fraction,jain gives a 4-column tabular"; }
grep -q '### Paired differences from fifo' paper/report.md || fail "report.md: --reference fifo not used"
"$PY" - paper/figures <<'PYEOF' || fail "a --figsize column figure is not 3.4 in wide"
import sys, os
import matplotlib.image as mpimg
for name in sorted(os.listdir(sys.argv[1])):
    if name.endswith(".png"):
        w = mpimg.imread(os.path.join(sys.argv[1], name)).shape[1] / 100.0
        if not 3.0 <= w <= 3.6:
            sys.exit("%s: %.2f in wide at 100 dpi" % (name, w))
print("column figures: 3.0-3.6 in wide")
PYEOF
[ ! -e paper/figures/scaling.png ] && grep -q 'so there is no scaling figure' paper/report.md ||
    fail "runs/ all ran on one rank, yet a scaling figure (or no sentence saying why there is none)"
[ ! -e paper/figures/synthetic-64-gpus-against_load.png ] && grep -q '^## Against load$' paper/report.md ||
    fail "--figure-kinds frontier,jct_cdf: a figure against load drawn (or its table missing)"
ok "--units min, --columns (a 4-column LaTeX tabular), --reference fifo, column-wide figures, no scaling figure for one rank count"
# --- one load: no figure against load, no section (the load axis needs two points)
report oneload.log runs/*-load=0.7-*.h5 -o oneload --figure-kinds against_load --no-tables
[ "$rc" -eq 0 ] || { show_file log oneload.log; fail "report.py on the runs of load 0.7: exit $rc"; }
[ -z "$(ls oneload/figures 2>/dev/null)" ] && ! grep -q 'Against load' oneload/report.md ||
    fail "one load: a figure against load or its section ($(ls oneload/figures 2>/dev/null))"
ok "the figure against load: drawn for loads 0.7 and 1.2 (with its table), not with --figure-kinds without it, not for one load"
# --- /summary/window (metrics.window): a copy of two runs with a window whose avg_jct is 1000 s
# and 3000 s; --window on reads it (the table shows 1,000 and 3,000), --window off does not, and
# --window on with a run lacking it stops with one line.
mkdir -p win
cp "$DIKE_W0" win/a.h5
cp "$SJF" win/b.h5
"$PY" - win/a.h5 win/b.h5 <<'PYEOF'
import sys, h5py
for path, jct in zip(sys.argv[1:], (1000.0, 3000.0)):
    with h5py.File(path, "r+") as f:
        w = f["summary"].create_group("window")
        for k, v in f["summary"].attrs.items():
            if k not in ("units", "description"):
                w.attrs[k] = v
        w.attrs["avg_jct"] = jct
        w.attrs["first_job"] = 10
        w.attrs["last_job"] = 100
PYEOF
report win.log win -o win-on --window on --no-figures --units s
[ "$rc" -eq 0 ] && grep -q '| *1,000 |' win-on/report.md && grep -q '| *3,000 |' win-on/report.md &&
    grep -q 'steady-state window.*first_job=10, last_job=100' win-on/report.md ||
    { show_file log win.log; fail "--window on: the window's avg JCT (1,000 s, 3,000 s) and bounds not in the report"; }
report win-off.log win -o win-off --window off --no-figures --units s
grep -q '| *1,000 |' win-off/report.md && fail "--window off still used the window"
cp "$SJF" win/c.h5
report win-bad.log win -o win-bad --window on --no-figures
[ "$rc" -eq 1 ] && [ "$(wc -l <win-bad.log)" -eq 1 ] && grep -q 'c.h5 has no /summary/window' win-bad.log ||
    { show_file log win-bad.log; fail "--window on with a run without a window: exit $rc, expected 1 and one line"; }
ok "--window: the window's metrics used when asked, not with off, one clear error for a run without one"

if command -v pdflatex >/dev/null; then
    # Not in CI (texlive is about 50 MB of packages): where pdflatex is installed, every table compiles
    # and fits a two-column page's \textwidth (505 pt, ACM/IEEE-like).
    for t in report/tables/synthetic-*.tex paper/tables/synthetic-*.tex; do
        printf '\\documentclass[twocolumn]{article}\\setlength{\\textwidth}{505pt}\\usepackage{booktabs}\\begin{document}\\input{%s}\\end{document}\n' \
            "$(readlink -f "$t")" >doc.tex
        pdflatex -interaction=nonstopmode -halt-on-error doc.tex >latex.log 2>&1 || { show_file log latex.log; fail "pdflatex: $t"; }
        ! grep -q 'Overfull \\hbox' latex.log || { show_file log latex.log; fail "pdflatex: $t is wider than \\textwidth"; }
    done
    ok "pdflatex compiles every LaTeX table, none wider than a two-column page"
fi

# --- runs of two versions of the emulator's sources (as after a change of the code mid-campaign):
# one warning line and a paragraph naming both; none for runs of one version.
mkdir -p mixed
cp "$SJF" mixed/a.h5
cp "$SJF" mixed/b.h5
"$PY" "$SRC_DIR/tests/lib/h5_set_attrs.py" mixed/b.h5 source_sha256=abababababababababababababababababababababababababababababababab build=v0.0.9-old
report mixed.log mixed -o mixed-report --no-figures
[ "$rc" -eq 0 ] || { show_file log mixed.log; fail "report.py mixed/: exit $rc"; }
[ "$(grep -c "warning: the runs were computed by 2 versions of the emulator's sources (.*: 1, .*: 1)" mixed.log)" = 1 ] ||
    { show_file log mixed.log; fail "report.py: no warning on two versions of the sources"; }
grep -q "^\*\*Emulator code.\*\* These runs were computed by 2 versions of the emulator's sources .*abababababab... (1 run; build v0.0.9-old)" mixed-report/report.md ||
    fail "report.md: no paragraph on the two versions"
! grep -q "Emulator code\|versions of the emulator" report.log report/report.md ||
    fail "a note on emulator versions for runs of one version"
ok "two versions of the emulator's sources: one warning, a paragraph naming both; none for one version"

# --- a folder without manifest: a crashed run's .tmp leftover is not a run; a truncated .h5 is
# skipped with a warning (and listed in the report), or stops the report with --strict.
head -c 4096 "$SJF" >loose/crashed.h5.tmp-12345
cp truncated.h5 loose/
report loose.log loose -o loose-report --no-figures
[ "$rc" -eq 0 ] || { show_file log loose.log; fail "report.py loose/: exit $rc"; }
grep -q "warning: .*loose/truncated.h5: truncated HDF5 file" loose.log ||
    { show_file log loose.log; fail "report.py: no warning for the truncated file"; }
grep -qF 'from 1 run in 1 (trace, load, cluster size) group; 1 input skipped' loose-report/report.md ||
    fail "report.md: expected 1 run and 1 skipped input"
grep -q 'truncated.h5: truncated HDF5 file' loose-report/report.md || fail "report.md does not list the skipped file"
grep -q 'crashed' loose-report/report.md loose.log && fail "the .tmp leftover was read"
ok "loose/: the truncated file skipped with a warning and listed, the .tmp leftover ignored"
report strict.log loose -o strict-report --strict --no-figures
[ "$rc" -eq 1 ] && [ "$(wc -l <strict.log)" -eq 1 ] && grep -q "^report: .*truncated.h5: truncated HDF5 file" strict.log ||
    { show_file log strict.log; fail "report.py --strict with a truncated input: exit $rc, expected 1 and one line naming the file"; }
ok "report.py --strict stops at the truncated file: $(cat strict.log)"

# --- a campaign with a failed point (a missing trace): the failed point is skipped with a
# warning that carries its error, and a stray .h5 in the folder is not read.
cat >broken.ini <<'EOF'
[campaign]
name = br
out_dir = camp

[cluster]
nodes = 8
nodes_per_rack = 4

[workload]
jobs = 120
tenants = 3
load = 1.2

[sweep]
policy = fifo, dike

[sweep:broken]
workload.trace = missing.csv
EOF
rc=0
emu campaign broken.ini -q >camp-run.log 2>&1 || rc=$?
[ "$rc" -eq 1 ] && [ -s camp/campaign.json ] ||
    { show_file log camp-run.log; fail "dike-emu campaign broken.ini: exit $rc (expected 1: one failed point) or no campaign.json"; }
cp "$SJF" camp/stray.h5
report camp.log camp -o camp-report --no-figures
[ "$rc" -eq 0 ] || { show_file log camp.log; fail "report.py on a campaign folder: exit $rc"; }
grep -q "warning: camp/campaign.json: point 2 (br-0002-.*\.h5) has status 'FAILED': .*missing.csv.*; skipped" camp.log ||
    { show_file log camp.log; fail "no warning naming the failed point and its error"; }
grep -qF 'from 2 runs in 1 (trace, load, cluster size) group' camp-report/report.md ||
    { show_file log camp.log; fail "campaign report: expected 2 runs (the manifest's completed points)"; }
grep -q 'stray' camp-report/report.md && fail "campaign report read stray.h5, which the manifest does not list"
ok "campaign with a failed point: its 2 completed points read, the failed one skipped with its error, a stray file ignored"

# --- figures are real pictures: PNG size and not one flat colour.
"$PY" - report/figures <<'PYEOF' || fail "a figure is too small or blank"
import sys, os
import matplotlib.image as mpimg
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    if not name.endswith(".png"):
        continue
    img = mpimg.imread(os.path.join(d, name))
    h, w = img.shape[:2]
    if h < 200 or w < 300 or img[..., :3].std() < 0.01:
        sys.exit("%s: %dx%d, colour std %.4f" % (name, w, h, img[..., :3].std()))
print("figures: every PNG is at least 300x200 and not blank")
PYEOF
ok "every figure is at least 300x200 pixels and not a flat colour"

# --- a foreign HDF5 file (not written by dike-emu) is one clear error too.
"$PY" -c 'import h5py; f = h5py.File("foreign.h5", "w"); f["x"] = [1, 2, 3]; f.close()'
rc=0
"$PY" "$SRC_DIR/analysis/dikeio.py" foreign.h5 >dikeio.out 2>dikeio.err || rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <dikeio.err)" -eq 1 ] && grep -q "^dikeio: foreign.h5: .*not a complete dike-emu output" dikeio.err ||
    { show_file stderr dikeio.err; fail "dikeio.py on a foreign .h5: exit $rc, expected 1 and one line"; }
ok "dikeio.py rejects a foreign .h5: $(cat dikeio.err)"

# --- the node heat map (issue 14): drawn for a group whose runs have /node_timeseries (the
# emulating mode with output.node_timeseries_s), from Dike's run; not for runs without it
# (report/ above: no node_heatmap file, checked by the list of expected figures).
for p in fifo dike; do
    emu run -q -p $p --set workload.jobs=200 --set node_model.interference=0.1 \
        --set output.node_timeseries_s=3600 --out "nodes-$p.h5" >/dev/null 2>&1 || fail "dike-emu run -p $p with node models"
done
report nodes.log nodes-fifo.h5 nodes-dike.h5 -o nodes --figure-kinds node_heatmap --no-tables
[ "$rc" -eq 0 ] && ls nodes/figures/*-node_heatmap.png >/dev/null 2>&1 && grep -q "Nodes over time" nodes/report.md ||
    { show_file log nodes.log; fail "no node heat map for runs with /node_timeseries"; }
ls report/figures | grep -q node_heatmap && fail "a node heat map drawn for runs without /node_timeseries"
ok "node heat map: drawn from runs with /node_timeseries, not for runs without"
