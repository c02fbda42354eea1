#!/usr/bin/python3
"""Check Dike on configurations outside the shipped grid (issue 12: "held-out configurations").

    /usr/bin/python3 analysis/held_out.py [--emu build/dike-emu] [--traces ../shared/traces] [--out DIR]
                                          [--sample N [--seed S]]

Seven (trace window, load, cluster size) points that experiments/trace-comparison.ini does not
hold, each run with every baseline and with Dike at w = 0, 0.5 and 1, under oracle and noisy
duration knowledge (--modes adds `none` or picks one; two processes at a time; about 5 minutes on
2 cores). Prints per point and
mode: whether a baseline dominates Dike at its default knob, w = 1 (0.5 before version 1.1;
lower average JCT, lower unfair fraction and
higher Jain's index at once), whether the knob is monotone (unfair fraction at w = 1 no higher
than at w = 0, average JCT at w = 0 no higher than at w = 1), and Dike's numbers against the best
baseline of each metric. Where the knob fails, the line ends with the side and the margin (w = 0
slower by so many percent of w = 1's average JCT; w = 1's unfair fraction higher by so much) and
the job width and length classes that carry most of that difference (knobcause.py), and
the last line tallies the failures by side, so that near ties can be told from real failures.
Runs already in --out are reused.

--sample N replaces the seven points with N drawn at random (seeded by --seed): one of the four
multi-tenant traces of the grid (or two ElasticFlow clusters merged), a random window of its jobs
(at least 5,000 of them, or the whole trace), an offered load between 0.7 and 1.3, and 24 to 128
nodes of 8 GPUs. The same seed draws the same points, so a failure can be rerun. --loads LO:HI and
--nodes LO:HI widen or move those two ranges (a draw outside the ranges every earlier draw used:
`--loads 0.4:1.8 --nodes 12:256`). A drawn cluster smaller than its window's largest job (asked of
`dike-emu trace-info`; from 19 nodes down on Gen-Parallel Helios, whose largest job has 160 GPUs)
gets the fewest nodes that fit it, and a line says so; draws of 24 nodes and up never need it. A
run that fails stops the script with the emulator's message for each, and nothing is checked.

--knob-only runs Dike alone, at w = 0 and w = 1, and prints only the knob's check: 39 s for 30
points against about 3 minutes for a full draw on 2 cores (both measured 2026-12-02; the
baselines on the large traces take most of a full draw), for trying a change to Dike on many
points. A draw's baselines are not needed for that check, and a later run
without --knob-only on the same --out reuses these runs.

--noise-seeds K asks whether the knob's failures under noisy durations are chance: Dike at w = 0
and 1 under `noisy` with run.seed 1..K (the seed of the estimates' errors; seed 1 is the runs
above), and per point how many seeds fail the knob, w = 0's mean average-JCT difference to w = 1,
and whether that mean is above zero by more than two standard errors ("systematic").

--perturb K asks the same for every mode (oracle and `none` have no seed to vary): Dike at w = 0
and 1 with scheduler.round_s, the period at which the scheduler looks again when nothing happens,
at the first K of 300 (the default: the draw's own runs), 293, 307, 281, 319, 271, 331, 263. No
value of it is better than another, so a knob failure that comes and goes with it is the
schedule's sensitivity to when decisions fall, not a property of the knob. Per point and mode: how
many values fail, the mean differences (w = 0 minus w = 1 average JCT; w = 1 minus w = 0 unfair
fraction), and which side is systematic (mean above zero by more than two standard errors).

--against DIR (with a full draw or --knob-only) then compares Dike's runs with those of the same
draw in DIR, run by another build: per mode and knob value, the median, lowest and highest change
of average JCT, the median change of the unfair fraction, and preemptions per job before and
after. To try a change to Dike: run a draw with the current build into DIR, the same draw with the
changed build (`--emu`) into another folder with `--against DIR`.

--dike-set KEY=VALUE (repeatable) adds `--set KEY=VALUE` to every Dike run and to no baseline's: to
try an option of Dike on a draw, e.g. `--dike-set dike.late_pass=true --knob-only`. Give it a new
--out: runs found there are reused whatever they were run with.

--baselines LIST runs and checks only those baselines (a comma-separated subset of fifo, sjf,
srtf, las, themis, gandiva-fair and drf; default all seven) besides Dike at its three knob values:
to check Dike against a baseline that changed without running the others again. The summary line
then says which baselines it checked; "dominated" and the best baselines name no other.
"""
import argparse
import math
import os
import random
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import h5py

