#!/usr/bin/python3
"""Hand-made cases for analysis/report.py's grouping and checks (used by ctest analysis_checks).

    test_checks.py SOURCE_DIR

No emulator runs: each "run" is a small object with a stored configuration and the /summary
values written by hand, so every expected verdict can be read off the numbers below:
  - the dominance check (a baseline dominates Dike at its default knob when its average JCT is
    lower, its unfair fraction lower and its Jain's index higher, all strict): themis dominating;
    nothing dominating (each baseline better on two of the three only); ties, which are not
    domination; which baselines count for a (knowledge, weighting) setting;
  - the knob monotonicity check (unfair(w=1) <= unfair(w=0), avg JCT(w=0) <= avg JCT(w=1));
  - the target line on the full TitanSched Philly group;
  - row names, old files without the new keys, and the rows the figures draw.
Prints one line per case; exits 1 at the first failure.
"""
import configparser
import math
import os
import sys

sys.path.insert(0, sys.argv[1] + "/analysis" if len(sys.argv) > 1 else "analysis")
import report  # noqa: E402
import tables  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from casecheck import check, run  # noqa: E402

BASE_SUMMARY = {"jobs": 1000, "finished": 1000, "avg_jct": 100.0, "p50_jct": 50.0, "p95_jct": 300.0,
                "p99_jct": 500.0, "makespan": 10000.0, "avg_queue_delay": 10.0, "mean_rho": 1.0,
                "p99_rho": 3.0, "max_rho": 5.0, "unfair_fraction": 0.05, "jain": 0.95, "utilization": 0.7,
                "preemptions": 0}


class FakeRun:
    """What report.Group reads of a dikeio.Run: policy, seed, ranks, path, summary, config."""
    count = 0

    def __init__(self, policy, w=None, knowledge=None, weights=None, trace="t.csv", load="1.0", nodes=64,
                 seed=1, extra=None, **summary):
        FakeRun.count += 1
        self.path = "fake-%03d.h5" % FakeRun.count
        self.policy = policy
        self.seed = seed
        self.ranks = 1
        self.trace = trace
        self.gpus = nodes * 8
        self.summary = dict(BASE_SUMMARY, **summary)
        cfg = {"scheduler": {"policy": policy, "placement": "pack"},
               "cluster": {"nodes": str(nodes), "gpus_per_node": "8"},
               "workload": {"trace": trace, "trace_load": load},
               "run": {"seed": str(seed)}}
        if w is not None:
            cfg.setdefault("dike", {})["fairness_weight"] = w
        if knowledge is not None:
            cfg["scheduler"]["duration_knowledge"] = knowledge
        if weights is not None:
            cfg.setdefault("tenants", {})["weights"] = weights
        for k, v in (extra or {}).items():
            s, kk = k.split(".", 1)
            cfg.setdefault(s, {})[kk] = v
        self.config = configparser.ConfigParser(interpolation=None)
        self.config.read_dict(cfg)

    def get(self, section, key, default=None):
        return self.config.get(section, key, fallback=default)


def group(runs, headline="demand"):
    keys = set(report.group_key(r) for r in runs)
    assert len(keys) == 1, keys
    return report.Group(keys.pop(), runs, headline)


def by_label(g):
    return {p.label: p for p in g.points}




def dom_of(g, knowledge, weighting):
    cs = [c for c in report.dominance_checks(g) if c.knowledge == knowledge and c.weighting == weighting]
    assert len(cs) == 1, (knowledge, weighting, len(cs))
    return cs[0]


