#!/usr/bin/python3
"""Hand-made cases for the report's tables (used by ctest analysis_tables; no emulator runs):

  - units: one unit per metric across every table, sentence and check line of a report (chosen
    once from the median average JCT, or --units), never per table;
  - ties: values equal at the printed precision are a tie: both bold when best, no bold in a
    column where every row ties, a tie is no win in "Dike against the best baseline", and
    Jain's index of a one-tenant trace is neither bolded nor compared;
  - paired differences: the mean and 95% half-width worked out by hand, and a difference whose
    interval holds zero is a tie, not a win;
  - LaTeX: a table* tabular whose column count matches its header and rows, every special
    character escaped, no constant column, and an 8-metric table within a two-column page's
    \\textwidth by the width estimate.

    test_tables.py SOURCE_DIR

Prints one line per case; exits 1 if any fails.
"""
import math
import re
import sys

sys.path.insert(0, sys.argv[1] + "/analysis" if len(sys.argv) > 1 else "analysis")
sys.path.insert(0, sys.argv[1] + "/tests/analysis" if len(sys.argv) > 1 else "tests/analysis")
import report  # noqa: E402
import tables  # noqa: E402
from test_checks import FakeRun, group  # noqa: E402

from casecheck import check, run  # noqa: E402


def case_units():
    # Two groups: one with avg JCTs of 2 h and 3 h, one with 0.5 h and 1 h. The median average JCT
    # of the report's four rows (the upper one of the middle two) is 7,200 s >= 3,600 s: hours for every time metric of both
    # groups, also for the short group, where per-table units would pick seconds.
    long_ = group([FakeRun("dike", "1", avg_jct=7200.0, p50_jct=90.0), FakeRun("fifo", avg_jct=10800.0)])
    short = group([FakeRun("dike", "1", load="0.5", avg_jct=1800.0, p50_jct=60.0),
                   FakeRun("fifo", load="0.5", avg_jct=3600.0)])
    pts = long_.points + short.points
    u = report.Units.choose(pts)
    check(all(u.name(k) == "h" for k in ("avg_jct", "p50_jct", "p99_jct", "makespan", "avg_queue_delay")),
          "one unit, h, for every time metric: %s" % u.per_metric)
    for g in (long_, short):
        text, _ = tables.md_table(g.points, ["avg_jct", "p50_jct", "makespan"], u, lambda p: p.label)
        head = text.splitlines()[0]
        check("avg JCT (h)" in head and "p50 JCT (h)" in head and "(s)" not in head,
              "%s: header in h only: %s" % (g.title, re.sub(" +", " ", head)))
    # the short group's 1,800 s prints as 0.5000 h in the table and in the check lines
    text, _ = tables.md_table(short.points, ["avg_jct"], u, lambda p: p.label)
    check("0.5000" in text, "1,800 s prints as 0.5000 h")
    line = report.dominance_lines(short, report.dominance_checks(short), u)[0]
    check("✓ no baseline dominates" in line, "dominance line with the report's units: %s" % line)
    mono = group([FakeRun("dike", "0", avg_jct=1800.0, unfair_fraction=0.05),
                  FakeRun("dike", "1", avg_jct=3600.0, unfair_fraction=0.01)])
    ml = report.monotonicity_lines(mono, report.monotonicity_checks(mono), u)[0]
    check("avg JCT 0.5000 h at w=0 ≤ 1.000 h at w=1" in ml, "monotonicity line in h: %s" % ml)
    # --units: one unit for all, or per metric
    u2 = report.Units.choose(pts, "s,makespan=d")
    check(u2.name("avg_jct") == "s" and u2.name("makespan") == "d" and u2.name("p99_jct") == "s",
          "--units s,makespan=d: %s" % u2.per_metric)
    for bad in ("hours", "jain=h", "avg_jct=week"):
        try:
            report.Units.choose(pts, bad)
            check(False, "--units %s rejected" % bad)
        except tables.UnitsError as e:
            check(True, "--units %s rejected: %s" % (bad, e))
    # auto picks seconds when the median average JCT is below an hour
    u3 = report.Units.choose([p for p in short.points if p.policy == "dike"])
    check(u3.name("avg_jct") == "s" and u3.name("makespan") == "s", "median 1,800 s: seconds")


def bold_cells(text):
    return re.findall(r"\*\*([^*]+)\*\*", text)


