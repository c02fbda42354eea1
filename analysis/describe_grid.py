#!/usr/bin/python3
"""Describe the runs of a campaign in Markdown, from the runs themselves (used by scripts/make_gallery.sh).

    /usr/bin/python3 analysis/describe_grid.py RESULTS [--headline-weights demand]

RESULTS is what analysis/report.py takes (a campaign folder, a manifest, .h5 files). Prints one
paragraph naming the traces (jobs, tenants), the offered loads, the cluster sizes, and for every
policy the duration-knowledge modes, tenant weightings and Dike knob values it was run with, as
found in the files' stored configurations, so the gallery's introduction cannot drift from the
grid that produced the numbers.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dikeio  # noqa: E402
import report  # noqa: E402

# Friendly names of the shared traces, by the name report.py gives them.
TRACE_NAMES = {
    "philly.csv": "TitanSched Philly",
    "philly_data_training.csv": "Gen-Parallel Philly",
    "helios_data_training.csv": "Gen-Parallel Helios",
    "elasticflow-traces": "ElasticFlow, all ten clusters merged",
}
TENANT_KIND = {
    "philly.csv": "virtual clusters",
    "philly_data_training.csv": "users",
    "helios_data_training.csv": "users",
    "elasticflow-traces": "clusters",
}


def join(items):
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--headline-weights", default="demand")
    args = ap.parse_args(argv)
    runs, skipped = dikeio.load_results(args.inputs)
    if not runs:
        print("describe_grid: no complete outputs in %s" % " ".join(args.inputs), file=sys.stderr)
        return 1
    traces = {}
    for r in runs:
        traces.setdefault(r.trace, (int(r.summary["jobs"]), len(r.tenants)))
    loads = sorted(set(report.load_label(r) for r in runs))
    gpus = sorted(set(r.gpus for r in runs))
    pol = {}
    for r in runs:
        d = pol.setdefault(r.policy, {"k": set(), "w": set(), "knob": {}})
        d["k"].add(report.knowledge_of(r))
        wt = report.weighting_of(r)
        d["w"].add(wt)
        if r.policy == "dike":
            d["knob"].setdefault(wt, set()).add(report.weight_of(r))
    order = [p for p in report.POLICY_ORDER if p in pol] + sorted(p for p in pol if p not in report.POLICY_ORDER)
    tr = ["%s (`%s`: %s jobs, %d %s)" % (TRACE_NAMES.get(t, t), t, "{:,}".format(j), n,
                                         "%s as tenants" % TENANT_KIND[t] if t in TENANT_KIND else "tenants")
          for t, (j, n) in sorted(traces.items(), key=lambda kv: list(TRACE_NAMES).index(kv[0])
                                  if kv[0] in TRACE_NAMES else len(TRACE_NAMES))]
    out = ["It holds %d runs: %s; each replayed at offered load%s %s (`workload.trace_load`: the "
           "inter-arrival times are scaled so the trace offers that load) on %s of %s GPUs." %
           (len(runs), join(tr), "" if len(loads) == 1 else "s",
            join(x.replace("load ", "") for x in loads), "a cluster" if len(gpus) == 1 else "clusters",
            join("{:,}".format(g) for g in gpus))]
    lines = []
    for p in order:
        d = pol[p]
        ks = sorted(d["k"], key=report.knowledge_order)
        ws = sorted(d["w"], key=report.weighting_order)
        what = "duration knowledge %s" % join(ks) if len(ks) > 1 else "%s knowledge only" % ks[0]
        free = p in report.WEIGHT_FREE and len(ws) == 1
        if p == "dike":
            parts = []
            for w in ws:
                knobs = sorted(d["knob"][w])
                parts.append("w = %s%s" % (join(report.fmt_w(x) for x in knobs),
                                          "" if free else " with %s weights" % w))
            lines.append("`dike`: %s; %s" % (what, "; ".join(parts)))
        elif free:
            lines.append("`%s`: %s" % (p, what))
        else:
            lines.append("`%s`: %s; %s" % (p, what, ("tenant weights " + join(ws)) if len(ws) > 1 else
                                           "%s tenant weights" % ws[0]))
    out.append("Per (trace, load, cluster size) the policies ran as follows (a row of a policy that uses "
               "no job durations, fifo, las, gandiva-fair or drf, stands for every knowledge mode; all but "
               "gandiva-fair and drf ignore tenant weights and stand for every weighting):")
    print(" ".join(out))
    print()
    for ln in lines:
        print("- " + ln)
    return 0


if __name__ == "__main__":
    sys.exit(main())