import dikeio  # DEFAULT_KNOB
import knobcause


def points(t):
    ef = os.path.join(t, "elasticflow-traces")
    titan = os.path.join(t, "TitanSched", "philly.csv")
    gp = os.path.join(t, "Gen-Parallel-Workloads")
    return {
        "titan-last-20k-512gpus": ["-t", titan, "--set", "workload.first_job=62247", "--set", "cluster.nodes=64"],
        "titan-load0.9-768gpus": ["-t", titan, "--set", "workload.trace_load=0.9", "--set", "cluster.nodes=96"],
        "titan-days30-60-256gpus": ["-t", titan, "--set", "workload.start_s=2592000", "--set", "workload.end_s=5184000",
                                    "--set", "cluster.nodes=32"],
        "helios-load1.1-384gpus": ["-t", os.path.join(gp, "helios_data_training.csv"), "--set", "workload.trace_load=1.1",
                                   "--set", "cluster.nodes=48"],
        "gpphilly-load0.9-640gpus": ["-t", os.path.join(gp, "philly_data_training.csv"), "--set", "workload.trace_load=0.9",
                                     "--set", "cluster.nodes=80"],
        "ef04+07-512gpus": ["-t", os.path.join(ef, "cluster04.csv") + "," + os.path.join(ef, "cluster07.csv"),
                            "--set", "cluster.nodes=64"],
        "ef-load1.1-768gpus": ["-t", ef, "--set", "workload.trace_load=1.1", "--set", "cluster.nodes=96"],
    }


def sample(t, n, seed, loads=(0.7, 1.3), nodes_range=(24, 128)):
    """n random (trace, window, load, size) points; the draw depends only on seed and the two
    ranges (offered load, nodes of 8 GPUs; the defaults are those of every draw before --loads and
    --nodes existed, so their seeds draw the same points)."""
    ef = os.path.join(t, "elasticflow-traces")
    gp = os.path.join(t, "Gen-Parallel-Workloads")
    traces = [("titan", os.path.join(t, "TitanSched", "philly.csv"), 82247),
              ("helios", os.path.join(gp, "helios_data_training.csv"), 10796),
              ("gpphilly", os.path.join(gp, "philly_data_training.csv"), 15000),
              ("ef", ef, None), ("efpair", None, None)]
    rng = random.Random(seed)
    pts = {}
    while len(pts) < n:
        tag, path, njobs = rng.choice(traces)
        args = []
        if tag == "efpair":
            a, b = rng.sample([2, 4, 7, 8, 9], 2)
            path = ",".join(os.path.join(ef, "cluster%02d.csv" % c) for c in (a, b))
            tag = "ef%02d+%02d" % (a, b)
        elif njobs and rng.random() < 0.7:
            size = rng.randint(5000, min(njobs, 30000))
            first = rng.randint(0, njobs - size)
            args += ["--set", "workload.first_job=%d" % first, "--set", "workload.last_job=%d" % (first + size - 1)]
            tag += "-jobs%d-%d" % (first, first + size - 1)
        load = round(rng.uniform(*loads), 2)
        nodes = rng.randint(*nodes_range)
        args = ["-t", path] + args + ["--set", "workload.trace_load=%g" % load, "--set", "cluster.nodes=%d" % nodes]
        pts["%s-load%g-%dgpus" % (tag, load, 8 * nodes)] = args
    return pts


