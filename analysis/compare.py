#!/usr/bin/python3
"""What-if comparison of two dike-emu runs of the same workload: B against A.

    /usr/bin/python3 analysis/compare.py A.h5 B.h5 [--top N] [--jobs-csv FILE] [--json FILE]

Prints (every delta is B - A, in seconds unless said otherwise; negative JCT = B is better):
  - the runs (policy, placement, seed, trace), whether their workloads are the same, and whether
    the same emulator code computed them (the outputs' source_sha256 and builds);
  - the /summary metrics of both and their difference;
  - per tenant (matched by name): jobs finished, mean JCT, mean rho, GPU share in A and B and the
    deltas;
  - per job (matched by job id, finished in both runs): how many finished sooner, later, the same,
    the mean and median JCT delta, and the N jobs that gained most (largest JCT decrease) and lost
    most (largest increase), with their tenant, GPUs, duration and both JCTs.
--jobs-csv writes every matched job's row (job_id, tenant, num_gpus, duration, jct/queue_delay/rho
in A and B, jct_delta, queue_delay_delta, rho_delta, preemptions in A and B); --json writes
everything printed, as one object. Exit status 0, 1 if a file is not a complete output or the
runs share no job id.
"""
import argparse
import csv
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dikeio  # noqa: E402  (needs the path above)
import numpy as np  # noqa: E402

SUMMARY = ("jobs", "finished", "avg_jct", "p50_jct", "p95_jct", "p99_jct", "makespan", "avg_queue_delay",
           "mean_rho", "p99_rho", "max_rho", "unfair_fraction", "jain", "utilization", "preemptions")
# Keys that may differ between the two runs without changing the workload they replay.
NOT_WORKLOAD = {"scheduler", "tenants", "las", "themis", "dike", "run", "output", "engine"}


def num(v):
    """A JSON-safe number: NaN and infinities become None."""
    v = float(v)
    return v if math.isfinite(v) else None


def label(run):
    pol = run.policy
    if pol == "dike":
        pol += " w=%s" % run.get("dike", "fairness_weight", "?")
    return "%s (placement %s, seed %d)" % (pol, run.attrs["placement"], run.seed)


def code_notes(a, b):
    """Notes on the emulator code behind the runs: other sources (source_sha256) in B than in A, or
    a run continued across builds (its builds attribute lists several)."""
    notes = []
    sa, sb = a.attrs.get("source_sha256"), b.attrs.get("source_sha256")  # None in older outputs
    if sa and sb and sa != sb:
        notes.append("the runs were computed by different emulator sources (A: build %s, source %s...; "
                     "B: build %s, source %s...): their differences include the code's"
                     % (a.attrs.get("build"), sa[:12], b.attrs.get("build"), sb[:12]))
    for name, run in (("A", a), ("B", b)):
        builds = run.attrs.get("builds", "")
        if "," in builds:
            notes.append("run %s was continued across builds (%s)" % (name, builds))
    return notes


def same_workload(a, b):
    """Differences between the runs' workload and cluster settings, as 'section.key' strings."""
    diffs = []
    for sec in sorted(set(a.config.sections()) | set(b.config.sections())):
        if sec in NOT_WORKLOAD:
            continue
        keys = set(a.config[sec].keys() if a.config.has_section(sec) else ()) | \
            set(b.config[sec].keys() if b.config.has_section(sec) else ())
        for k in sorted(keys):
            if a.get(sec, k) != b.get(sec, k):
                diffs.append("%s.%s" % (sec, k))
    if a.attrs.get("trace_sha256") != b.attrs.get("trace_sha256"):
        diffs.append("trace_sha256")
    return diffs