def case_themis_dominates():
    # Dike default (oracle): 100 s, 0.05 unfair, Jain 0.95. Dike uses no tenant weights, so it is
    # compared with the baselines of its knowledge mode under every weighting.
    runs = [FakeRun("dike", "1", "oracle"),
            FakeRun("dike", "0", "oracle", avg_jct=90.0, unfair_fraction=0.08),
            FakeRun("themis", None, "oracle", avg_jct=95.0, unfair_fraction=0.04, jain=0.97),
            # better on all three, but another knowledge mode: must not count against oracle
            FakeRun("themis", None, "noisy", avg_jct=50.0, unfair_fraction=0.01, jain=0.99),
            FakeRun("drf", None, "oracle", "demand", avg_jct=120.0, unfair_fraction=0.2, jain=0.9),
            FakeRun("drf", None, "oracle", "equal", avg_jct=130.0, unfair_fraction=0.2, jain=0.9),
            FakeRun("fifo", None, "oracle", "equal", avg_jct=120.0, unfair_fraction=0.2, jain=0.9),
            FakeRun("srtf", None, "oracle", "equal", avg_jct=80.0, unfair_fraction=0.01, jain=0.94)]
    g = group(runs)
    c = dom_of(g, "oracle", report.ANY_WEIGHTING)
    check([b.label for b in c.dominators] == ["themis · oracle"],
          "themis (95 s, 0.04, 0.97) dominates Dike (100 s, 0.05, 0.95); got %s" % [b.label for b in c.dominators])
    check(sorted(b.policy for b in c.baselines) == ["drf", "drf", "fifo", "srtf", "themis"],
          "compared with fifo, srtf, themis of oracle and drf under both weightings: %s"
          % sorted(b.label for b in c.baselines))
    lines = report.dominance_lines(g, [c])
    check(lines[0].startswith("✗ dominated (oracle, every weighting) by themis · oracle (avg JCT 95.00 s vs "
                              "100.0 s, unfair 0.0400 vs 0.0500, Jain 0.9700 vs 0.9500)"),
          "the ✗ line names themis and the three pairs of numbers: %s" % lines[0])
    s = report.checks_summary([g], {g.key: report.dominance_checks(g)}, {g.key: []})
    check(any("oracle: **0 of 1** groups pass" in ln for ln in s), "summary: oracle 0 of 1 groups pass")


def case_nothing_dominates():
    runs = [FakeRun("dike", "1", "oracle", "demand"),
            # each better on two of the three, worse on the third
            FakeRun("themis", None, "oracle", "demand", avg_jct=90.0, unfair_fraction=0.04, jain=0.94),
            FakeRun("srtf", None, "oracle", avg_jct=90.0, unfair_fraction=0.06, jain=0.96),
            FakeRun("gandiva-fair", None, "oracle", "demand", avg_jct=110.0, unfair_fraction=0.01, jain=0.99),
            FakeRun("fifo", avg_jct=200.0, unfair_fraction=0.3, jain=0.8)]
    g = group(runs)
    c = dom_of(g, "oracle", report.ANY_WEIGHTING)
    check(c.passed and len(c.baselines) == 4, "nobody better on all three: passes, 4 baselines compared")
    check(report.dominance_lines(g, [c]) == ["✓ no baseline dominates Dike (oracle, every weighting): 4 baselines compared"],
          "the ✓ line: %s" % report.dominance_lines(g, [c]))


def case_ties():
    d = dict(avg_jct=100.0, unfair_fraction=0.05, jain=0.95)
    runs = [FakeRun("dike", "1", "oracle", "demand", **d),
            FakeRun("themis", None, "oracle", "demand", avg_jct=100.0, unfair_fraction=0.01, jain=0.99),
            FakeRun("srtf", None, "oracle", avg_jct=50.0, unfair_fraction=0.05, jain=0.99),
            FakeRun("gandiva-fair", None, "oracle", "demand", avg_jct=50.0, unfair_fraction=0.01, jain=0.95),
            # lower by less than any printed rounding: still lower, so this one does dominate
            FakeRun("drf", None, "oracle", "demand", avg_jct=100.0 - 1e-9, unfair_fraction=0.05 - 1e-12,
                    jain=0.95 + 1e-12)]
    g = group(runs)
    c = dom_of(g, "oracle", report.ANY_WEIGHTING)
    check([b.policy for b in c.dominators] == ["drf"],
          "a tie on any one metric is not domination (themis, srtf, gandiva-fair); full precision counts "
          "(drf, better by 1e-9): %s" % [b.policy for b in c.dominators])
    nan = FakeRun("themis", None, "oracle", "demand", avg_jct=float("nan"), unfair_fraction=0.0, jain=1.0)
    g2 = group([FakeRun("dike", "1", "oracle", "demand", **d), nan])
    check(dom_of(g2, "oracle", report.ANY_WEIGHTING).passed, "a NaN metric never dominates")