def case_ties():
    u = report.Units.choose([], "s")
    # max rho 2.6172 and 2.6168 both print 2.617: a tie for the best, so no bold (a tie is no win);
    # avg JCT: fifo's 90 s is the best alone: bold
    g = group([FakeRun("dike", "1", max_rho=2.6172, jain=1.0), FakeRun("themis", max_rho=2.6168, jain=1.0),
               FakeRun("fifo", max_rho=3.0, jain=1.0, avg_jct=90.0)])
    best = tables.best_rows(g.points, "max_rho", u)
    check(best == set(), "2.6172 and 2.6168 tie at 2.617 for the best: no bold")
    check([p.policy for p in tables.best_rows(g.points, "avg_jct", u)] == ["fifo"], "a best alone is bold")
    g1 = group([FakeRun("dike", "1", max_rho=2.6), FakeRun("themis", max_rho=2.617),
                FakeRun("fifo", max_rho=2.6168)])
    check([p.policy for p in tables.best_rows(g1.points, "max_rho", u)] == ["dike"],
          "a tie below the best does not matter: 2.600 is bold")
    # every row ties on p50 (50 s in BASE_SUMMARY): no bold; and the column is constant: left out
    text, notes = tables.md_table(g.points, ["p50_jct", "max_rho"], u, lambda p: p.label)
    check("p50 JCT" not in text.splitlines()[0] and any("p50 JCT (s) 50.00" in n for n in notes),
          "a column where every row prints the same is left out and named in a note: %s" % notes)
    check(bold_cells(text) == [], "no bold: the best max ρ is tied: %s" % bold_cells(text))
    text, _ = tables.md_table(g.points, ["avg_jct", "max_rho"], u, lambda p: p.label)
    check(bold_cells(text) == ["90.00"], "only fifo's 90.00 s is bold: %s" % bold_cells(text))
    allsame = group([FakeRun("dike", "1", max_rho=2.0), FakeRun("fifo", max_rho=2.00004)])
    check(tables.best_rows(allsame.points, "max_rho", u) == set(), "every row ties (2.000): no bold")
    # "Dike beats the best baseline": a printed tie is not a win
    _, text = report.compare(g, units=u)
    s = " ".join(text)
    check("max ρ" not in s.split("Dike beats")[1].split(".")[0] and "Ties" in s and "max ρ (best Dike 2.617 vs themis's 2.617)" in s,
          "max ρ 2.6172 vs 2.6168 is a tie, not a win: %s" % s)
    # a difference at the printed precision is a win
    g2 = group([FakeRun("dike", "1", max_rho=2.615), FakeRun("themis", max_rho=2.617)])
    _, text = report.compare(g2, units=u)
    check("max ρ (dike w=1: 2.615 vs themis's 2.617)" in " ".join(text), "2.615 vs 2.617 is a win")
    # Jain on a one-tenant trace: not bolded, not compared
    one = [FakeRun("dike", "1", jain=1.0, avg_jct=90.0), FakeRun("fifo", jain=0.999)]
    g3 = group(one)
    text, notes = tables.md_table(g3.points, ["avg_jct", "jain"], u, lambda p: p.label, not_bold=("jain",))
    check("**1.000**" not in text and "**0.9990**" not in text and any("Jain not compared (one tenant)" in n
                                                                      for n in notes),
          "one tenant: Jain not bold: %s" % notes)
    _, text = report.compare(g3, units=u, one_tenant=True)
    check("Jain's index is not compared" in " ".join(text) and "Jain's index (" not in " ".join(text),
          "one tenant: Jain left out of the comparison")


