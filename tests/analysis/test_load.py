#!/usr/bin/python3
"""The figure against load (analysis/report.py "Against load"), on hand-made summaries (used by
ctest analysis_load).

    test_load.py SOURCE_DIR

No emulator runs: FakeRun (test_checks.py) gives each run a stored configuration and /summary
values written here, so every expected line can be read off the numbers below:
  - a (trace, cluster size) run at loads 0.8, 1.0, 1.2 is one family; the same trace on another
    cluster size at one load only, and a second trace with one load, are none;
  - its lines are the rows the other figures draw (the baselines and Dike at its default w = 1 of the
    headline setting: oracle knowledge, demand weights), matched across loads, with each load's
    values; --policies picks rows;
  - the figure is written (PNG) for the family and for nothing else, and the Markdown table
    prints the values in the report's units;
  - groups whose loads do not differ (one load, or named by a [run] label) draw nothing.
The whole report on real runs (the section, the embedded figure, none for one load) is checked by
report_test.sh. Prints one line per check; exits 1 if any failed.
"""
import os
import sys
import tempfile

SRC = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path.insert(0, SRC + "/analysis")
sys.path.insert(0, SRC + "/tests/analysis")
import figures  # noqa: E402
import report  # noqa: E402
from test_checks import FakeRun  # noqa: E402

from casecheck import check, run  # noqa: E402


def groups_of(runs):
    by = {}
    for r in runs:
        by.setdefault(report.group_key(r), []).append(r)
    return [report.Group(k, by[k], "demand") for k in sorted(by)]


def grid_runs(load, nodes=64, trace="t.csv", jct=1.0):
    """One load of a small grid: fifo, srtf (oracle, noisy), drf (equal, demand), dike w=0, 0.5, 1
    (oracle, noisy). avg JCT = jct x (hours: 1, 2, 3, ...), unfair fraction 0.1 x load for fifo."""
    h = 3600.0
    kw = dict(trace=trace, load=load, nodes=nodes)
    f = float(load)
    return [FakeRun("fifo", **kw, avg_jct=jct * 10 * h * f, unfair_fraction=0.1 * f),
            FakeRun("srtf", None, "oracle", **kw, avg_jct=jct * 4 * h * f, unfair_fraction=0.2 * f),
            FakeRun("srtf", None, "noisy", **kw, avg_jct=jct * 5 * h * f, unfair_fraction=0.3 * f),
            FakeRun("drf", None, "oracle", "equal", **kw, avg_jct=jct * 9 * h * f, unfair_fraction=0.05 * f),
            FakeRun("drf", None, "oracle", "demand", **kw, avg_jct=jct * 8 * h * f, unfair_fraction=0.04 * f),
            FakeRun("dike", "0", "oracle", **kw, avg_jct=jct * 4.5 * h * f, unfair_fraction=0.15 * f),
            FakeRun("dike", "0.5", "oracle", **kw, avg_jct=jct * 5 * h * f, unfair_fraction=0.03 * f),
            FakeRun("dike", "1", "oracle", **kw, avg_jct=jct * 6 * h * f, unfair_fraction=0.01 * f),
            FakeRun("dike", "0.5", "noisy", **kw, avg_jct=jct * 7 * h * f, unfair_fraction=0.06 * f)]


def case_families():
    runs = grid_runs("0.8") + grid_runs("1.0") + grid_runs("1.2") + grid_runs("1.0", nodes=128) + \
        grid_runs("1.0", trace="u.csv")
    fams = report.load_families(groups_of(runs))
    check([(t, G, [x for x, _ in loads]) for t, G, loads in fams] == [("t.csv", 512, [0.8, 1.0, 1.2])],
          "one family: t.csv on 512 GPUs at 0.8, 1.0, 1.2 (1,024 GPUs and u.csv have one load each): %s"
          % [(t, G, [x for x, _ in loads]) for t, G, loads in fams])
    units = report.Units.choose([], "h")
    series, suffixes = report.load_series(fams[0][2], None, units)
    labels = [lab for lab, _ in series]
    check(labels == ["fifo", "srtf", "drf", "dike w=1"],
          "lines: the baselines and Dike at its default w = 1 of oracle/demand, one each: %s" % labels)
    check(suffixes == [" (oracle, demand)"] * 3, "the setting, the same at every load: %s" % suffixes)
    at = {lab: [(x, p.stats["avg_jct"][0] / 3600.0, p.stats["unfair_fraction"][0]) for x, p in pts]
          for lab, pts in series}
    # drf · demand: 8 h x load, 0.04 x load; srtf oracle: 4 h x load, 0.2 x load
    want_drf = [(0.8, 6.4, 0.032), (1.0, 8.0, 0.04), (1.2, 9.6, 0.048)]
    check(all(abs(a - b) < 1e-9 for got, w in zip(at["drf"], want_drf) for a, b in zip(got, w)),
          "drf line is the demand row: %s" % at["drf"])
    check([round(y, 9) for _, y, _ in at["srtf"]] == [3.2, 4.0, 4.8], "srtf line is the oracle row (4 h x load)")
    check([round(u, 9) for _, _, u in at["dike w=1"]] == [0.008, 0.01, 0.012],
          "dike line: w = 1, oracle (0.01 x load)")
    table = report.load_table(series, fams[0][2], units)
    check("| drf | 6.400 | 8.000 | 9.600 | 0.0320 | 0.0400 | 0.0480 |" in table,
          "table row of drf in hours and unfair fraction:\n%s" % table)
    series2, _ = report.load_series(fams[0][2], ["fifo", "dike w=1"], units)
    check([lab for lab, _ in series2] == ["fifo", "dike w=1"], "--policies fifo,'dike w=1' picks those lines")

    figures.setup_matplotlib()
    pal = figures.Palette([r.policy for r in runs])
    with tempfile.TemporaryDirectory() as d:
        fw = figures.FigureWriter(d, ["png"], 50, figures.Preset("column"))
        name = report.load_slug("t.csv", 512)
        check(name == "t-512-gpus-against_load", "file name: %s" % name)
        paths = figures.fig_against_load(name, series, pal, fw, units)
        check(paths == [os.path.join(d, name + ".png")] and os.path.getsize(paths[0]) > 1000,
              "the figure is written: %s" % paths)
        fw = figures.FigureWriter(d, ["png"], 50, figures.Preset("page"))
        check(len(figures.fig_against_load(name + "-page", series, pal, fw, units)) == 1,
              "and at page width (fonts >= 7 pt checked by the writer)")


def case_no_family():
    # one load on every (trace, size): nothing to draw
    runs = grid_runs("1.0") + grid_runs("1.0", nodes=128) + grid_runs("0.8", trace="u.csv")
    check(report.load_families(groups_of(runs)) == [], "one load per (trace, size): no family")
    # two groups named by [run] label have no load on an axis
    a = grid_runs("0.8")
    b = grid_runs("1.2")
    for r, lab in [(r, "A") for r in a] + [(r, "B") for r in b]:
        r.config.set("run", "label", lab)
    check(report.load_families(groups_of(a + b)) == [], "groups named by a [run] label: no family")


def case_kind():
    check(report.LOAD_KIND in report.ALL_KINDS and report.LOAD_KIND not in report.FIGURE_KINDS,
          "against_load is a --figure-kinds value, not a per-group figure")


run((case_families, case_no_family, case_kind))