def case_settings():
    """Duration-free baselines count for every knowledge mode, weight-free ones for every weighting;
    Dike at an unrecorded knob is the default; old files are oracle/equal."""
    runs = [FakeRun("dike", "1", "noisy", "demand"),
            FakeRun("dike", None, "none", "equal"),          # no fairness_weight recorded: the default
            FakeRun("dike", "0.25", "none", "equal", avg_jct=1.0, unfair_fraction=0.0, jain=1.0),
            # the default before version 1.1: now a value between the ends, not checked
            FakeRun("dike", "0.5", "noisy", "demand", avg_jct=1.0, unfair_fraction=0.0, jain=1.0),
            FakeRun("drf", None, "oracle", "demand", avg_jct=90.0, unfair_fraction=0.04, jain=0.96),
            FakeRun("sjf", None, "oracle", avg_jct=90.0, unfair_fraction=0.04, jain=0.96),
            FakeRun("sjf", None, "none", avg_jct=90.0, unfair_fraction=0.04, jain=0.96),
            FakeRun("srtf", None, "noisy", avg_jct=99.0, unfair_fraction=0.049, jain=0.951),
            FakeRun("las", avg_jct=99.0, unfair_fraction=0.049, jain=0.951)]
    g = group(runs)
    c = dom_of(g, "noisy", report.ANY_WEIGHTING)
    check(sorted(b.label for b in c.dominators) == ["drf", "las", "srtf · noisy"],
          "noisy Dike: drf (oracle run, demand: Dike uses no weights) and las count for noisy, srtf · noisy, "
          "sjf · oracle does not: %s" % sorted(b.label for b in c.dominators))
    c = dom_of(g, "none", report.ANY_WEIGHTING)
    check(c.dike.weight != c.dike.weight and sorted(b.label for b in c.dominators) == ["drf", "las", "sjf · none"],
          "unrecorded knob = default; none Dike: las, sjf · none and (weight-free Dike) drf: %s"
          % sorted(b.label for b in c.dominators))
    check(len(report.dominance_checks(g)) == 2, "w=0.25 and w=0.5 are not the default knob: 2 checks")
    labels = set(by_label(g))
    check({"dike w=1 · noisy · demand", "dike w=0.5 · noisy · demand", "dike w=? · none · equal", "drf", "las", "sjf · oracle",
           "srtf · noisy"} <= labels, "short row names: %s" % sorted(labels))
    old = group([FakeRun("dike", "1"), FakeRun("themis", avg_jct=90.0, unfair_fraction=0.04, jain=0.97),
                 FakeRun("fifo")])
    check(sorted(by_label(old)) == ["dike w=1", "fifo", "themis"] and not old.sliced,
          "old files (no new keys): rows as before, no tags: %s" % sorted(by_label(old)))
    c = dom_of(old, "oracle", report.ANY_WEIGHTING)
    check([b.label for b in c.dominators] == ["themis"], "old files: oracle, equal; themis dominates")
    explicit = group([FakeRun("dike", "0.5", weights=""), FakeRun("dike", "1", weights="equal"),
                      FakeRun("dike", "0", weights="Equal")])
    check(len(set(p.weighting for p in explicit.points)) == 1 and not explicit.sliced,
          "an empty, missing or 'equal' weights key is one weighting")


def dike_rows(knowledge, weights, *rows):
    """Dike runs of one setting, one per (knob, average JCT, unfair fraction)."""
    return [FakeRun("dike", w, knowledge, weights, avg_jct=j, unfair_fraction=u) for w, j, u in rows]


def case_monotonicity():
    runs = (dike_rows("oracle", "demand", ("0", 90.0, 0.05), ("1", 110.0, 0.02)) +
            dike_rows("noisy", "demand", ("0", 90.0, 0.02), ("1", 110.0, 0.03)) +
            dike_rows("none", "demand", ("0", 120.0, 0.05), ("1", 110.0, 0.02)) +
            dike_rows("oracle", "equal", ("0", 100.0, 0.05), ("1", 100.0, 0.05)) +
            [FakeRun("dike", "0.5", "noisy", "equal")])           # no w=0/w=1 pair: not checked
    g = group(runs)
    ms = {(c.knowledge, c.weighting): c for c in report.monotonicity_checks(g)}
    check(sorted(ms) == [("noisy", "demand"), ("none", "demand"), ("oracle", "demand"), ("oracle", "equal")],
          "one check per setting with w=0 and w=1: %s" % sorted(ms))
    check(ms[("oracle", "demand")].passed, "oracle/demand: unfair 0.02 <= 0.05 and JCT 90 <= 110: pass")
    m = ms[("noisy", "demand")]
    check(not m.passed and not m.fair_ok and m.jct_ok, "noisy/demand: w=1 less fair (0.03 > 0.02): fail")
    m = ms[("none", "demand")]
    check(not m.passed and m.fair_ok and not m.jct_ok, "none/demand: w=0 slower (120 > 110): fail")
    check(ms[("oracle", "equal")].passed, "oracle/equal: equal values pass (<=)")
    lines = report.monotonicity_lines(g, [ms[("noisy", "demand")]])
    check(lines[0] == "✗ knob NOT monotone (noisy, demand): unfair fraction 0.0300 at w=1 > 0.0200 at w=0; "
                      "avg JCT 90.00 s at w=0 ≤ 110.0 s at w=1", "the ✗ line: %s" % lines[0])
    # the summary counts the group per knowledge mode too: oracle passes (both weightings), noisy
    # and none fail, and the group as a whole fails
    s = report.checks_summary([g], {g.key: []}, {g.key: report.monotonicity_checks(g)})
    check(any("**0 of 1** groups pass (2 of 4 settings)" in ln for ln in s), "summary: 0 of 1 groups, 2 of 4 settings")
    for k, n in (("oracle", 1), ("noisy", 0), ("none", 0)):
        check(any(ln.startswith("- %s: **%d of 1** groups pass" % (k, n)) for ln in s),
              "summary by mode: %s %d of 1: %s" % (k, n, s))