def case_paired():
    # Dike and themis on seeds 1, 2, 3; avg JCT differences 10, 12, 14 s: mean 12, s = 2,
    # t(0.975, 2) = 4.302652730, half-width 4.302652730 * 2 / sqrt(3) = 4.9683... -> [7.03, 16.97]
    runs = []
    for seed, (d, t) in zip((1, 2, 3), ((110.0, 100.0), (122.0, 110.0), (134.0, 120.0))):
        runs += [FakeRun("dike", "1", seed=seed, avg_jct=d, unfair_fraction=0.05),
                 FakeRun("themis", seed=seed, avg_jct=t, unfair_fraction=0.05 + 0.001 * (seed - 2))]
    g = group(runs)
    dike = next(p for p in g.points if p.policy == "dike")
    them = next(p for p in g.points if p.policy == "themis")
    x = report.paired_of(dike, them, "avg_jct")
    want = 4.302652730 * 2.0 / math.sqrt(3)
    check(x.n == 3 and x.mean == 12.0 and abs(x.half - want) < 1e-7 and x.significant,
          "paired avg JCT: 12 ± %.6f (by hand %.6f), excludes 0" % (x.half, want))
    # unfair: differences +0.001, 0, -0.001: mean 0, interval holds zero
    y = report.paired_of(dike, them, "unfair_fraction")
    check(abs(y.mean) < 1e-15 and not y.significant, "paired unfair fraction: mean 0, not significant")
    # separate intervals: themis avg JCT 110 ± 24.8 overlaps Dike's 122 ± 29.8, yet the paired
    # difference is significant: Dike is slower on every seed, and the comparison says so
    u = report.Units.choose([], "s")
    _, text = report.compare(g, units=u)
    s = " ".join(text)
    check("**Dike loses**" in s and "average JCT (best Dike" in s, "a significant paired difference is a loss: %s" % s)
    # a printed difference within the seeds' noise is a tie
    runs = []
    for seed, (d, t) in zip((1, 2, 3), ((100.0, 110.0), (120.0, 110.0), (105.0, 110.0))):
        runs += [FakeRun("dike", "1", seed=seed, avg_jct=d), FakeRun("themis", seed=seed, avg_jct=t)]
    g = group(runs)
    _, text = report.compare(g, units=u)
    s = " ".join(text)
    check("average JCT (best Dike 108.3 s vs themis's 110.0 s)" in s and "paired 95% interval" in s,
          "108.3 vs 110.0 with differences -10, +10, -5: within the paired interval, a tie: %s" % s)
    table = report.paired_table(report.paired_rows(g.points, next(p for p in g.points if p.policy == "dike"),
                                                   ["avg_jct"]), next(p for p in g.points if p.policy == "dike"),
                                ["avg_jct"], u, lambda p: p.label)
    # themis - dike: +10, -10, +5: mean 1.667, s = 10.41, half = 4.3027 * 10.41 / sqrt(3) = 25.86 -> "26",
    # the mean to the same (units) place: "+2"
    check("+2 ± 26" in table and "**" not in table, "paired table: themis − dike = +2 ± 26, not bold:\n" + table)
    check(tables.plus_minus(0.0000006295, 0.0000080) == "+0.0000006 ± 0.0000080" and
          tables.plus_minus(-0.0292, 0.37) == "-0.03 ± 0.37" and tables.plus_minus(0.001, 0.37) == "0 ± 0.37"
          and tables.plus_minus(12.0, 4.968) == "+12.0 ± 5.0", "a difference printed to its interval's precision")


def case_latex():
    check(tables.tex_escape(r"a&b%c$d#e_f{g}h~i^j\k") ==
          r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k",
          "all ten special characters escaped: %s" % tables.tex_escape(r"a&b%c$d#e_f{g}h~i^j\k"))
    check(tables.tex_escape("dike w=0.5 · oracle") == r"dike w=0.5 $\cdot$ oracle", "· as $\\cdot$")
    runs = [FakeRun("dike", "1", extra={"dike.note": "x"}), FakeRun("fifo", avg_jct=2e6, max_rho=12345.0),
            FakeRun("themis", avg_jct=50.0, unfair_fraction=0.2)]
    g = group(runs)
    g.points[0].tags.append("weights a_b:1,c&d:2")    # a row name with special characters
    u = report.Units.choose(g.points)
    tex = tables.tex_table(g.points, list(tables.PAPER_COLUMNS), u, lambda p: p.label, "T_1 & 50% of #2", "slug")
    check("\\begin{table*}" in tex and "\\end{table*}" in tex and "\\toprule" in tex, "a table* with booktabs rules")
    spec = re.search(r"\\begin\{tabular\}\{@\{\}(\w+)@\{\}\}", tex).group(1)
    rows = [ln for ln in tex.splitlines() if ln.endswith("\\\\")]
    ncols = [len(re.split(r"(?<!\\)&", ln)) for ln in rows]
    check(set(ncols) == {len(spec)}, "every row has as many cells as the column spec (%d): %s" % (len(spec), ncols))
    # only avg JCT, max rho and unfair fraction differ between the rows; p99 JCT, makespan, Jain,
    # utilisation and preemptions per job are BASE_SUMMARY's in every row: left out, named in the caption
    check(len(spec) == 4 and re.search(r"policy & avg JCT & max \$\\rho\$ & unfair \\\\\n & \(\w+\) &  &  \\\\", tex) and
          "preempt./job 0" in tex and "Jain 0.9500" in tex,
          "constant columns left out (4 columns: policy, avg JCT, max rho, unfair), named in the caption")
    check(r"weights a\_b:1,c\&d:2" in tex and r"T\_1 \& 50\% of \#2" in tex, "row name and caption escaped")
    body = "\n".join(ln for ln in tex.splitlines() if not ln.startswith("%"))
    unescaped = re.findall(r"(?<!\\)[&%#_](?![^{]*\})", body.replace(" & ", " "))
    check(not [c for c in unescaped if c != "&"], "no unescaped special character outside cell separators: %s" % unescaped)
    # width: 8 metrics of realistic means fit a two-column page; with 3-seed intervals they do not,
    # and the table drops them (the caption says where they are)
    head = ["policy"] + [u.tex_header(k)[0] for k in tables.PAPER_COLUMNS]
    cells = [["dike w=0.75 $\\cdot$ noisy $\\cdot$ demand"] + ["12{,}345"] * 3 + ["0.8666"] * 5,
             [""] + [u.tex_header(k)[1] for k in tables.PAPER_COLUMNS]]
    w = tables.tex_width_pt(head, cells)
    check(w <= tables.TEXTWIDTH_TWO_COLUMN_PT, "8 metrics: about %.0f pt <= %.0f pt" % (w, tables.TEXTWIDTH_TWO_COLUMN_PT))
    seeded = []
    for seed in (1, 2, 3):
        for pol in ("fifo", "sjf", "srtf", "las", "themis"):
            f = len(pol)     # every column differs between the rows
            seeded.append(FakeRun(pol, seed=seed, avg_jct=12345.0 + 1000 * seed + 10 * f,
                                  p99_jct=99999.0 + 3000 * seed + 10 * f, makespan=2e6 + 1e5 * seed + 1e3 * f,
                                  max_rho=1234.5 + seed + f, unfair_fraction=0.1 + 0.01 * seed + 0.001 * f,
                                  jain=0.8 + 0.01 * seed + 0.001 * f, utilization=0.5 + 0.01 * seed + 0.001 * f,
                                  preemptions=1000 * seed + 10 * f))
    gs = group(seeded)
    tex = tables.tex_table(gs.points, list(tables.PAPER_COLUMNS), tables.Units.choose(gs.points, "s"),
                           lambda p: p.label, "seeded", "s")
    width = float(re.search(r"about (\d+) pt wide", tex).group(1))
    check("$\\pm$" not in tex.split("\\midrule")[1].split("\\bottomrule")[0] and width <= tables.TEXTWIDTH_TWO_COLUMN_PT
          and "the mean" in tex and "95\\% confidence intervals: in the CSV" in tex,
          "3 seeds, 8 wide metrics: means only (%.0f pt), the caption says where the intervals are" % width)
    w13 = tables.tex_width_pt(["policy"] + [u.header(m[0], tex=True) for m in tables.METRICS],
                              [cells[0][:1] + ["12{,}345 $\\pm$ 1{,}200"] * 13])
    check(w13 > tables.TEXTWIDTH_TWO_COLUMN_PT, "all 13 metrics would not fit (%.0f pt): why --columns exists" % w13)


