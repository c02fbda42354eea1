#!/usr/bin/python3
"""Which jobs carry a failing knob check: the difference between Dike's two ends (w = 0, w = 1) on
one configuration, split by the jobs' width and by their true length.

The knob check compares two averages over all finished jobs: the average JCT (w = 0 must be no
slower) and the unfair fraction (w = 1 must be no less fair). Each is a sum over jobs divided by
the number of finished jobs N, so its difference is a sum of per-class parts, each class's own
(sum at one end - sum at the other) / N, and the parts add up to the difference. A class whose
part is as large as the whole difference is the failure's carrier. Measured this way, the
largest `oracle` failure of held-out draw 16 (ElasticFlow 02 + 07, load 1.28, 64 GPUs: w = 0
slower by 2.6 %) is the 50 gangs of 17 or more GPUs, whose starvation on a cluster of eight nodes
ends later at one end than at the other (docs/dike.md, "Where it loses").

    import knobcause
    text = knobcause.carried_by(jobs_w0, jobs_w1, "jct")  # '' if the tables cannot be compared

jobs_w0 and jobs_w1 are `/jobs` tables (numpy structured arrays, dikeio.Run.jobs) of the same
workload; the side is "jct" (w = 0 slower than w = 1) or "unfair" (w = 1 less fair than w = 0).
Used by report.py (the grid's knob lines) and held_out.py (each failing point).

From the command line, the same difference split by width and length at once, the classes whose
parts are largest either way first: a part against the failing direction shows a trade between
classes (on held-out draw 24's largest `oracle` failure, 1-GPU jobs over a day +1,226 s and 5-8-GPU
jobs over a day -1,125 s of a +415 s difference; docs/dike-history.md):

    /usr/bin/python3 analysis/knobcause.py W0.h5 W1.h5 [--side jct|unfair] [--rows N]

W0.h5 and W1.h5 are the outputs of Dike at w = 0 and w = 1 on the same configuration.
"""
import argparse
import sys

import numpy as np

# (lowest, highest or None, label): the widths of docs/results.md's per-class tables
WIDTHS = ((1, 1, "1 GPU"), (2, 4, "2-4 GPUs"), (5, 8, "5-8 GPUs"), (9, 16, "9-16 GPUs"),
          (17, None, "17+ GPUs"))
# (from, below, label) in seconds of the job's true duration
LENGTHS = ((0, 600, "under 10 min"), (600, 3600, "10 min-1 h"), (3600, 6 * 3600, "1-6 h"),
           (6 * 3600, 86400, "6-24 h"), (86400, None, "over a day"))


def _common(jobs_w0, jobs_w1):
    """The two tables' jobs finished at both ends, aligned by job_id: (a, b, n_a, n_b), a and b the
    rows of those jobs in the same order, n_a and n_b each end's own count of finished jobs (the N
    its summary divides by). None if the tables do not hold the same job ids."""
    ia, ib = np.argsort(jobs_w0["job_id"], kind="stable"), np.argsort(jobs_w1["job_id"], kind="stable")
    a, b = jobs_w0[ia], jobs_w1[ib]
    if len(a) != len(b) or not np.array_equal(a["job_id"], b["job_id"]):
        return None
    fa, fb = a["finish_time"] >= 0, b["finish_time"] >= 0
    both = fa & fb
    return a[both], b[both], int(fa.sum()), int(fb.sum())


def parts(jobs_w0, jobs_w1, side):
    """The failing direction's difference split by class: a dict with 'total' (the whole difference
    over the jobs finished at both ends: w = 0's average JCT minus w = 1's, in seconds, for
    side 'jct'; w = 1's unfair fraction minus w = 0's for side 'unfair'), 'width' and 'length'
    (lists of (label, jobs, part), in the order of WIDTHS and LENGTHS, classes without jobs left
    out) and 'jobs' (the jobs compared). The parts of either list add up to the total. None if the
    tables are not of the same workload or no job finished at both ends."""
    d = _differences(jobs_w0, jobs_w1, side)
    if d is None:
        return None
    a, _, n, per_job = d

    def split(classes, widths):
        values = a["num_gpus"].astype(np.int64) if widths else a["duration"].astype(float)
        return [(label, int(m.sum()), float(per_job[m].sum() / n))
                for label, m in _classes(values, classes, widths) if m.any()]

    return {"total": float(per_job.sum() / n), "width": split(WIDTHS, True),
            "length": split(LENGTHS, False), "jobs": int(n)}