def tenant_table(a, b):
    rows = []
    ta, tb = a.tenants, b.tenants
    names_a, names_b = a.tenant_names(), b.tenant_names()
    jobs_a, jobs_b = a.jobs, b.jobs
    for name in sorted(set(names_a) | set(names_b)):
        row = {"tenant": name}
        for tag, run, t, names, jobs in (("a", a, ta, names_a, jobs_a), ("b", b, tb, names_b, jobs_b)):
            if name not in names:
                row.update({tag + "_finished": None, tag + "_avg_jct": None, tag + "_mean_rho": None,
                            tag + "_gpu_share": None})
                continue
            i = names.index(name)
            done = jobs[(jobs["tenant"] == t["tenant"][i]) & (jobs["finish_time"] >= 0)]
            row[tag + "_finished"] = int(len(done))
            row[tag + "_avg_jct"] = num(done["jct"].mean()) if len(done) else None
            row[tag + "_mean_rho"] = num(done["rho"].mean()) if len(done) else None
            row[tag + "_gpu_share"] = num(t["gpu_share"][i]) if "gpu_share" in t.dtype.names else None
        for k in ("avg_jct", "mean_rho", "gpu_share"):
            va, vb = row["a_" + k], row["b_" + k]
            row[k + "_delta"] = vb - va if va is not None and vb is not None else None
        rows.append(row)
    return rows


def job_table(a, b):
    """Jobs finished in both runs, matched by job id, with their deltas (B - A)."""
    ja, jb = a.jobs, b.jobs
    names = a.tenant_names()
    ia = {int(i): k for k, i in enumerate(ja["job_id"])}
    rows = []
    for k, jid in enumerate(jb["job_id"]):
        i = ia.get(int(jid))
        if i is None:
            continue
        x, y = ja[i], jb[k]
        if x["finish_time"] < 0 or y["finish_time"] < 0:
            continue
        rows.append({
            "job_id": int(jid), "tenant": names[int(x["tenant"])] if int(x["tenant"]) < len(names) else "",
            "num_gpus": int(x["num_gpus"]), "duration": float(x["duration"]),
            "a_jct": float(x["jct"]), "b_jct": float(y["jct"]),
            "a_queue_delay": float(x["queue_delay"]), "b_queue_delay": float(y["queue_delay"]),
            "a_rho": float(x["rho"]), "b_rho": float(y["rho"]),
            "jct_delta": float(y["jct"]) - float(x["jct"]),
            "queue_delay_delta": float(y["queue_delay"]) - float(x["queue_delay"]),
            "rho_delta": float(y["rho"]) - float(x["rho"]),
            "a_preemptions": int(x["preemptions"]), "b_preemptions": int(y["preemptions"])})
    return rows, len(set(ia) & set(int(j) for j in jb["job_id"]))


