#!/usr/bin/python3
"""Table and figure of bench/decision.sh: decision-step time against active jobs, per policy.

    decision_plot.py [--check] RUNS.tsv OUT_PREFIX

RUNS.tsv has one line per run: policy, jobs, nodes, status, wall s, user s, peak RSS KiB, output
path. Each finished run's /decide table gives the timed decision steps by octave of active jobs;
for each policy and octave the run with the most timed steps in that octave is kept. Writes
OUT_PREFIX.md (the runs and the curves), OUT_PREFIX.json and OUT_PREFIX.png, and prints the
Markdown. --check (the smoke test) fails unless every run finished every job and wrote a /decide
table that is consistent (counts add up to /perf, p50 <= p99 <= max).
"""
import json
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def read_run(fields):
    pol, jobs, nodes, status, wall, user, rss, path = fields
    run = {"policy": pol, "jobs": int(jobs), "gpus": int(nodes) * 8, "status": status,
           "process_s": float(wall), "user_s": float(user),
           "peak_rss_mib": float(rss) / 1024 if rss != "nan" else None, "octaves": []}
    if status != "ok":
        return run
    with h5py.File(path, "r") as f:
        s = f["summary"].attrs
        p = f["perf"][0]
        run.update(finished=int(s["finished"]), engine_s=float(p["wall_seconds"]),
                   decisions=int(p["decisions"]), timed=int(p["decide_timed"]),
                   decide_mean_us=float(p["decide_mean_us"]), decide_p50_us=float(p["decide_p50_us"]),
                   decide_p99_us=float(p["decide_p99_us"]), decide_max_us=float(p["decide_max_us"]),
                   active_mean=float(p["active_mean"]), active_max=int(p["active_max"]),
                   decide_max_active=int(p["decide_max_active"]))
        for r in f["decide"][:]:
            run["octaves"].append({k: (float(r[k]) if k.endswith(("_us", "mean")) else int(r[k]))
                                   for k in r.dtype.names})
    return run


def check(run):
    """Problems of one smoke run, as strings."""
    bad = []
    if run["status"] != "ok":
        return ["%s %d: %s" % (run["policy"], run["jobs"], run["status"])]
    if run["finished"] != run["jobs"]:
        bad.append("%d of %d jobs finished" % (run["finished"], run["jobs"]))
    octs = run["octaves"]
    if not octs or sum(o["timed"] for o in octs) != run["timed"]:
        bad.append("/decide counts do not add up to /perf decide_timed")
    if run["timed"] != (run["decisions"] + 7) // 8:
        bad.append("%d steps timed of %d (every 8th expected)" % (run["timed"], run["decisions"]))
    for o in octs:
        if not (0 <= o["p50_us"] <= o["p99_us"] <= o["max_us"]) or not \
                (o["active_lo"] <= o["active_mean"] <= o["active_hi"]):
            bad.append("inconsistent /decide row %s" % o)
    if max(o["max_us"] for o in octs or [{"max_us": -1}]) != run.get("decide_max_us"):
        bad.append("/decide max differs from /perf decide_max_us")
    return ["%s %d: %s" % (run["policy"], run["jobs"], b) for b in bad]


def curves(runs):
    """policy -> octave rows (each from the run with the most timed steps in it), by active jobs."""
    best = {}
    for run in runs:
        for o in run["octaves"]:
            key = (run["policy"], o["active_lo"])
            if key not in best or o["timed"] > best[key]["timed"]:
                best[key] = dict(o, jobs=run["jobs"])
    out = {}
    for (pol, _), o in sorted(best.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        out.setdefault(pol, []).append(o)
    return out


def markdown(runs, cur):
    def f(v, fmt):
        return "—" if v is None else fmt % v
    lines = ["## Runs", "",
             "| policy | jobs | GPUs | status | process (s) | user (s) | engine (s) | decisions | "
             "mean active | max active | decide mean (µs) | p50 (µs) | p99 (µs) | max (µs) | "
             "active at max | peak RSS (MiB) |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["policy"], "{:,}".format(r["jobs"]), "{:,}".format(r["gpus"]), r["status"],
            f(r["process_s"], "%.2f"), f(r["user_s"], "%.2f"), f(r.get("engine_s"), "%.3f"),
            f(r.get("decisions"), "%d"), f(r.get("active_mean"), "%.0f"), f(r.get("active_max"), "%d"),
            f(r.get("decide_mean_us"), "%.3g"), f(r.get("decide_p50_us"), "%.3g"),
            f(r.get("decide_p99_us"), "%.3g"), f(r.get("decide_max_us"), "%.3g"),
            f(r.get("decide_max_active"), "%d"), f(r["peak_rss_mib"], "%.0f")))
    lines += ["", "## Decision step by active jobs (octaves; each from the run with the most timed steps in it)", "",
              "| policy | active jobs | mean active | from run (jobs) | timed steps | mean (µs) | p50 (µs) | p99 (µs) | max (µs) |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for pol, rows in cur.items():
        for o in rows:
            lines.append("| %s | %d–%d | %.0f | %s | %d | %.3g | %.3g | %.3g | %.3g |" % (
                pol, o["active_lo"], o["active_hi"], o["active_mean"], "{:,}".format(o["jobs"]),
                o["timed"], o["mean_us"], o["p50_us"], o["p99_us"], o["max_us"]))
    return "\n".join(lines) + "\n"


# Octaves with fewer timed steps than this are in the table but not on the figure (one cold step
# would make a point).
MIN_TIMED = 5


def plot(cur, path):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, key, title in ((axes[0], "mean_us", "mean"), (axes[1], "p99_us", "p99")):
        for pol, rows in cur.items():
            rows = [o for o in rows if o["active_mean"] > 0 and o["timed"] >= MIN_TIMED]
            if rows:
                ax.plot([o["active_mean"] for o in rows], [o[key] for o in rows], marker="o", ms=3,
                        label=pol)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("active jobs (submitted, not finished)")
        ax.set_title("decision step, %s" % title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("µs per decision step (every 8th timed)")
    axes[1].legend(fontsize=8)
    fig.suptitle("dike-emu: decision time against active jobs (synthetic, cluster = jobs/8 GPUs; "
                 "octaves with >= %d timed steps)" % MIN_TIMED,
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv):
    do_check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) != 2:
        sys.exit(__doc__)
    runs = [read_run(line.rstrip("\n").split("\t")) for line in open(args[0]) if line.strip()]
    cur = curves(runs)
    md = markdown(runs, cur)
    out = args[1]
    open(out + ".md", "w").write(md)
    json.dump({"runs": runs, "curves": cur}, open(out + ".json", "w"), indent=1)
    plot(cur, out + ".png")
    print(md)
    print("wrote %s.md, %s.json, %s.png" % (out, out, out))
    if do_check:
        problems = [p for r in runs for p in check(r)]
        for p in problems:
            print("decision smoke: " + p, file=sys.stderr)
        if problems:
            return 1
        print("%d runs passed, 0 failed" % len(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