def case_monotonicity_close():
    # w=0 slower by 0.03 s of 100: both print "100.0 s" with 4 significant digits, so the failing
    # line shows the digits that tell them apart (it printed "100.0 s > 100.0 s" before)
    g = group([FakeRun("dike", "0", "noisy", "equal", avg_jct=100.04, unfair_fraction=0.02),
               FakeRun("dike", "1", "noisy", "equal", avg_jct=100.01, unfair_fraction=0.0123456),
               FakeRun("dike", "0.5", "noisy", "equal")])
    ms = report.monotonicity_checks(g)
    check(len(ms) == 1 and not ms[0].passed and ms[0].fair_ok and not ms[0].jct_ok, "w=0 slower by 0.03 s: fail")
    line = report.monotonicity_lines(g, ms)[0]
    check(line == "✗ knob NOT monotone (noisy, equal): unfair fraction 0.0123 at w=1 ≤ 0.0200 at w=0; "
                  "avg JCT 100.04 s at w=0 > 100.01 s at w=1", "close values get more digits: %s" % line)
    check(tables.fpair(0.0123, 0.0123) == ("0.0123", "0.0123"), "equal values: fnum's digits")
    check(tables.fpair(1234.4, 1234.2) == ("1,234.4", "1,234.2"),
          "large values keep their grouping: %s" % (tables.fpair(1234.4, 1234.2),))
    check(tables.fpair(0.12344, 0.12341) == ("0.12344", "0.12341"),
          "one digit more each: %s" % (tables.fpair(0.12344, 0.12341),))
    check(tables.fpair(0.12344, 0.12351) == ("0.1234", "0.1235"), "values fnum tells apart: as fnum")


def case_knob_shares():
    # Two settings with rows at w = 0, 0.5 and 1, one with only the ends, one whose ends are equal:
    #   oracle: JCT 100 -> 118 -> 120: (118 - 100) / (120 - 100) = 0.9; unfair 0.05 -> 0.02 -> 0.02: 1.0
    #   noisy:  JCT  90 ->  96 -> 110: (96 - 90) / (110 - 90) = 0.3; unfair 0.04 -> 0.03 -> 0.02: 0.5
    #   none (ends only): no share; equal (ends equal in JCT): only an unfair share,
    #   (0.045 - 0.05) / (0.04 - 0.05) = 0.5
    # medians at w = 0.5: JCT of [0.9, 0.3] = 0.6 -> "60 %"; unfair of [1.0, 0.5, 0.5] = 0.5 -> "50 %"
    runs = (dike_rows("oracle", "demand", ("0", 100.0, 0.05), ("0.5", 118.0, 0.02), ("1", 120.0, 0.02)) +
            dike_rows("noisy", "demand", ("0", 90.0, 0.04), ("0.5", 96.0, 0.03), ("1", 110.0, 0.02)) +
            dike_rows("none", "demand", ("0", 90.0, 0.04), ("1", 95.0, 0.03)) +
            dike_rows("oracle", "equal", ("0", 100.0, 0.05), ("0.5", 103.0, 0.045), ("1", 100.0, 0.04)))
    g = group(runs)
    sh = report.knob_shares([g])
    check(sorted(sh) == [0.5], "one value between the ends: %s" % sorted(sh))
    j, u = sh[0.5]
    check(sorted(round(x, 9) for x in j) == [0.3, 0.9], "JCT shares 0.9 and 0.3 (equal ends: none): %s" % j)
    check(sorted(round(x, 9) for x in u) == [0.5, 0.5, 1.0], "unfair shares 1.0, 0.5, 0.5: %s" % u)
    lines = report.knob_share_lines([g])
    check(len(lines) == 2 and "w = 0.5: average JCT 60 % (2 settings), unfair fraction 50 % (3 settings)" in lines[0],
          "the line: %s" % lines)
    check(report.knob_share_lines([group([FakeRun("dike", "0", "oracle"), FakeRun("dike", "1", "oracle")])]) == [],
          "no value between the ends: no line")


