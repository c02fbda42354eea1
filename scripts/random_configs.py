#!/usr/bin/python3
"""Random configurations a new user might try, each run on 1 and 2 MPI ranks (--ranks) and compared.

    scripts/random_configs.py [--emu build/dike-emu] [--shared ../shared] [--first 1] [--count 20]
                              [--ranks 1,2] [--timeout 120] [--keep DIR] [--stop [--stops K]] [--replay]
                              [--report]

Configuration SEED (--first .. --first + --count - 1) is drawn from its own random stream: one of
the shared traces (a window of 200-2,500 jobs at an offered load of 0.5-2) or the synthetic
workload; 3-80 nodes of 2-16 GPUs in racks of 1-12, sometimes of two GPU types, or the Alibaba
node list; any policy and placement, duration knowledge, backfill, Dike's knob; node failures;
the emulating mode's node models and decision latency; and now and then an extreme value of a
key (rounds of 1 s, no restore cost, huge estimate errors, ...); since the thirty-eighth session
also the synthetic workload's shape, tenant weights by name, time_scale, sampling intervals,
periodic checkpoints, the layout and progress keys, many tenants, the entitlements' treap, and
since the fifty-seventh session Dike's late pass (drawn after the others, so that a seed keeps its
first options). Every draw is a run a user could ask for. A configuration passes when
  - every run exits 0, or every run exits 2 with one `dike-emu:` line (bad input: a clear message;
    the trace reader's report of skipped rows and any `dike-emu: warning:` line, printed before the
    run, are not counted), or the
    runs on fewer ranks exit 2 with the per-rank bound of /node_timeseries and the others 0 (a
    bound of each rank's memory: fewer ranks hold more nodes each);
  - the outputs of every rank count are identical (h5diff) on /jobs, /tenants, /timeseries,
    /summary, /nodes, /node_timeseries and /job_nodes, as far as the 1-rank file has them;
  - with --stop: the run stopped (engine.inject_stop_s) at a random time before its last finish on
    one of the rank counts and resumed on one of them gives the same output; --stops K does that
    K times at different times (the first as with --stop alone). A stop at one boundary of many
    can be the only one that fails: scripts/random_campaigns.py seed 554's grid failed in 6 of 76
    stops by a signal, one of its points in 1 of 60 evenly spaced stops (2026-12-07);
  - with --replay: a rerun from the configuration stored in the output (run --config-from) gives
    the same output;
  - with --report: analysis/report.py turns the output into a report (png figures), and
    `dike-emu export` into CSV and JSON, without error.
Prints one line per configuration (its status, the wall time of its runs, the options) and exits 1 if
any failed. Found, when first run (2026-12-05): a run that failures keep from finishing filled
memory; Dike made room for wide gangs on nodes of two GPU types (docs/reliability.md,
docs/dike-history.md). Needs ../shared/traces (without it, synthetic workloads only, said once).
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# the trace reader's report before a run (--skip-invalid, fractional GPUs) and the warnings about a
# configuration (e.g. rounds no longer than a resume, docs/policies.md): information, not errors
INFO = re.compile(r"^dike-emu: (skipped \d+ rows|dropped \d+ rows|\d+ fractional-GPU requests|warning: )")
COMPARED = ("jobs", "tenants", "timeseries", "summary", "nodes", "node_timeseries", "job_nodes")
POLICIES = ("fifo", "sjf", "srtf", "las", "themis", "gandiva-fair", "drf", "dike")
PLACEMENTS = ("pack", "spread", "random", "topo", "tree")
# trace (under traces/), jobs it has after --skip-invalid (windows start below this)
TRACES = (("TitanSched/philly.csv", 82000), ("RFold/philly_trace.csv", 110000),
          ("RFold/crux.csv", 5000), ("RFold/alibaba_v2023.csv", 4300),
          ("elasticflow-traces/cluster03.csv", 2400),
          ("Gen-Parallel-Workloads/philly_data_training.csv", 15000),
          ("Gen-Parallel-Workloads/helios_data_training.csv", 10700),
          ("clusterdata/openb_pod_list_default.csv", 8000))
EXTREMES = (("scheduler.round_s=1", "scheduler.round_s=7", "scheduler.round_s=3600"),
            ("scheduler.preemption_cost_s=0", "scheduler.preemption_cost_s=600"),
            ("tenants.weights=demand",), ("las.promote_knob=0", "las.thresholds_gpu_s=60,600"),
            ("themis.fairness_knob=0", "themis.fairness_knob=1"),
            ("dike.hysteresis=0", "dike.min_lease_s=0", "dike.probe_s=0", "dike.hysteresis=0.9"),
            ("scheduler.duration_error_sigma=3", "scheduler.duration_error_sigma=0"),
            ("cluster.throughput=none", "workload.model_assignment=uniform"),
            ("node_model.slowdown_factor=0.1", "node_model.gpu_gbps=200"),
            ("metrics.window=jobs:10-100", "metrics.window=time:0-86400"),
            ("faults.checkpoint_interval_s=60", "faults.mttr_s=60"))


def draw(seed, traces):
    """The options of configuration @p seed (a list of command-line words)."""
    r = random.Random(seed)
    a = []
    pick = r.choice(traces + [None]) if traces else None
    if pick:
        path, n = pick
        first = r.randrange(0, max(1, n - 3000))
        a += ["-t", path, "--skip-invalid",
              "--set", "workload.first_job=%d" % first,
              "--set", "workload.last_job=%d" % (first + r.randrange(200, 2500)),
              "--set", "workload.trace_load=%g" % r.choice((0.5, 0.9, 1.3, 2.0))]
    else:
        a += ["--set", "workload.jobs=%d" % r.randrange(200, 3000),
              "--set", "workload.load=%g" % r.choice((0.6, 1.0, 1.8))]
    if pick and pick[0].endswith("openb_pod_list_default.csv") and r.random() < 0.5:
        a += ["--cluster", os.path.join(os.path.dirname(pick[0]), "openb_node_list_gpu_node.csv")]
    else:
        nodes = r.randrange(3, 80)
        a += ["--cluster", "%dx%d" % (nodes, r.choice((2, 4, 8, 8, 16))),
              "--set", "cluster.nodes_per_rack=%d" % r.randrange(1, 12)]
        if r.random() < 0.3:
            k = r.randrange(1, nodes)
            a += ["--set", "cluster.gpu_types=v100:%d,k80:%d" % (k, nodes - k),
                  "--set", "cluster.gpu_speeds=k80:0.4"]
    a += ["-p", r.choice(POLICIES), "-l", r.choice(PLACEMENTS), "-s", str(r.randrange(1, 1000)),
          "--set", "scheduler.duration_knowledge=" + r.choice(("oracle", "noisy", "none"))]
    if r.random() < 0.3:
        a += ["--set", "scheduler.backfill=true"]
    if r.random() < 0.3:
        a += ["--set", "dike.fairness_weight=%g" % r.choice((0, 0.3, 0.5, 0.77))]
    if r.random() < 0.3:
        a += ["--set", "faults.mtbf_s=%d" % r.choice((3600, 86400, 864000))]
    if r.random() < 0.6:  # the emulating mode
        if r.random() < 0.7:
            a += ["--set", "node_model.interference=%g" % r.choice((0.05, 0.2, 0.5))]
        if r.random() < 0.5:
            a += ["--set", "node_model.network=rack",
                  "--set", "cluster.rack_uplink_gbps=%d" % r.choice((50, 400))]
        if r.random() < 0.5:
            a += ["--set", "node_model.slowdown_mtbf_s=%d" % r.choice((3600, 86400))]
        a += ["--set", "scheduler.decision_latency_s=%g" % r.choice((0, 1, 7.5, 60))]
        if r.random() < 0.3:
            a += ["--set", "output.node_timeseries_s=%d" % r.choice((600, 3600))]
    if r.random() < 0.2:
        a += ["--set", "engine.window_actions=%d" % r.choice((1, 7, 100))]
    for choices in EXTREMES:
        if r.random() < 0.15:
            a += ["--set", r.choice(choices)]
    # drawn after everything above, so that the seeds of the first version keep their options and
    # gain these (2026-12-05, thirty-eighth session)
    if not pick:
        if r.random() < 0.5:
            a += ["--set", "workload.tenants=%d" % r.choice((1, 2, 7, 40)),
                  "--set", "workload.tenant_skew=%g" % r.choice((0, 0.5, 2))]
        if r.random() < 0.4:
            a += ["--set", "workload.duration_median_s=%d" % r.choice((60, 600, 20000)),
                  "--set", "workload.duration_sigma=%g" % r.choice((0, 0.5, 3))]
        if r.random() < 0.3:
            a += ["--set", "workload.gpu_mix=" + r.choice(("1:1", "8:1", "1:0.5,64:0.5", "3:1,5:1"))]
        if r.random() < 0.2:
            a += ["--set", "workload.duration_max_s=%d" % r.choice((1, 3600))]
        if r.random() < 0.3:
            a += ["--set", "tenants.weights=" + r.choice(("t0:3,t1:0.5", "t0:0.01"))]
    elif r.random() < 0.2:  # the recorded arrivals, scaled, instead of an offered load
        i = [k for k, x in enumerate(a) if x.startswith("workload.trace_load=")][0]
        a[i] = "workload.time_scale=%g" % r.choice((0.1, 3))
    if r.random() < 0.2:
        a += ["--set", "output.timeseries_interval_s=%g" % r.choice((1, 37.5, 86400))]
    if r.random() < 0.2:  # periodic checkpoints (by simulated time their cost grows with the
        # square of the span: docs/reliability.md, "Checkpoints by the wall clock")
        a += ["--set", r.choice(("run.checkpoint_wall_s=0.01", "run.checkpoint_wall_s=0.5",
                                 "run.checkpoint_every_s=864000"))]
    if r.random() < 0.2:
        a += ["--set", "engine.coordinator_owns_nodes=" + r.choice(("true", "false"))]
    if r.random() < 0.2:
        a += ["--set", "node_model.progress=" + r.choice(("nodes", "coordinator"))]
    if r.random() < 0.15:
        a += ["--set", "node_model.slowdown_duration_s=%d" % r.choice((1, 100000))]
    # a small bound on the time series in memory: refused at start-up, or the run ends with the
    # error where the samples pass it (drawn last, so that the earlier seeds keep their options;
    # 2026-12-06, forty-fourth session, after seed 1204 took 11 GB)
    if r.random() < 0.1:
        a += ["--set", "output.timeseries_max_gib=%g" % r.choice((0.0005, 0.01))]
    # many tenants (drawn last for the same reason; 2026-12-06, forty-sixth session, after drf
    # scanned every tenant at each start: docs/performance.md, "Many tenants")
    if not pick and r.random() < 0.1:
        a += ["--set", "workload.tenants=%d" % r.choice((300, 3000))]
    # the entitlements' treap for any number of tenants (drawn last for the same reason;
    # 2026-12-06, forty-seventh session: docs/performance.md, "Many tenants: the estimates' watch")
    if r.random() < 0.25:
        a += ["--set", "engine.entitle_tree_tenants=0"]
    # Dike's late pass (drawn last for the same reason; 2026-12-07, fifty-seventh session)
    if "dike" in a and r.random() < 0.5:
        a += ["--set", "dike.late_pass=true"]
    if "tenants.weights=t0:3,t1:0.5" in a and "workload.tenants=1" in a:
        a[a.index("tenants.weights=t0:3,t1:0.5")] = "tenants.weights=t0:3"
    return a


ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def mpirun(np, args, timeout, signal_after=None):
    """(exit status or None on a timeout, stderr, wall seconds, whether SIGUSR1 was sent) of
    `mpirun -np NP ARGS...`. With @p signal_after, SIGUSR1 goes to mpirun (which forwards it to
    the ranks) after that many seconds, unless it has ended. mpirun gets its own session, so that a
    timeout ends the ranks too: SIGKILL to mpirun alone leaves them running, and they slow the
    runs after it."""
    cmd = ["mpirun", "-np", str(np), "--oversubscribe"] + args
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV,
                         start_new_session=True)
    sent, err = False, b""
    try:
        if signal_after is not None:
            try:
                _, err = p.communicate(timeout=signal_after)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGUSR1)
                sent = True
        if p.returncode is None:
            _, err = p.communicate(timeout=max(0.0, timeout - (time.time() - t0)))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "", time.time() - t0, sent
    return p.returncode, err.decode(errors="replace"), time.time() - t0, sent


def run(emu, np, args, out, timeout):
    """(exit status, stderr, wall seconds) of one run; status None on a timeout."""
    return mpirun(np, [emu, "run", "-q"] + args + ["-o", out], timeout)[:3]


def objects(path):
    p = subprocess.run(["h5ls", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return [ln.split()[0] for ln in p.stdout.decode().splitlines() if ln.split()]


def check(seed, args, emu, ranks, timeout, d, stop=0, report=False, replay=False):
    """'ok', 'bad input: MESSAGE' or what failed."""
    runs = {}
    for np in ranks:
        out = os.path.join(d, "out-%d.h5" % np)
        runs[np] = run(emu, np, args, out, timeout) + (out,)
        if runs[np][0] is None:  # the other rank counts would time out too
            break
    statuses = {np: rc for np, (rc, _, _, _) in runs.items()}
    if any(rc is None for rc in statuses.values()):
        return "timeout on %s ranks" % [np for np, rc in statuses.items() if rc is None]
    if set(statuses.values()) == {2}:
        lines = [ln for ln in runs[ranks[0]][1].splitlines() if ln.startswith("dike-emu:")
                 and not INFO.search(ln)]
        return ("bad input: " + lines[0][10:90]) if len(lines) == 1 else \
            "status 2 with %d dike-emu lines" % len(lines)
    if set(statuses.values()) == {0, 2}:
        # /node_timeseries is bounded per rank (docs/reliability.md): fewer ranks hold more nodes
        # each, so the run may be refused on them alone, with that message, and fit on more
        lo = max(np for np, rc in statuses.items() if rc == 2)
        hi = min(np for np, rc in statuses.items() if rc == 0)
        if lo < hi and all("per-node samples of a rank's nodes" in runs[np][1]
                           for np, rc in statuses.items() if rc == 2):
            return "bad input: on %s ranks only, the per-rank bound of /node_timeseries" % \
                sorted(np for np, rc in statuses.items() if rc == 2)
    if set(statuses.values()) != {0}:
        return "exit statuses %s" % statuses
    ref = runs[ranks[0]][3]
    for np in ranks[1:]:
        what = differs(ref, runs[np][3])
        if what:
            return "/%s differs on %d ranks" % (what, np)
    if replay:
        out = os.path.join(d, "replay.h5")
        rc, err, _ = run(emu, 1, ["--config-from", ref], out, timeout)
        if rc != 0:
            return "replay (--config-from) exits %s: %s" % (rc, err.strip()[-300:])
        what = differs(ref, out)
        if what:
            return "replay (--config-from): /%s differs" % what
    if report:
        rep = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis", "report.py")
        p = subprocess.run(["/usr/bin/python3", rep, ref, "-o", os.path.join(d, "report"),
                            "--formats", "png"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            return "report.py exits %d: %s" % (p.returncode,
                                                p.stderr.decode(errors="replace").strip()[-300:])
        p = subprocess.run([emu, "export", ref, "--jobs", os.path.join(d, "jobs.csv"), "--summary",
                            os.path.join(d, "summary.json")], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            return "export exits %d: %s" % (p.returncode, p.stderr.decode(errors="replace").strip()[-300:])
    for k in range(stop):
        what = stop_and_resume(seed, args, emu, ranks, timeout, d, ref, k)
        if what != "ok" or k == stop - 1:
            return what
    return "ok"


def differs(ref, other):
    """The first compared object of @p ref that @p other does not have identically, or None.
    h5diff exits 0 when the two have other shapes or types ("not comparable"), so with -c it
    names those and its text is read as well (as tests/lib/testlib.sh's h5_same does)."""
    for o in objects(ref):
        if o not in COMPARED:
            continue
        p = subprocess.run(["h5diff", "-q", "-c", ref, other, "/" + o, "/" + o],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0 or b"not comparable" in p.stdout.lower():
            return o
    return None


def stop_and_resume(seed, args, emu, ranks, timeout, d, ref, k=0):
    """Stop the run at a random simulated time before its last finish on one rank count, resume it
    on another (each drawn from @p ranks), and compare with the uninterrupted run @p ref. Stop @p k
    of a configuration draws from its own stream (stop 0 is the one every earlier session ran)."""
    import h5py  # Debian's python3-h5py; only --stop needs it
    with h5py.File(ref, "r") as f:
        fin = [t for t in f["jobs"]["finish_time"] if t > 0]
    if not fin:
        return "ok (nothing to stop)"
    r = random.Random(seed * 1000003 + 7 + 7919 * k)
    # In the emulating mode a stop inside the last window [T, T + L) legitimately lets the run end
    # with its last completion: draw it before that window (L = the decision latency).
    lat = [float(x.split("=", 1)[1]) for x in args if x.startswith("scheduler.decision_latency_s=")]
    t_stop = round(r.uniform(0.02, 0.98) * (max(fin) - (lat[-1] if lat else 0) - 1), 3)
    if t_stop <= 0:
        return "ok (nothing to stop)"
    a, b = r.choice(ranks), r.choice(ranks)
    out = os.path.join(d, "stop-%d.h5" % a if k == 0 else "stop%d-%d.h5" % (k, a))
    rc, err, _ = run(emu, a, args + ["--set", "engine.inject_stop_s=%r" % t_stop], out, timeout)
    ckpt = out + ".ckpt.h5"
    where = "stopped at %r s on %d ranks" % (t_stop, a)
    if rc is None:
        return where + ": timeout"
    if rc != 4 or os.path.exists(out) or not os.path.exists(ckpt):
        return where + ": exit %s, output %s, checkpoint %s" % (
            rc, os.path.exists(out), os.path.exists(ckpt))
    res = os.path.join(d, "resumed.h5" if k == 0 else "resumed%d.h5" % k)
    rc, err, _, _ = mpirun(b, [emu, "resume", ckpt, "-q", "--out", res, "--checkpoint",
                               res[:-3] + ".ckpt.h5"], timeout)
    if rc is None:
        return where + ", resume on %d ranks: timeout" % b
    if rc != 0:
        return where + ", resume on %d ranks: exit %d: %s" % (b, rc, err.strip()[:200])
    what = differs(ref, res)
    return where + ", resumed on %d: /%s differs" % (b, what) if what else "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--emu", default="build/dike-emu")
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--keep", help="keep each configuration's outputs in DIR/SEED")
    ap.add_argument("--replay", action="store_true",
                    help="also rerun each run that passed from the configuration stored in its "
                         "output (run --config-from, 1 rank) and require the same output")
    ap.add_argument("--report", action="store_true",
                    help="also turn the first rank count's output of each run that passed into a "
                         "report (analysis/report.py, png figures) and require it to succeed")
    ap.add_argument("--stop", action="store_true",
                    help="also stop each run that passed at a random time on one of the rank counts, "
                         "resume it on one of them, and compare with the uninterrupted run")
    ap.add_argument("--stops", type=int, default=1, metavar="K",
                    help="with --stop: K stops at different random times, each resumed and compared "
                         "(default 1; the first is the one --stop alone makes)")
    o = ap.parse_args()
    ranks = [int(x) for x in o.ranks.split(",")]
    tdir = os.path.join(o.shared, "traces")
    traces = [(os.path.join(tdir, t), n) for t, n in TRACES if os.path.exists(os.path.join(tdir, t))]
    if not traces:
        print("random_configs: no traces under %s: synthetic workloads only" % tdir)
    bad = 0
    for seed in range(o.first, o.first + o.count):
        args = draw(seed, traces)
        d = os.path.join(o.keep, str(seed)) if o.keep else tempfile.mkdtemp(prefix="dike-rc-")
        os.makedirs(d, exist_ok=True)
        t0 = time.time()
        verdict = check(seed, args, o.emu, ranks, o.timeout, d, o.stops if o.stop else 0, o.report,
                        o.replay)
        if not o.keep:
            shutil.rmtree(d, ignore_errors=True)
        ok = verdict in ("ok", "ok (nothing to stop)") or verdict.startswith("bad input: ")
        bad += not ok
        print("%5d %-4s %-40s %6.1f s  %s" % (seed, "ok" if ok else "FAIL", verdict, time.time() - t0,
                                              " ".join(args)), flush=True)
    print("random_configs: %d of %d configurations failed" % (bad, o.count))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