def _differences(jobs_w0, jobs_w1, side):
    """The jobs finished at both ends and each one's part of the failing direction: (a, b, N,
    per_job), a and b their rows at w = 0 and w = 1, per_job w = 0's JCT minus w = 1's (side
    'jct') or whether it is unfair at w = 1 minus at w = 0 ('unfair'); None as for parts()."""
    if side not in ("jct", "unfair"):
        raise ValueError("side must be 'jct' or 'unfair', not %r" % (side,))
    c = _common(jobs_w0, jobs_w1)
    if c is None or len(c[0]) == 0:
        return None
    a, b, _, _ = c
    if side == "jct":
        per_job = a["jct"].astype(float) - b["jct"].astype(float)
    else:
        per_job = (b["rho"] > 1).astype(float) - (a["rho"] > 1).astype(float)
    return a, b, float(len(a)), per_job


def _classes(values, classes, widths):
    """For each of @p classes (WIDTHS, whose upper bounds are inclusive, or LENGTHS, whose are
    not), its label and the mask of @p values in it."""
    out = []
    for lo, hi, label in classes:
        m = values >= lo if hi is None else ((values >= lo) & (values <= hi) if widths else
                                             (values >= lo) & (values < hi))
        out.append((label, m))
    return out


def _amount(side, v):
    if side == "unfair":
        return "%+.4f" % v
    a = abs(v)
    return "%+.3g %s" % ((v / 3600, "h") if a >= 3600 else (v / 60, "min") if a >= 60 else (v, "s"))


def mean_parts(pairs, side):
    """parts() of each (jobs at w = 0, jobs at w = 1) pair, one per seed, averaged: the difference of
    the seeds' mean averages (what report.py compares) split the same way, each class's jobs the
    mean over the pairs. None if any pair's parts() is None or the pairs' classes differ."""
    ps = [parts(a, b, side) for a, b in pairs]
    if not ps or any(p is None for p in ps):
        return None
    k = float(len(ps))
    out = {"total": sum(p["total"] for p in ps) / k, "jobs": int(round(sum(p["jobs"] for p in ps) / k))}
    for key in ("width", "length"):
        labels = [label for label, _, _ in ps[0][key]]
        if any([label for label, _, _ in p[key]] != labels for p in ps):
            return None
        out[key] = [(label, int(round(sum(p[key][i][1] for p in ps) / k)), sum(p[key][i][2] for p in ps) / k)
                    for i, label in enumerate(labels)]
    return out


def phrase(p, side):
    """One phrase for a report line from parts() or mean_parts(): the width class and the length
    class whose parts are largest in the failing direction, each with its jobs and its part, and
    the total, e.g. "largest parts 17+ GPUs (50 jobs, +1.41 h) by width, 6-24 h (2,294 jobs,
    +1.43 h) by length, of +1.11 h in all" (a part can be larger than the total when other classes
    move the other way). '' when @p p is None or its total is not in the failing direction (> 0)."""
    if p is None or not p["total"] > 0:
        return ""
    out = []
    for key in ("width", "length"):
        label, n, v = max(p[key], key=lambda x: x[2])
        out.append("%s (%s job%s, %s) by %s" % (label, "{:,}".format(n), "" if n == 1 else "s",
                                                 _amount(side, v), key))
    return "largest parts %s, of %s in all" % (", ".join(out), _amount(side, p["total"]))


def carried_by(jobs_w0, jobs_w1, side):
    """phrase() of one pair of `/jobs` tables."""
    return phrase(parts(jobs_w0, jobs_w1, side), side)