def case_font_floor():
    # a 6 pt text is refused at save time (every figure's text is 7 pt or more at print size)
    import tempfile
    import figures
    figures.setup_matplotlib()
    with tempfile.TemporaryDirectory() as d:
        fw = figures.FigureWriter(d, ["png"], 50, figures.Preset("column"))
        fig, ax = figures.plt.subplots(figsize=fw.preset.size(0.5))
        ax.text(0.5, 0.5, "tiny", fontsize=6)
        try:
            fw.save(fig, "tiny")
            check(False, "a 6 pt text refused")
        except figures.FigureTooSmallText as e:
            check("'tiny' at 6.0 pt" in str(e), "a 6 pt text refused: %s" % e)
        fig, ax = figures.plt.subplots(figsize=fw.preset.size(0.5))
        ax.plot([0, 1], [0, 1])
        check(len(fw.save(fig, "fine")) == 1, "default fonts (7-8 pt) pass")


def case_axis_scale():
    # the frontier's axes (figures.span_scale): logarithmic only when every value is positive and
    # they span more than a decade; the log limits leave (max / min)^0.08 on either side
    import figures
    scale, lo, hi = figures.span_scale([1.0, 100.0], 1.12)
    # 100^0.08 = 10^0.16 = 1.44544: limits 1 / 1.44544 = 0.69183 and 144.544
    check(scale == "log" and abs(lo - 0.69183) < 1e-4 and abs(hi - 144.544) < 1e-3,
          "1 to 100: log, 0.692 to 144.5 (%s, %g, %g)" % (scale, lo, hi))
    check(figures.span_scale([2.0, 20.0], 1.1) == ("linear", 0.0, 22.0),
          "2 to 20, exactly a decade: linear from 0 to 20 x 1.1 (%s)" % (figures.span_scale([2.0, 20.0], 1.1),))
    check(figures.span_scale([5.0, 4.0, float("nan"), float("inf")], 1.1) == ("linear", 0.0, 5.5),
          "NaN and inf are left out: 4 and 5 give 0 to 5.5")
    scale, lo, hi = figures.span_scale([0.0, 100.0], 1.1)
    check(scale == "linear" and lo == 0 and abs(hi - 110.0) < 1e-9,
          "a zero (a policy with no unfair job) keeps the axis linear: 0 to 110")
    check(figures.span_scale([], 1.1) == ("linear", 0.0, 1.0) and figures.span_scale([0.0], 1.1) == ("linear", 0.0, 1.0),
          "nothing to show, or only zeros: 0 to 1")


run((case_units, case_ties, case_paired, case_latex, case_font_floor, case_axis_scale))