def case_target():
    kw = dict(trace="philly.csv", load="1", nodes=64, jobs=82247)
    runs = [FakeRun("dike", "1", "oracle", "demand", avg_jct=110.0, unfair_fraction=0.03, preemptions=164494, **kw),
            FakeRun("dike", "1", "noisy", "demand", avg_jct=50.0, unfair_fraction=0.0, **kw),
            FakeRun("themis", None, "oracle", "demand", avg_jct=100.0, unfair_fraction=0.05, **kw),
            FakeRun("srtf", None, "oracle", avg_jct=105.0, unfair_fraction=0.01, **kw),
            FakeRun("sjf", None, "noisy", avg_jct=10.0, unfair_fraction=0.0, **kw)]
    g = group(runs)
    rows = report.target_rows(g)
    check(len(rows) == 1, "one target row: oracle only (%d)" % len(rows))
    d, bj, bu, pct, du, ppj = rows[0]
    check(bj.policy == "themis" and bu.policy == "srtf" and abs(pct - 10.0) < 1e-9 and abs(du - 0.02) < 1e-12
          and ppj == 2.0, "JCT +10%% vs themis, unfair +0.02 vs srtf, 2 preemptions/job: %s %s %r %r %r"
          % (bj.policy, bu.policy, pct, du, ppj))
    line = report.target_lines(g)[0]
    # one weighting in the group: rows carry the knowledge tag only
    check("+10.0% vs the best baseline's (themis · oracle, 100.0 s" in line and "target ≤ +5%: ✗" in line
          and "+0.0200 vs the best baseline's (srtf · oracle" in line and "2.00 preemptions per job (target ≤ 2: ✓)"
          in line, "the target line: %s" % line)
    other = group([FakeRun("dike", "1", trace="philly.csv", load="1", nodes=128, jobs=82247),
                   FakeRun("fifo", trace="philly.csv", load="1", nodes=128, jobs=82247)])
    check(report.target_rows(other) == [], "no target line on 1,024 GPUs")


def case_figures():
    runs = []
    for k in ("oracle", "noisy", "none"):
        for pol in ("sjf", "srtf"):
            runs.append(FakeRun(pol, None, k))
        for wt in ("equal", "demand"):
            runs.append(FakeRun("themis", None, k, wt))
            if wt == "demand":
                runs += [FakeRun("dike", w, k, wt) for w in ("0", "0.25", "0.5", "0.75", "1")]
            else:
                runs.append(FakeRun("dike", "1", k, wt))
    for wt in ("equal", "demand"):
        runs += [FakeRun("gandiva-fair", None, "oracle", wt), FakeRun("drf", None, "oracle", wt)]
    runs += [FakeRun("fifo", None, "oracle"), FakeRun("las", None, "oracle")]
    g = group(runs)
    check(len(g.points) == 36, "the grid's shape: 36 rows in a group (%d)" % len(g.points))
    v = g.figure_view()
    names = [v.label(p) for p in v.points]
    check(names == ["fifo", "sjf", "srtf", "las", "themis", "gandiva-fair", "drf", "dike w=1"],
          "figures by default: the oracle/demand baselines and Dike at its default knob only: %s" % names)
    sel = g.figure_view(["srtf", "dike w=0", "dike w=1", "nosuch"])
    check([sel.label(p) for p in sel.points] == ["srtf", "dike w=0", "dike w=1"] and sel.unmatched == ["nosuch"],
          "--policies srtf,dike w=0,dike w=1,nosuch: those rows, nosuch reported: %s %s"
          % ([sel.label(p) for p in sel.points], sel.unmatched))
    check([p.weight for p in v.dike] == [0.0, 0.25, 0.5, 0.75, 1.0] and v.title.endswith("(oracle, demand)"),
          "the frontier keeps every knob value of the slice; the title names the setting")
    v = group(runs, headline="equal").figure_view()
    check([p.label for p in v.points if p.policy in ("themis", "dike")] == ["themis · oracle · equal",
                                                                           "dike w=1 · oracle · equal"],
          "--headline-weights equal: themis and Dike of oracle/equal")


def main():
    run((case_themis_dominates, case_nothing_dominates, case_ties, case_settings, case_monotonicity,
         case_monotonicity_close, case_knob_shares, case_target, case_figures))


if __name__ == "__main__":
    main()