def largest_job(emu, args):
    """The most GPUs a job of the point's window asks for (`dike-emu trace-info` on the window, on
    a cluster of 100,000 nodes, which every job fits), or None if trace-info says nothing about
    it."""
    sets = []  # a drawn point is ["-t", PATH] and "--set KEY=VALUE" pairs
    for k in range(2, len(args) - 1, 2):
        if not args[k + 1].startswith("cluster.nodes="):
            sets += args[k:k + 2]
    p = subprocess.run([emu, "trace-info", args[1]] + sets + ["--set", "cluster.nodes=100000"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    m = re.search(r"GPUs per job\s+mean [0-9.]+, max ([0-9]+)", p.stdout.decode(errors="replace"))
    return int(m.group(1)) if m else None


def fit_clusters(emu, pts):
    """A drawn cluster smaller than its window's largest job cannot run it (dike-emu stops at
    that job): such a point gets the fewest nodes of 8 GPUs that fit the job, which is above the
    --nodes range, and one line says so. Draws within the default range (24 nodes and up) always
    fit, so their points do not change. Returns the points, renamed where changed."""
    out = {}
    for c, args in pts.items():
        i = next(k for k, x in enumerate(args) if x.startswith("cluster.nodes="))
        nodes, big = int(args[i].split("=", 1)[1]), largest_job(emu, args)
        if big is not None and big > 8 * nodes:
            need = math.ceil(big / 8)
            args = args[:i] + ["cluster.nodes=%d" % need] + args[i + 1:]
            c2 = re.sub(r"-[0-9]+gpus$", "-%dgpus" % (8 * need), c)
            print("held_out: %s: its largest job asks for %d GPUs; %d nodes raised to %d (%s)" % (c, big, nodes, need, c2))
            c = c2
        out[c] = args
    return out


COMMON = ["--set", "cluster.gpus_per_node=8", "--set", "cluster.nodes_per_rack=16", "--set", "scheduler.placement=pack",
          "--set", "scheduler.backfill=true", "--set", "output.progress_interval_s=0", "--quiet"]
MODES = ("oracle", "noisy")
BASELINES = ("fifo", "sjf", "srtf", "las", "themis", "gandiva-fair", "drf")
DURATIONS = ("sjf", "srtf", "themis")  # the baselines that use durations: run in every mode
DEFAULT_KNOB = "%g" % dikeio.DEFAULT_KNOB  # the point the dominance check judges, as the runs are named


def run_cmd(emu, args, policy, mode, out, w=None, seed=1, round_s=None, dike_set=()):
    """The command line of one run: point @p args, @p policy in duration-knowledge @p mode, to
    @p out; Dike's knob @p w, the run seed and scheduler.round_s when they are not the draw's own;
    each KEY=VALUE of @p dike_set (--dike-set) on Dike's runs only."""
    cmd = [emu, "run"] + list(args) + COMMON + ["-p", policy, "--set", "scheduler.duration_knowledge=" + mode,
                                                "--out", out]
    if w:
        cmd += ["--set", "dike.fairness_weight=" + w]
    if seed != 1:
        cmd += ["--seed", str(seed)]
    if round_s is not None:
        cmd += ["--set", "scheduler.round_s=%d" % round_s]
    if policy == "dike":
        for kv in dike_set:
            cmd += ["--set", kv]
    return cmd


def parse_modes(text):
    """--modes: a comma-separated list of duration-knowledge modes, in the order given; None if any
    is not oracle, noisy or none, or the list is empty."""
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    if not modes or any(m not in ("oracle", "noisy", "none") for m in modes) or len(set(modes)) != len(modes):
        return None
    return modes


def parse_baselines(text):
    """--baselines: a comma-separated subset of BASELINES, kept in BASELINES' order; None if any is
    not a baseline, is repeated, or the list is empty."""
    names = [b.strip() for b in text.split(",") if b.strip()]
    if not names or any(b not in BASELINES for b in names) or len(set(names)) != len(names):
        return None
    return tuple(b for b in BASELINES if b in names)


def parse_range(text, kind):
    """--loads / --nodes: "LO:HI" as a (LO, HI) pair of @p kind; None unless LO <= HI."""
    try:
        lo, hi = (kind(x) for x in text.split(":"))
    except ValueError:
        return None
    return (lo, hi) if lo <= hi else None


def runs(pts, knob_only=False, modes=MODES, baselines=BASELINES):
    if knob_only:
        for c in pts:
            for k in modes:
                for w in ("0", "1"):
                    yield c, "dike", k, w
        return
    for c in pts:
        for p in baselines:
            if p not in DURATIONS:
                yield c, p, "oracle", None
        for k in modes:
            for p in baselines:
                if p in DURATIONS:
                    yield c, p, k, None
            for w in ("0", "0.5", "1"):
                yield c, "dike", k, w


def noise_runs(pts, k):
    """Dike at w = 0 and 1 under noisy durations, run.seed 1..k (seed 1: the draw's own runs)."""
    for c in pts:
        for rs in range(1, k + 1):
            for w in ("0", "1"):
                yield c, "dike", "noisy", w, rs


# --perturb's scheduler.round_s values, s; the first is dike-emu's default, so its runs are the draw's own
ROUNDS = (300, 293, 307, 281, 319, 271, 331, 263)


def perturb_runs(pts, k, modes):
    """Dike at w = 0 and 1 in every mode with scheduler.round_s = ROUNDS[0..k-1] (300: the draw's
    own runs)."""
    for c in pts:
        for m in modes:
            for r in ROUNDS[:k]:
                for w in ("0", "1"):
                    yield c, "dike", m, w, 1, r


def systematic(diffs):
    """More than two standard errors above zero: the mean of per-seed differences (w = 0 minus
    w = 1, average JCT) says w = 0 is slower beyond the seeds' spread. Needs two seeds or more."""
    n = len(diffs)
    m = sum(diffs) / n
    sd = (sum((x - m) ** 2 for x in diffs) / (n - 1)) ** 0.5
    return m > 2 * sd / n ** 0.5


def knob_monotone(d0, d1):
    """The issue's knob check from (avg JCT, unfair fraction, ...) at w = 0 and w = 1: w = 1 no less
    fair, w = 0 no slower."""
    return knob_failure(d0, d1) == (None, None)


def knob_failure(d0, d1):
    """Why the knob check fails for (avg JCT, unfair fraction, ...) at w = 0 and w = 1, and by how
    much: (JCT margin in percent of w = 1's average JCT or None, unfair margin or None). Both None
    when the check passes."""
    jct = 100 * (d0[0] / d1[0] - 1) if d0[0] > d1[0] else None
    unf = d1[1] - d0[1] if d1[1] > d0[1] else None
    return jct, unf


def knob_note(d0, d1, files=None, carriers=None):
    """The failure's side and margin, for a report line ('' when the knob holds); with @p files, the
    outputs at w = 0 and w = 1, also which jobs carry each failing side (knobcause.py), and with
    @p carriers (a dict), each side's largest width and length class counted in it (carrier_text)."""
    jct, unf = knob_failure(d0, d1)
    parts = []
    jobs = None
    for side, margin, text in (("jct", jct, "JCT side: w=0 slower by %.3f%%"),
                               ("unfair", unf, "unfair side: w=1 higher by %.4f")):
        if margin is None:
            continue
        parts.append(text % margin)
        if files:
            if jobs is None:
                jobs = [h5py.File(f, "r")["jobs"][:] for f in files]
            p = knobcause.parts(jobs[0], jobs[1], side)
            carried = knobcause.phrase(p, side)
            if carried:
                parts[-1] += " (%s)" % carried
                if carriers is not None:
                    for key in ("width", "length"):
                        top = max(p[key], key=lambda x: x[2])[0]
                        c = carriers.setdefault((side, key), {})
                        c[top] = c.get(top, 0) + 1
    return " | knob: " + "; ".join(parts) if parts else ""


def carrier_text(carriers):
    """The tally knob_note kept: per side, how many failures each class carries most of, by length
    and by width ('' if none was counted)."""
    out = []
    for side, name_ in (("jct", "JCT side"), ("unfair", "unfair side")):
        by = []
        for key in ("length", "width"):
            c = carriers.get((side, key))
            if c:
                by.append("by %s %s" % (key, ", ".join("%s %d" % kv for kv in
                                                       sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))))
        if by:
            out.append("%s: %s" % (name_, "; ".join(by)))
    return "largest parts of the failures: " + " | ".join(out) if out else ""


def knob_tally(pairs):
    """The knob's failures over @p pairs of (w = 0, w = 1) summaries: how many fail on the JCT side,
    their median and largest margin in percent, how many on the unfair side, and their largest
    margin (a point can fail on both sides)."""
    f = [knob_failure(a, b) for a, b in pairs]
    jct = [j for j, _ in f if j is not None]
    unf = [u for _, u in f if u is not None]
    return (len(jct), statistics.median(jct) if jct else 0.0, max(jct, default=0.0),
            len(unf), max(unf, default=0.0))


def tally_text(pairs):
    n, med, top, nu, topu = knob_tally(pairs)
    return ("knob failures: %d on the JCT side (median %.3f%%, largest %.3f%%), %d on the unfair side "
            "(largest +%.4f)" % (n, med, top, nu, topu))


def against(pairs):
    """Dike's change from an older build's runs to this build's on the same points: @p pairs is a
    list of (old, new) summaries (avg JCT, unfair fraction, ...). Returns the median, lowest and
    highest change of average JCT in percent, the median change of the unfair fraction, and the
    mean preemptions per job of the old and the new runs."""
    d = [100 * (n[0] / o[0] - 1) for o, n in pairs]
    return (statistics.median(d), min(d), max(d), statistics.median(n[1] - o[1] for o, n in pairs),
            statistics.mean(o[3] for o, n in pairs), statistics.mean(n[3] for o, n in pairs))


def name(p, k, w, rs=1, rnd=ROUNDS[0]):
    return "%s-%s%s%s%s" % (p, k, "-w" + w if w else "", "-rs%d" % rs if rs != 1 else "",
                            "-round%d" % rnd if rnd != ROUNDS[0] else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--emu", default=os.path.join(here, "..", "build", "dike-emu"))
    ap.add_argument("--traces", default=os.path.join(here, "..", "..", "shared", "traces"))
    ap.add_argument("--out", default="results/held-out")
    ap.add_argument("--sample", type=int, default=0, help="draw this many random points instead of the seven")
    ap.add_argument("--seed", type=int, default=1, help="seed of --sample's draw")
    ap.add_argument("--loads", default="0.7:1.3", metavar="LO:HI", help="--sample's range of offered loads")
    ap.add_argument("--nodes", default="24:128", metavar="LO:HI", help="--sample's range of cluster sizes, in nodes of 8 GPUs")
    ap.add_argument("--knob-only", action="store_true", help="run Dike at w = 0 and 1 only; check only the knob")
    ap.add_argument("--noise-seeds", type=int, default=0, metavar="K",
                    help="Dike at w = 0 and 1 under noisy durations with run.seed 1..K: are the knob's failures chance?")
    ap.add_argument("--perturb", type=int, default=0, metavar="K",
                    help="Dike at w = 0 and 1 in every mode with K values of scheduler.round_s (300 first): "
                         "which knob failures are systematic?")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="duration-knowledge modes, comma-separated (default oracle,noisy; all three: oracle,noisy,none)")
    ap.add_argument("--baselines", default=",".join(BASELINES),
                    help="the baselines to run and check Dike against, comma-separated (default: all seven); "
                         "e.g. only the one a change touched, when the others' runs of the same build are known")
    ap.add_argument("--dike-set", action="append", default=[], metavar="KEY=VALUE",
                    help="add --set KEY=VALUE to every Dike run (not the baselines'), e.g. dike.late_pass=true; "
                         "repeatable. Runs already in --out are reused whatever they were run with: give a new --out")
    ap.add_argument("--against", metavar="DIR",
                    help="after the checks, Dike's change from the runs in DIR (the same draw run with another build)")
    a = ap.parse_args()
    modes = parse_modes(a.modes)
    if modes is None:
        sys.exit("held_out: --modes '%s': list oracle, noisy and/or none, comma-separated, each once" % a.modes)
    baselines = parse_baselines(a.baselines)
    if baselines is None:
        sys.exit("held_out: --baselines '%s': list some of %s, comma-separated, each once" %
                 (a.baselines, ", ".join(BASELINES)))
    for kv in a.dike_set:
        if "=" not in kv or kv.startswith("="):
            sys.exit("held_out: --dike-set '%s': give KEY=VALUE, a key of the configuration (dike-emu config-reference)" % kv)
    if not os.path.isdir(a.traces):
        sys.exit("held_out: no traces at %s (--traces)" % a.traces)
    loads, nodes = parse_range(a.loads, float), parse_range(a.nodes, int)
    if loads is None or loads[0] <= 0:
        sys.exit("held_out: --loads '%s': give LO:HI, two offered loads with 0 < LO <= HI" % a.loads)
    if nodes is None or nodes[0] < 1:
        sys.exit("held_out: --nodes '%s': give LO:HI, two node counts with 1 <= LO <= HI" % a.nodes)
    pts = sample(a.traces, a.sample, a.seed, loads, nodes) if a.sample > 0 else points(a.traces)
    if a.sample > 0:
        pts = fit_clusters(a.emu, pts)

    if a.noise_seeds == 1 or a.noise_seeds < 0:
        sys.exit("held_out: --noise-seeds needs 2 seeds or more")
    if a.perturb and not 2 <= a.perturb <= len(ROUNDS):
        sys.exit("held_out: --perturb needs 2 to %d values" % len(ROUNDS))
    if a.perturb and a.noise_seeds:
        sys.exit("held_out: --perturb and --noise-seeds are two separate checks; give one")

    def one(r):
        c, p, k, w, rs, rnd = r + (1, ROUNDS[0])[len(r) - 4:]
        out = os.path.join(a.out, c, name(p, k, w, rs, rnd) + ".h5")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if os.path.exists(out):
            return
        cmd = run_cmd(a.emu, pts[c], p, k, out, w, rs, rnd if rnd != ROUNDS[0] else None, a.dike_set)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode:
            msg = p.stderr.decode(errors="replace").strip().splitlines()
            return "%s, %s: dike-emu exited %d: %s" % (c, os.path.basename(out), p.returncode, msg[-1] if msg else "")
        return None

    todo = (list(noise_runs(pts, a.noise_seeds)) if a.noise_seeds else
            list(perturb_runs(pts, a.perturb, modes)) if a.perturb else list(runs(pts, a.knob_only, modes, baselines)))
    with ThreadPoolExecutor(2) as ex:
        failed = [f for f in ex.map(one, todo) if f]
    if failed:
        for f in failed:
            print("held_out: " + f, file=sys.stderr)
        sys.exit("held_out: %d of %d runs failed (above); nothing checked" % (len(failed), len(todo)))

    def ends(c, k):
        """Dike's outputs at w = 0 and w = 1 for point @p c in mode @p k (knob_note)."""
        return [os.path.join(a.out, c, name("dike", k, w) + ".h5") for w in ("0", "1")]

    def summary(c, n, d=a.out):
        s = h5py.File(os.path.join(d, c, n + ".h5"), "r")["/summary"].attrs
        return s["avg_jct"], s["unfair_fraction"], s["jain"], s["preemptions"] / s["jobs"]

    if a.noise_seeds:
        K = a.noise_seeds
        pairs = fails = unfair_side = nsys = 0
        by = [0] * (K + 1)
        for c in pts:
            d = [(summary(c, name("dike", "noisy", "0", rs)), summary(c, name("dike", "noisy", "1", rs)))
                 for rs in range(1, K + 1)]
            diffs = [100 * (x[0] / y[0] - 1) for x, y in d]
            nf = sum(not knob_monotone(x, y) for x, y in d)
            unfair_side += sum(y[1] > x[1] for x, y in d)
            sysf = systematic(diffs)
            pairs += K
            fails += nf
            by[nf] += 1
            nsys += sysf
            print("%-42s noisy  knob fails %d of %d seeds; w=0 vs w=1 avg JCT %+.3f%% (seeds: %s)%s" %
                  (c, nf, K, sum(diffs) / K, " ".join("%+.2f" % x for x in diffs), "  SYSTEMATIC" if sysf else ""))
        print("%d points x %d noise seeds: knob fails %d of %d (%d on the unfair side); points by failing seeds 0..%d: %s; "
              "systematic (w = 0 slower by more than 2 standard errors): %d" %
              (len(pts), K, fails, pairs, unfair_side, K, " ".join(map(str, by)), nsys))
        return 0

    if a.perturb:
        perturb_report(pts, modes, a.perturb, summary)
        return 0

    carriers = {}  # knob_note's tally of the classes that carry the knob's failures

    def carriers_line():
        text = carrier_text(carriers)
        if text:
            print(text)

    if a.knob_only:
        fails = {k: 0 for k in modes}
        pairs = []
        for c in pts:
            for k in modes:
                d0, d1 = (summary(c, name("dike", k, w)) for w in ("0", "1"))
                mono = knob_monotone(d0, d1)
                fails[k] += not mono
                pairs.append((d0, d1))
                print("%-42s %-6s knob monotone: %-3s | w=0: %.1f s, unfair %.4f, %.2f preemptions/job; "
                      "w=1: %.1f s, unfair %.4f, %.2f preemptions/job%s" %
                      (c, k, "yes" if mono else "NO", d0[0], d0[1], d0[3], d1[0], d1[1], d1[3],
                       knob_note(d0, d1, ends(c, k), carriers)))
        print("%d points: knob not monotone: %s; %s" % (len(pts), ", ".join("%s %d" % kv for kv in fails.items()),
                                                       tally_text(pairs)))
        carriers_line()
        compare_with(a, pts, ("0", "1"), summary, modes)
        return 0

    bad = 0
    fails = {"dominated": 0, "knob": 0, "over 2 preemptions/job": 0}
    pairs = []
    for c in pts:
        for k in modes:
            base = {p: summary(c, name(p, k if p in DURATIONS else "oracle", None)) for p in baselines}
            d = {w: summary(c, name("dike", k, w)) for w in ("0", "0.5", "1")}
            dk = d[DEFAULT_KNOB]
            dom = [p for p, v in base.items() if v[0] < dk[0] and v[1] < dk[1] and v[2] > dk[2]]
            mono = knob_monotone(d["0"], d["1"])
            bj = min(base, key=lambda p: base[p][0])
            bu = min(base, key=lambda p: base[p][1])
            bad += bool(dom) + (not mono)
            fails["dominated"] += bool(dom)
            fails["knob"] += not mono
            fails["over 2 preemptions/job"] += dk[3] > 2
            pairs.append((d["0"], d["1"]))
            print("%-26s %-6s dominated by: %-8s knob monotone: %-3s | dike w=%s: avg JCT %.2f h (%+.0f%% vs %s), "
                  "unfair %.4f (best baseline %.4f, %s), %.2f preemptions/job | w=0: %.2f h, %.4f; w=0.5: %.2f h, "
                  "%.4f%s" %
                  (c, k, ",".join(dom) or "none", "yes" if mono else "NO", DEFAULT_KNOB, dk[0] / 3600,
                   100 * (dk[0] / base[bj][0] - 1), bj, dk[1], base[bu][1], bu, dk[3], d["0"][0] / 3600,
                   d["0"][1], d["0.5"][0] / 3600, d["0.5"][1], knob_note(d["0"], d["1"], ends(c, k), carriers)))
    print("%d points x %d modes: %s; %s" % (len(pts), len(modes), ", ".join("%s %d" % kv for kv in fails.items()),
                                           tally_text(pairs)))
    if baselines != BASELINES:
        print("checked against %s only (--baselines): \"dominated\" and the best baselines name no other" %
              ", ".join(baselines))
    carriers_line()
    compare_with(a, pts, ("0", "0.5", "1"), summary, modes)
    return 0


def perturb_verdict(d):
    """@p d: (w = 0, w = 1) summaries, one pair per round_s value. Returns the failing values, the
    mean JCT difference (w = 0 minus w = 1, percent of w = 1), the mean unfair difference (w = 1
    minus w = 0), and the systematic side: "JCT", "unfair", "both" or "" (mean above zero by more
    than two standard errors of the values)."""
    jd = [100 * (x[0] / y[0] - 1) for x, y in d]
    ud = [y[1] - x[1] for x, y in d]
    nf = sum(not knob_monotone(x, y) for x, y in d)
    side = [n for n, v in (("JCT", jd), ("unfair", ud)) if systematic(v)]
    return nf, sum(jd) / len(jd), sum(ud) / len(ud), "both" if len(side) == 2 else "".join(side)


def perturb_report(pts, modes, k, summary):
    """--perturb K: per point and mode with a failure, its pattern over the round_s values and its
    verdict; then the totals, with the failures at the default round_s (the draw's own check) and
    how many of those are systematic."""
    rounds = ROUNDS[:k]
    fails = pairs = own_fails = own_sys = 0
    sys_by = {"JCT": 0, "unfair": 0, "both": 0}
    for c in pts:
        for m in modes:
            d = [(summary(c, name("dike", m, "0", 1, r)), summary(c, name("dike", m, "1", 1, r))) for r in rounds]
            nf, jm, um, side = perturb_verdict(d)
            pairs += k
            fails += nf
            own = not knob_monotone(*d[0])
            own_fails += own
            if side:
                sys_by[side] += 1
                own_sys += own
            if nf:
                print("%-42s %-6s knob fails %d of %d round_s values (%s); w=0 vs w=1 avg JCT %+.3f%%, unfair "
                      "w=1 - w=0 %+.4f%s" %
                      (c, m, nf, k, "".join("x" if not knob_monotone(x, y) else "." for x, y in d), jm, um,
                       "  SYSTEMATIC (%s)" % side if side else ""))
    print("%d points x %d modes x %d round_s values (%s s): knob fails %d of %d; at round_s = %d %d, of them "
          "systematic %d; systematic in all: %d (JCT side %d, unfair side %d, both %d)" %
          (len(pts), len(modes), k, ", ".join(map(str, rounds)), fails, pairs, rounds[0], own_fails, own_sys,
           sum(sys_by.values()), sys_by["JCT"], sys_by["unfair"], sys_by["both"]))


def compare_with(a, pts, ws, summary, modes):
    """--against DIR: per mode and knob value, Dike's runs of this draw in DIR against --out's."""
    if not a.against:
        return
    print("against %s (Dike, this build against that one, points run in both):" % a.against)
    for k in modes:
        for w in ws:
            pairs = []
            for c in pts:
                n = name("dike", k, w)
                if os.path.exists(os.path.join(a.against, c, n + ".h5")):
                    pairs.append((summary(c, n, a.against), summary(c, n)))
            if not pairs:
                print("  %-6s w=%-3s no runs in %s" % (k, w, a.against))
                continue
            m, lo, hi, du, p0, p1 = against(pairs)
            print("  %-6s w=%-3s %2d points: avg JCT median %+.3f%% (%+.2f to %+.2f%%), unfair fraction median %+.4f, "
                  "preemptions/job mean %.3f -> %.3f" % (k, w, len(pairs), m, lo, hi, du, p0, p1))


if __name__ == "__main__":
    sys.exit(main())