def cross(jobs_w0, jobs_w1, side):
    """parts() by width and length at once: a dict with 'total' and 'jobs' as in parts(), and 'rows',
    one (width label, length label, jobs, part, mean per job, preemptions per job at w = 0, at
    w = 1) for each pair of classes with jobs, the largest parts either way first (ties in class
    order). The parts add up to the total. The mean per job is the class's own difference (seconds
    of JCT, or its change in unfair share); preemptions are None when the tables have no
    `preemptions` column. None as for parts()."""
    d = _differences(jobs_w0, jobs_w1, side)
    if d is None:
        return None
    a, b, n, per_job = d
    pre = "preemptions" in (a.dtype.names or ())
    rows = []
    for wl, wm in _classes(a["num_gpus"].astype(np.int64), WIDTHS, True):
        for ll, lm in _classes(a["duration"].astype(float), LENGTHS, False):
            m = wm & lm
            k = int(m.sum())
            if k:
                rows.append((wl, ll, k, float(per_job[m].sum() / n), float(per_job[m].mean()),
                             float(a["preemptions"][m].mean()) if pre else None,
                             float(b["preemptions"][m].mean()) if pre else None))
    order = sorted(range(len(rows)), key=lambda i: (-abs(rows[i][3]), i))
    return {"total": float(per_job.sum() / n), "jobs": int(n), "rows": [rows[i] for i in order]}


def cross_table(x, side, nrows=8):
    """cross() as a Markdown table: its first @p nrows rows, then the other classes' jobs and
    part in one row, then the total."""
    def amount(v):  # whole seconds in a table column, not _amount's h / min / s
        return _amount(side, v) if side == "unfair" else "{:+,.0f} s".format(v)

    pre = bool(x["rows"]) and x["rows"][0][5] is not None

    def row(label, jobs, mean, part, p0=None, p1=None):
        cells = [label, "{:,}".format(jobs), mean, part] + (["" if p0 is None else "%.2f / %.2f" % (p0, p1)]
                                                            if pre else [])
        return "|" + "|".join(" %s " % c if c else " " for c in cells) + "|"

    lines = ["| jobs (width, length) | jobs | mean per job | part of the difference |" +
             (" preemptions per job, w = 0 / w = 1 |" if pre else ""),
             "|---|---:|---:|---:|" + ("---|" if pre else "")]
    for wl, ll, k, part, mean, p0, p1 in x["rows"][:nrows]:
        lines.append(row("%s, %s" % (wl, ll), k, amount(mean), amount(part), p0, p1))
    rest = x["rows"][nrows:]
    if rest:
        k = sum(r[2] for r in rest)
        lines.append(row("the other {:,} jobs ({} classes)".format(k, len(rest)), k, "",
                         amount(sum(r[3] for r in rest))))
    lines.append(row("all", x["jobs"], "", amount(x["total"])))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description="Which jobs carry the difference between Dike's two ends "
                                 "on one configuration: its parts by job width and length at once.")
    ap.add_argument("w0", help="the output of Dike at w = 0")
    ap.add_argument("w1", help="the output of Dike at w = 1, same configuration otherwise")
    ap.add_argument("--side", choices=("jct", "unfair"), default="jct",
                    help="jct: w = 0's average JCT minus w = 1's (default); unfair: w = 1's unfair "
                    "fraction minus w = 0's")
    ap.add_argument("--rows", type=int, default=8, help="classes shown one by one (default 8)")
    a = ap.parse_args(argv)
    import dikeio  # here: the functions above need only numpy
    try:
        runs = [dikeio.load(f) for f in (a.w0, a.w1)]
    except dikeio.NotDikeOutput as e:
        sys.exit("knobcause: %s" % e)
    x = cross(runs[0].jobs, runs[1].jobs, a.side)
    if x is None:
        sys.exit("knobcause: %s and %s do not hold the same jobs (or none finished at both ends)"
                 % (a.w0, a.w1))
    print("%s side: %s, over the %s jobs finished at both ends" %
          (a.side, "w = 0's average JCT minus w = 1's" if a.side == "jct" else
           "w = 1's unfair fraction minus w = 0's", "{:,}".format(x["jobs"])))
    print(cross_table(x, a.side, max(0, a.rows)))


if __name__ == "__main__":
    main(sys.argv[1:])
