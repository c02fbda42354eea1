#!/usr/bin/python3
"""Check report.py's tables against the runs they came from (used by report_test.sh).

    check_report.py REPORT_DIR RUNS_DIR [RUNS_DIR ...]

Reads the runs with h5py directly (not through analysis/dikeio.py, so a bug there cannot hide
itself) and checks, for every group table tables/*.csv:
  - one row per (load, policy, fairness_weight) found in the runs, no more, no fewer;
  - seeds and seed_list = the distinct seeds of the matching runs;
  - every metric = the mean of the matching runs' /summary attribute (exact for one seed),
    its _ci95 = t(0.975, n-1) * s / sqrt(n); preemptions_per_job = preemptions / jobs;
  - the Markdown and LaTeX tables have the same number of rows;
and for tables/runs.csv: one row per .h5 file, every /summary column exactly equal to the file's;
and for every tables/*-tenants.csv: its rows are /tenants of the lowest seed of each configuration.
Prints one line per check; exits 1 at the first mismatch.
"""
import configparser
import csv
import glob
import math
import os
import sys

import h5py

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}
# Table columns computed from /summary rather than copied from it.
DERIVED = {"preemptions_per_job": lambda s: s["preemptions"] / s["jobs"]}
# Tables of tables/ that are not per-group summary tables.
OTHER_TABLES = ("runs.csv", "scaling.csv", "dominance.csv", "monotonicity.csv")


def value(summary, metric):
    return DERIVED[metric](summary) if metric in DERIVED else summary[metric]


def fail(msg):
    print("check_report: FAIL: %s" % msg)
    sys.exit(1)


def close(a, b, rel):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def read_runs(runs_dirs):
    """Every .h5 in the folders; "file" is its path relative to the folders' common parent (the
    name report.py shows)."""
    runs = []
    root = os.path.commonpath([os.path.abspath(d) for d in runs_dirs])
    paths = sorted(p for d in runs_dirs for p in glob.glob(os.path.join(d, "*.h5")))
    for path in paths:
        with h5py.File(path, "r") as f:
            cfg = configparser.ConfigParser(interpolation=None)
            cfg.read_string(f.attrs["config"])
            summary = {k: f["summary"].attrs[k].item() for k in f["summary"].attrs
                       if k not in ("units", "description") and not k.startswith("units_")}
            policy = f.attrs["policy"]
            w = float(cfg.get("dike", "fairness_weight")) if policy == "dike" else None
            runs.append(dict(path=path, file=os.path.relpath(os.path.abspath(path), root), policy=policy, w=w,
                             seed=int(f.attrs["seed"]), load="load %s" % cfg.get("workload", "load"),
                             summary=summary, tenants=f["tenants"][:]))
    return runs