def fmt(v, digits=2):
    if v is None:
        return "–"
    if isinstance(v, int):
        return "%d" % v
    return "%.*f" % (digits, v)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", help="the reference run (A)")
    ap.add_argument("b", help="the run compared with it (B)")
    ap.add_argument("--top", type=int, default=10, help="jobs listed as gaining and losing most (default 10)")
    ap.add_argument("--jobs-csv", help="write every matched job's deltas as CSV")
    ap.add_argument("--json", help="write the comparison as JSON")
    o = ap.parse_args(argv)
    try:
        a, b = dikeio.load(o.a), dikeio.load(o.b)
        jobs, common = job_table(a, b)
        tenants = tenant_table(a, b)
    except dikeio.NotDikeOutput as e:
        print("compare: %s" % e, file=sys.stderr)
        return 1
    if not common:
        print("compare: %s and %s share no job id: not runs of one workload" % (o.a, o.b), file=sys.stderr)
        return 1
    diffs = same_workload(a, b)
    code = code_notes(a, b)
    out = {"a": {"file": o.a, "run": label(a)}, "b": {"file": o.b, "run": label(b)},
           "workload_differs": diffs, "code_notes": code, "summary": {}, "tenants": tenants}

    print("A: %s: %s" % (o.a, label(a)))
    print("B: %s: %s" % (o.b, label(b)))
    if diffs:
        print("note: the workloads differ (%s): job-by-job deltas compare different jobs' fates"
              % ", ".join(diffs))
    for n in code:
        print("note: %s" % n)
    print("\n%-18s %16s %16s %16s" % ("metric", "A", "B", "B - A"))
    for m in SUMMARY:
        va, vb = a.summary.get(m), b.summary.get(m)
        if va is None or vb is None:
            continue
        d = float(vb) - float(va)
        out["summary"][m] = {"a": num(va), "b": num(vb), "delta": num(d)}
        digits = 0 if m in ("jobs", "finished", "preemptions") else 4 if "rho" in m or m in (
            "unfair_fraction", "jain", "utilization") else 2
        print("%-18s %16s %16s %16s" % (m, fmt(float(va), digits), fmt(float(vb), digits), fmt(d, digits)))

    print("\nper tenant (finished jobs; JCT in s):")
    print("%-20s %8s %8s %12s %12s %12s %9s %9s %9s %9s" % ("tenant", "A done", "B done", "A avg JCT", "B avg JCT",
                                                           "delta", "A rho", "B rho", "A share", "B share"))
    for t in tenants:
        print("%-20s %8s %8s %12s %12s %12s %9s %9s %9s %9s"
              % (t["tenant"][:20], fmt(t["a_finished"]), fmt(t["b_finished"]), fmt(t["a_avg_jct"]),
                 fmt(t["b_avg_jct"]), fmt(t["avg_jct_delta"]), fmt(t["a_mean_rho"], 3), fmt(t["b_mean_rho"], 3),
                 fmt(t["a_gpu_share"], 3), fmt(t["b_gpu_share"], 3)))

    d = np.array([j["jct_delta"] for j in jobs]) if jobs else np.zeros(0)
    stats = {"matched": len(jobs), "common_ids": common, "sooner": int((d < 0).sum()),
             "later": int((d > 0).sum()), "same": int((d == 0).sum()),
             "mean_jct_delta": num(d.mean()) if len(d) else None,
             "median_jct_delta": num(np.median(d)) if len(d) else None}
    out["jobs"] = stats
    print("\nper job: %d jobs finished in both (of %d common ids): %d sooner in B, %d later, %d the same; "
          "JCT delta mean %s s, median %s s" % (stats["matched"], common, stats["sooner"], stats["later"],
                                                stats["same"], fmt(stats["mean_jct_delta"]),
                                                fmt(stats["median_jct_delta"])))
    # Ties in the delta are broken by job id, so the lists do not depend on the file order.
    gained = sorted((j for j in jobs if j["jct_delta"] < 0), key=lambda j: (j["jct_delta"], j["job_id"]))[:o.top]
    lost = sorted((j for j in jobs if j["jct_delta"] > 0), key=lambda j: (-j["jct_delta"], j["job_id"]))[:o.top]
    out["gained_most"], out["lost_most"] = gained, lost
    for title, rows in (("gained most (JCT decreased)", gained), ("lost most (JCT increased)", lost)):
        print("\n%s:" % title)
        print("%12s %-20s %6s %12s %12s %12s %12s" % ("job_id", "tenant", "GPUs", "duration", "A JCT", "B JCT",
                                                       "delta"))
        for j in rows:
            print("%12d %-20s %6d %12s %12s %12s %12s" % (j["job_id"], j["tenant"][:20], j["num_gpus"],
                                                           fmt(j["duration"]), fmt(j["a_jct"]), fmt(j["b_jct"]),
                                                           fmt(j["jct_delta"])))
        if not rows:
            print("%12s" % "(none)")

    if o.jobs_csv:
        cols = ["job_id", "tenant", "num_gpus", "duration", "a_jct", "b_jct", "jct_delta", "a_queue_delay",
                "b_queue_delay", "queue_delay_delta", "a_rho", "b_rho", "rho_delta", "a_preemptions",
                "b_preemptions"]
        with open(o.jobs_csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)   # RFC 4180 quoting, CRLF line ends
            w.writeheader()
            for j in jobs:
                w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in j.items()})
    if o.json:
        with open(o.json, "w") as f:
            json.dump(out, f, indent=2, allow_nan=False)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
