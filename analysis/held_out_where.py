#!/usr/bin/python3
"""Where Dike's knob fails on held-out draws: the checks of held_out.py's reports, tallied by
trace, knowledge mode, offered load and cluster size.

    /usr/bin/python3 analysis/held_out_where.py REPORT.txt [REPORT.txt ...]

Each REPORT is what `analysis/held_out.py` printed for one full draw (analysis/held_out_draws.sh
writes OUT/dN.txt). Every "dominated by" line is one check: a point (trace window, load, cluster
size) in one knowledge mode. For each class the table gives the checks, how many a baseline
dominates, how many fail the knob, and of those how many on the JCT side (w = 0 slower than
w = 1) and on the unfair side (w = 1 less fair than w = 0) -- one check can fail both -- with the
median margin of each side (percent of w = 1's average JCT; unfair fraction). A point drawn in two
reports is counted twice. Standard library only.
"""
import argparse
import re
import statistics
import sys

LINE = re.compile(r"^(\S+)\s+(oracle|noisy|none)\s+dominated by: (\S+)\s+knob monotone: (yes|NO)\b(.*)$")
LOADS = [(0.9, "below 0.9"), (1.1, "0.9-1.1"), (1.5, "1.1-1.5"), (float("inf"), "1.5 and above")]
SIZES = [(256, "up to 256 GPUs"), (512, "257-512 GPUs"), (1024, "513-1,024 GPUs"), (float("inf"), "over 1,024 GPUs")]
TRACES = {"titan": "TitanSched Philly", "gpphilly": "Gen-Parallel Philly", "helios": "Gen-Parallel Helios",
          "ef": "ElasticFlow"}


def band(value, bands, inclusive=False):
    """The name of @p value's band: the first whose upper end is above it (or, with @p inclusive,
    at or above it: cluster sizes; loads' upper ends are exclusive, 0.9 is in "0.9-1.1")."""
    for top, name in bands:
        if value < top or (inclusive and value == top):
            return name
    return bands[-1][1]


def parse(path):
    """One dict per check line of a held_out.py report."""
    out = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        m = LINE.match(line.rstrip("\n"))
        if not m:
            continue
        label, mode, dom, mono, rest = m.groups()
        lm = re.search(r"-load([\d.]+)-(\d+)gpus$", label)
        if not lm:
            sys.exit("held_out_where: %s:%d: no load and cluster size in %r" % (path, n, label))
        trace = re.match(r"[a-z]+", label).group(0)
        if trace not in TRACES:
            sys.exit("held_out_where: %s:%d: unknown trace %r" % (path, n, label))
        jct = re.search(r"JCT side: w=0 slower by ([\d.]+)%", rest)
        unf = re.search(r"unfair side: w=1 higher by ([\d.]+)", rest)
        if (mono == "NO") != bool(jct or unf):
            sys.exit("held_out_where: %s:%d: knob %s but %s side given" % (path, n, mono, "a" if jct or unf else "no"))
        out.append({"trace": TRACES[trace], "mode": mode, "load": float(lm.group(1)), "gpus": int(lm.group(2)),
                    "dominated": dom != "none", "knob": mono == "NO",
                    "jct": float(jct.group(1)) if jct else None, "unfair": float(unf.group(1)) if unf else None})
    return out


def row(name, checks):
    n = len(checks)
    knob = [c for c in checks if c["knob"]]
    jct = [c["jct"] for c in checks if c["jct"] is not None]
    unf = [c["unfair"] for c in checks if c["unfair"] is not None]
    med = lambda xs, f: f % statistics.median(xs) if xs else "-"
    return "| %s | %d | %d | %d (%.0f %%) | %d | %s | %d | %s |" % (
        name, n, sum(c["dominated"] for c in checks), len(knob), 100.0 * len(knob) / n if n else 0.0,
        len(jct), med(jct, "%.3f %%"), len(unf), med(unf, "%.4f"))


def table(title, checks, key, order):
    print("\n%s\n" % title)
    print("| %s | checks | dominated | knob fails | JCT side | median | unfair side | median |" % title.split(" ")[-1])
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in order:
        sub = [c for c in checks if key(c) == name]
        if sub:
            print(row(name, sub))
    print(row("all", checks))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="+")
    a = ap.parse_args()
    checks = []
    for p in a.reports:
        got = parse(p)
        if not got:
            sys.exit("held_out_where: %s: no check lines (not a full held_out.py report?)" % p)
        checks += got
    print("%d checks from %d reports" % (len(checks), len(a.reports)))
    table("By trace", checks, lambda c: c["trace"], list(TRACES.values()))
    table("By mode", checks, lambda c: c["mode"], ["oracle", "noisy", "none"])
    table("By load", checks, lambda c: band(c["load"], LOADS), [n for _, n in LOADS])
    table("By size", checks, lambda c: band(c["gpus"], SIZES, inclusive=True), [n for _, n in SIZES])
    print("\nBy trace and mode, knob fails / checks:\n")
    modes = ["oracle", "noisy", "none"]
    print("| trace | " + " | ".join(modes) + " |")
    print("|---|" + "---:|" * len(modes))
    for t in TRACES.values():
        cells = []
        for m in modes:
            sub = [c for c in checks if c["trace"] == t and c["mode"] == m]
            cells.append("%d / %d" % (sum(c["knob"] for c in sub), len(sub)) if sub else "-")
        print("| %s | %s |" % (t, " | ".join(cells)))


if __name__ == "__main__":
    main()