def main():
    report, runs_dirs = sys.argv[1], sys.argv[2:]
    runs = read_runs(runs_dirs)
    if not runs:
        fail("no runs in %s" % " ".join(runs_dirs))
    tables = sorted(p for p in glob.glob(os.path.join(report, "tables", "*.csv"))
                    if os.path.basename(p) not in OTHER_TABLES
                    and not p.endswith("-tenants.csv"))
    if not tables:
        fail("no group tables in %s/tables" % report)
    checked = 0
    covered = set()
    for t in tables:
        with open(t, newline="") as f:
            rows = list(csv.DictReader(f))
        metrics = [k[:-5] for k in rows[0] if k.endswith("_ci95")]
        if len(metrics) < 12:
            fail("%s: only %d metric columns: %s" % (t, len(metrics), metrics))
        for row in rows:
            w = float(row["fairness_weight"]) if row["fairness_weight"] else None
            match = [r for r in runs if r["load"] == row["load"] and r["policy"] == row["policy"] and r["w"] == w]
            if not match:
                fail("%s: row %s (%s) matches no run" % (t, row["row"], row["load"]))
            by_seed = {}
            for r in match:
                by_seed.setdefault(r["seed"], r)   # runs of one seed on other rank counts are identical
                covered.add(r["path"])
            seeds = sorted(by_seed)
            if int(row["seeds"]) != len(seeds) or row["seed_list"] != " ".join(map(str, seeds)):
                fail("%s: row %s: seeds %s [%s], runs have %s" % (t, row["row"], row["seeds"], row["seed_list"], seeds))
            n = len(seeds)
            for m in metrics:
                vals = [value(by_seed[s]["summary"], m) for s in seeds]
                got = float(row[m])
                want = math.fsum(vals) / n
                if not (got == want if n == 1 else close(got, want, 1e-12)):
                    fail("%s: row %s, %s = %r, mean of /summary %s over seeds %s = %r" % (t, row["row"], m, got, m, seeds, want))
                if n == 1:
                    if row[m + "_ci95"] != "":
                        fail("%s: row %s: %s_ci95 given for one seed" % (t, row["row"], m))
                else:
                    s = math.sqrt(math.fsum((v - want) ** 2 for v in vals) / (n - 1))
                    want_ci = T975[n - 1] * s / math.sqrt(n)
                    if not close(float(row[m + "_ci95"]), want_ci, 1e-9):
                        fail("%s: row %s: %s_ci95 = %s, expected %r" % (t, row["row"], m, row[m + "_ci95"], want_ci))
                checked += 2
        want_rows = len(set((r["policy"], r["w"]) for r in runs if r["load"] == rows[0]["load"]))
        if len(rows) != want_rows:
            fail("%s: %d rows, the runs of %s have %d (policy, w) points" % (t, len(rows), rows[0]["load"], want_rows))
        base = t[:-4]
        with open(base + ".md") as f:
            md_rows = [ln for ln in f if ln.startswith("| ") and not ln.startswith("| policy")]
        with open(base + ".tex") as f:
            tex = f.read()
        tex_rows = [ln for ln in tex.splitlines() if ln.endswith("\\\\")][1:]
        if len(md_rows) != len(rows) or len(tex_rows) != len(rows):
            fail("%s: %d CSV rows, %d Markdown rows, %d LaTeX rows" % (base, len(rows), len(md_rows), len(tex_rows)))
        for rule in ("\\toprule", "\\midrule", "\\bottomrule"):
            if rule not in tex:
                fail("%s.tex: no %s (booktabs)" % (base, rule))
        print("ok: %s: %d rows x %d metrics equal the /summary means and 95%% CIs of their runs"
              % (os.path.basename(t), len(rows), len(metrics)))
    missing = [r["file"] for r in runs if r["path"] not in covered]
    if missing:
        fail("runs in no table row: %s" % missing)

    # Per-tenant tables: each row's values exactly those of a /tenants row of some run.
    tenant_rows = {}
    for r in runs:
        t = r["tenants"]
        for i, name in enumerate(t["name"]):
            name = name.decode() if isinstance(name, bytes) else str(name)
            tenant_rows.setdefault((r["seed"], name, int(t["jobs"][i])), []).append(
                tuple(float(t[c][i]) for c in ("gpu_seconds", "weight", "weight_share", "avg_gpus",
                                               "entitlement", "gpu_share", "entitled_share")))
    ntables = 0
    for t in sorted(glob.glob(os.path.join(report, "tables", "*-tenants.csv"))):
        with open(t, newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows:
            fail("%s: no rows" % t)
        for row in rows:
            got = tuple(float(row[c]) for c in ("gpu_seconds", "weight", "weight_share", "avg_gpus",
                                                "entitlement", "gpu_share", "entitled_share"))
            cands = tenant_rows.get((int(row["seed"]), row["name"], int(row["jobs"])), [])
            if not any(all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15) for a, b in zip(got, c))
                       for c in cands):
                fail("%s: %s / %s: not the /tenants row of any run" % (t, row["configuration"], row["name"]))
        ntables += 1
    if not ntables:
        fail("no per-tenant tables in %s/tables" % report)

    with open(os.path.join(report, "tables", "runs.csv"), newline="") as f:
        rrows = list(csv.DictReader(f))
    if sorted(r["file"] for r in rrows) != sorted(r["file"] for r in runs):
        fail("runs.csv lists %s, the folder has %s" % (sorted(r["file"] for r in rrows), sorted(r["file"] for r in runs)))
    byfile = {r["file"]: r for r in runs}
    for row in rrows:
        r = byfile[row["file"]]
        for k, v in r["summary"].items():
            if k in row:
                got = type(v)(row[k]) if not isinstance(v, float) else float(row[k])
                if got != v:
                    fail("runs.csv: %s: %s = %s, /summary has %r" % (row["file"], k, row[k], v))
                checked += 1
        if int(row["seed"]) != r["seed"] or row["policy"] != r["policy"]:
            fail("runs.csv: %s: seed/policy differ from the file" % row["file"])
    print("ok: runs.csv: %d files, every /summary value exact" % len(rrows))
    print("ok: %d table values checked" % checked)


if __name__ == "__main__":
    main()
