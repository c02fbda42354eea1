#!/usr/bin/python3
"""analysis/held_out.py's random points (--sample N --seed S), without running the emulator (used
by ctest analysis_held_out).

    test_held_out.py SOURCE_DIR

Checks, on draws of 200 points from a made-up traces folder (the draw only builds paths):
  - the same seed draws the same points with the same arguments; another seed other points;
  - every point asks for what the help text promises: a load in [0.7, 1.3], 24-128 nodes, and a
    job window (when there is one) of at least 5,000 jobs inside the trace's job count
    (TitanSched 82,247 jobs with a valid row, Gen-Parallel Helios 10,796, Gen-Parallel Philly 15,000) or no window;
  - the traces drawn are the grid's four (TitanSched, Gen-Parallel Helios and Philly, all of
    ElasticFlow) or two distinct ElasticFlow clusters of 02, 04, 07, 08, 09, and each kind occurs;
  - the names are unique and carry the load and the GPU count (8 per node);
  - --knob-only asks for Dike alone at w = 0 and 1 in each mode, four runs a point, all of them
    also in the full list (so a later full run reuses them); the knob check on hand-made numbers;
  - --noise-seeds K asks for Dike noisy at w = 0 and 1 with run seeds 1..K, seed 1 in the draw's
    own files; "systematic" (mean difference above two standard errors) on hand-made numbers;
  - --perturb K asks for Dike at w = 0 and 1 in every mode with the first K round_s values, 300
    (the draw's own files) first; its verdict per point on hand-made numbers;
  - --against's comparison of two builds' runs on hand-made numbers (medians, range, means);
  - the knob note with two small /jobs tables: which classes of jobs carry each failing side (worked
    out by hand in the comment above the check), and the tally of them (carrier_text);
  - run_cmd: --dike-set's options reach Dike's runs and no baseline's; the knob, the run seed and
    round_s only where asked;
  - fit_clusters with a stand-in emulator: a cluster smaller than the window's largest job is
    raised to the fewest nodes that fit it and renamed; the others stay.
Prints one line per check; exits 1 if any failed.
"""
import os
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path.insert(0, SRC + "/analysis")
import held_out  # noqa: E402

T = "/nonexistent/traces"
bad = 0


def check(ok, what):
    global bad
    bad += not ok
    print("%s %s" % ("ok  " if ok else "FAIL", what))


def opt(args, key):
    for i in range(len(args) - 1):
        if args[i] == "--set" and args[i + 1].startswith(key + "="):
            return args[i + 1].split("=", 1)[1]
    return None


a = held_out.sample(T, 200, 7)
b = held_out.sample(T, 200, 7)
c = held_out.sample(T, 200, 8)
check(len(a) == 200, "200 points drawn (%d)" % len(a))
check(a == b, "the same seed draws the same points and arguments")
check(set(a) != set(c), "another seed draws other points")
check(list(held_out.sample(T, 5, 7).items()) == list(a.items())[:5],
      "a smaller draw with the same seed is the start of the larger one")

njobs = {os.path.join(T, "TitanSched", "philly.csv"): 82247,
         os.path.join(T, "Gen-Parallel-Workloads", "helios_data_training.csv"): 10796,
         os.path.join(T, "Gen-Parallel-Workloads", "philly_data_training.csv"): 15000}
ef = os.path.join(T, "elasticflow-traces")
kinds = set()
for name, args in a.items():
    trace = args[args.index("-t") + 1]
    load = float(opt(args, "workload.trace_load"))
    nodes = int(opt(args, "cluster.nodes"))
    first, last = opt(args, "workload.first_job"), opt(args, "workload.last_job")
    ok = 0.7 <= load <= 1.3 and 24 <= nodes <= 128
    if trace in njobs:
        kinds.add(os.path.basename(trace))
        if first is not None:
            f, l = int(first), int(last)
            ok &= 0 <= f and l - f + 1 >= 5000 and l < njobs[trace]
            ok &= ("-jobs%d-%d-" % (f, l)) in name
        else:
            ok &= last is None
    elif trace == ef:
        kinds.add("ef")
        ok &= first is None
    else:
        parts = trace.split(",")
        cl = [re.fullmatch(re.escape(ef) + r"/cluster(\d\d)\.csv", p) for p in parts]
        ok &= len(parts) == 2 and all(cl) and first is None
        if ok:
            ids = [m.group(1) for m in cl]
            ok &= ids[0] != ids[1] and set(ids) <= {"02", "04", "07", "08", "09"}
            kinds.add("pair")
    ok &= name.endswith("-load%g-%dgpus" % (load, 8 * nodes))
    if not ok:
        check(False, "point %s: %s" % (name, " ".join(args)))
check(bad == 0, "every point's load, size, window and trace are in range, and named by them")
check(kinds == {"philly.csv", "helios_data_training.csv", "philly_data_training.csv", "ef", "pair"},
      "every kind of trace is drawn (%s)" % ", ".join(sorted(kinds)))

# --loads / --nodes move the two ranges; the defaults are the ranges above (old seeds draw the same)
check(held_out.sample(T, 50, 7, (0.7, 1.3), (24, 128)) == dict(list(a.items())[:50]),
      "the default ranges are 0.7-1.3 and 24-128 nodes")
wide = held_out.sample(T, 200, 7, (0.4, 1.8), (12, 256))
wl = [float(opt(x, "workload.trace_load")) for x in wide.values()]
wn = [int(opt(x, "cluster.nodes")) for x in wide.values()]
check(len(wide) == 200 and all(0.4 <= x <= 1.8 for x in wl) and all(12 <= x <= 256 for x in wn)
      and min(wl) < 0.7 and max(wl) > 1.3 and min(wn) < 24 and max(wn) > 128,
      "a wide draw stays in its ranges and reaches outside the default ones")
check(held_out.parse_range("0.4:1.8", float) == (0.4, 1.8) and held_out.parse_range("12:256", int) == (12, 256),
      "--loads / --nodes parse LO:HI")
check(held_out.parse_range("1.8:0.4", float) is None and held_out.parse_range("12", int) is None
      and held_out.parse_range("a:b", float) is None and held_out.parse_range("1.5:2", int) is None,
      "--loads / --nodes refuse HI < LO, one value, words and fractions of nodes")

few = held_out.sample(T, 3, 7)
ko = list(held_out.runs(few, knob_only=True))
full = list(held_out.runs(few))
check(len(ko) == 3 * 4 and {(p, w) for _, p, _, w in ko} == {("dike", "0"), ("dike", "1")}
      and {k for _, _, k, _ in ko} == {"oracle", "noisy"}, "--knob-only: Dike at w = 0 and 1, both modes, 4 runs a point")
check(set(ko) <= set(full), "--knob-only's runs are among the full list's (reused by a later full run)")
# --modes: any of the three, each once, in the order given; anything else is refused
check(held_out.parse_modes("oracle,noisy") == ("oracle", "noisy"), "--modes default: oracle, noisy")
check(held_out.parse_modes("none") == ("none",) and held_out.parse_modes("none, oracle") == ("none", "oracle"),
      "--modes: one mode, or several in the order given")
check(held_out.parse_modes("oracel") is None and held_out.parse_modes("") is None
      and held_out.parse_modes("none,none") is None, "--modes: a misspelt, empty or repeated mode is refused")
kn = list(held_out.runs(few, knob_only=True, modes=("none",)))
check(len(kn) == 3 * 2 and {k for _, _, k, _ in kn} == {"none"}, "--knob-only --modes none: 2 runs a point, all none")
fn = list(held_out.runs(few, modes=("none",)))
# per point: fifo, las, gandiva-fair, drf (oracle: they use no durations), sjf, srtf, themis and Dike x 3 under none
check(len(fn) == 3 * (4 + 3 + 3) and {k for _, p, k, _ in fn if p in ("sjf", "srtf", "themis", "dike")} == {"none"},
      "--modes none: the duration-using policies run under none, 10 runs a point")
# --baselines: a subset of the seven, in their own order; the duration-using ones in every mode
check(held_out.parse_baselines("gandiva-fair") == ("gandiva-fair",)
      and held_out.parse_baselines("drf, sjf,fifo") == ("fifo", "sjf", "drf"),
      "--baselines: one baseline, or several put in the baselines' order")
check(held_out.parse_baselines("gandiva") is None and held_out.parse_baselines("") is None
      and held_out.parse_baselines("las,las") is None and held_out.parse_baselines("dike") is None,
      "--baselines: a misspelt, empty, repeated or non-baseline name is refused")
check(held_out.parse_baselines(",".join(held_out.BASELINES)) == held_out.BASELINES, "--baselines default: all seven")
gb = list(held_out.runs(few, modes=("oracle", "none"), baselines=("gandiva-fair",)))
# per point: gandiva-fair once (oracle: no durations), Dike at w = 0, 0.5 and 1 in both modes
check(len(gb) == 3 * (1 + 2 * 3) and {p for _, p, _, _ in gb} == {"gandiva-fair", "dike"}
      and {k for _, p, k, _ in gb if p == "gandiva-fair"} == {"oracle"},
      "--baselines gandiva-fair: it once and Dike x 3 per mode, 7 runs a point")
sb = list(held_out.runs(few, modes=("noisy",), baselines=("srtf",)))
check(len(sb) == 3 * (1 + 3) and {(p, k) for _, p, k, _ in sb if p != "dike"} == {("srtf", "noisy")},
      "--baselines srtf --modes noisy: srtf under noisy, 4 runs a point")
check(set(gb) <= set(held_out.runs(few, modes=("oracle", "none"))),
      "--baselines' runs are among the full list's (a later full run reuses them)")
# (avg JCT s, unfair fraction): w = 1 must be no less fair, w = 0 no slower; ties pass
check(held_out.knob_monotone((100.0, 0.05), (110.0, 0.01)), "knob: w = 0 faster and w = 1 fairer passes")
check(held_out.knob_monotone((100.0, 0.01), (100.0, 0.01)), "knob: equal values pass")
check(not held_out.knob_monotone((101.0, 0.05), (100.0, 0.01)), "knob: w = 0 slower fails (the JCT side)")
check(not held_out.knob_monotone((100.0, 0.01), (110.0, 0.02)), "knob: w = 1 less fair fails (the unfair side)")
# the side and margin of a failure: w = 0 at 101 s against 100 s is 1 % slower; w = 1 at 0.02
# against 0.01 is 0.01 less fair; 102 s / 100 s and 0.03 - 0.01 fail both sides, by 2 % and 0.02
def near(x, y):
    return x is None and y is None or x is not None and y is not None and abs(x - y) < 1e-9


def near_all(xs, ys):
    return all(near(x, y) for x, y in zip(xs, ys))


check(near_all(held_out.knob_failure((101.0, 0.05), (100.0, 0.01)), (1.0, None)), "knob side: JCT, by 1 %")
check(near_all(held_out.knob_failure((100.0, 0.01), (110.0, 0.02)), (None, 0.01)), "knob side: unfair, by 0.01")
check(near_all(held_out.knob_failure((102.0, 0.01), (100.0, 0.03)), (2.0, 0.02)), "knob side: both, 2 % and 0.02")
check(held_out.knob_failure((100.0, 0.05), (110.0, 0.01)) == (None, None)
      and held_out.knob_note((100.0, 0.05), (110.0, 0.01)) == "", "knob holds: no side, no note")
check(held_out.knob_note((102.0, 0.01), (100.0, 0.03)) ==
      " | knob: JCT side: w=0 slower by 2.000%; unfair side: w=1 higher by 0.0200", "knob note names both sides")
# five pairs: JCT margins 1, 2 and 0.5 % (median 1, largest 2), unfair margins 0.01 and 0.02; one passes
tl = held_out.knob_tally([((101.0, 0.05), (100.0, 0.01)), ((100.0, 0.01), (110.0, 0.02)),
                          ((102.0, 0.01), (100.0, 0.03)), ((100.5, 0.0), (100.0, 0.0)),
                          ((100.0, 0.05), (110.0, 0.01))])
check(tl[0] == 3 and tl[3] == 2 and near_all(tl[1:3] + tl[4:], (1.0, 2.0, 0.02)),
      "knob tally: 3 on the JCT side (median 1 %, largest 2 %), 2 on the unfair side (largest 0.02)")
check(held_out.knob_tally([]) == (0, 0.0, 0.0, 0, 0.0), "knob tally of nothing: zeros")
# the note with the two ends' outputs: which jobs carry each failing side, and the tally of them.
# Two jobs, the same ids at both ends: a 1-GPU job of 10 min-1 h, 100 s slower at w = 0 and unfair
# only at w = 1, and a 17+-GPU job over a day, 300 s slower at w = 0: JCT total (100 + 300) / 2 =
# +200 s, largest parts 17+ GPUs and over a day (+150 s each); unfair total (1 - 0) / 2 = +0.5, all
# of it the 1-GPU job of 10 min-1 h.
import tempfile  # noqa: E402

import h5py  # noqa: E402
import numpy as np  # noqa: E402

DT = [("job_id", "<i8"), ("num_gpus", "<u4"), ("duration", "<f8"), ("finish_time", "<f8"), ("jct", "<f8"),
      ("rho", "<f8")]
tmp = tempfile.mkdtemp(prefix="test_held_out.")
files = [os.path.join(tmp, "w%d.h5" % i) for i in (0, 1)]
for f, rows in zip(files, ([(1, 1, 1200, 1300, 1300, 0.9), (2, 32, 100000, 100300, 100300, 0.8)],
                           [(1, 1, 1200, 1200, 1200, 1.1), (2, 32, 100000, 100000, 100000, 0.8)])):
    with h5py.File(f, "w") as h:
        h["jobs"] = np.array(rows, dtype=DT)
tally = {}
note = held_out.knob_note((102.0, 0.01), (100.0, 0.03), files, tally)
check(note == " | knob: JCT side: w=0 slower by 2.000% (largest parts 17+ GPUs (1 job, +2.5 min) by width, "
              "over a day (1 job, +2.5 min) by length, of +3.33 min in all); unfair side: w=1 higher by 0.0200 "
              "(largest parts 1 GPU (1 job, +0.5000) by width, 10 min-1 h (1 job, +0.5000) by length, "
              "of +0.5000 in all)", "knob note with the outputs: the carriers of both sides: %s" % note)
held_out.knob_note((102.0, 0.01), (100.0, 0.01), files, tally)  # the JCT side again
check(held_out.carrier_text(tally) ==
      "largest parts of the failures: JCT side: by length over a day 2; by width 17+ GPUs 2 | "
      "unfair side: by length 10 min-1 h 1; by width 1 GPU 1", "carrier tally: %s" % held_out.carrier_text(tally))
check(held_out.carrier_text({}) == "", "carrier tally of nothing: no line")
for f in files:
    os.remove(f)
os.rmdir(tmp)
nr = list(held_out.noise_runs(few, 3))
check(len(nr) == 3 * 3 * 2 and {(p, k) for _, p, k, _, _ in nr} == {("dike", "noisy")}
      and {rs for *_, rs in nr} == {1, 2, 3}, "--noise-seeds 3: Dike noisy at w = 0 and 1, run seeds 1-3, 6 runs a point")
check(held_out.name("dike", "noisy", "0") == held_out.name("dike", "noisy", "0", 1) == "dike-noisy-w0"
      and held_out.name("dike", "noisy", "1", 4) == "dike-noisy-w1-rs4",
      "run seed 1 is the draw's own run; other seeds get their own files")
# mean 0.3, sd 0.082 over 4 seeds: standard error 0.041, 0.3 > 0.082 -> systematic
check(held_out.systematic([0.2, 0.3, 0.4, 0.3]), "systematic: mean 0.3, standard error 0.041")
# mean 0.1, sd 0.183 over 4 seeds: standard error 0.0913, 0.1 < 0.183 -> chance
check(not held_out.systematic([-0.1, 0.3, 0.0, 0.2]), "chance: mean 0.1, standard error 0.091")
check(not held_out.systematic([-0.3, -0.2, -0.4, -0.3]), "w = 0 faster on every seed: not systematic")
pr = list(held_out.perturb_runs(few, 3, ("oracle", "none")))
check(len(pr) == 3 * 2 * 3 * 2 and {(p, rs) for _, p, _, _, rs, _ in pr} == {("dike", 1)}
      and {r for *_, r in pr} == {300, 293, 307} and {m for _, _, m, *_ in pr} == {"oracle", "none"},
      "--perturb 3: Dike at w = 0 and 1, round_s 300, 293, 307, each mode, 12 runs a point here")
check(held_out.name("dike", "none", "0", 1, 300) == "dike-none-w0"
      and held_out.name("dike", "none", "1", 1, 293) == "dike-none-w1-round293",
      "round_s 300 is the draw's own run; other values get their own files")
# three round_s values, (avg JCT s, unfair fraction) at w = 0 and w = 1:
#   w = 0 slower by 1 %, 2 %, 3 % (100 s vs 101, 102, 103) -> 3 failures, mean +2 %, sd 1, se 0.577: JCT side;
#   w = 1's unfair fraction 0.01 below w = 0's each time -> unfair side holds.
pv = held_out.perturb_verdict([((101.0, 0.02), (100.0, 0.01)), ((102.0, 0.02), (100.0, 0.01)),
                               ((103.0, 0.02), (100.0, 0.01))])
check(pv[0] == 3 and abs(pv[1] - 2.0) < 1e-9 and abs(pv[2] + 0.01) < 1e-9 and pv[3] == "JCT",
      "perturb: w = 0 slower at every value by 1-3 %: 3 failures, systematic on the JCT side")
# w = 0 slower by +1 % once, faster by 1 % and 2 % (mean -0.667 %): 1 failure, chance
pv = held_out.perturb_verdict([((101.0, 0.02), (100.0, 0.01)), ((99.0, 0.02), (100.0, 0.01)),
                               ((98.0, 0.02), (100.0, 0.01))])
check(pv[0] == 1 and abs(pv[1] + 2.0 / 3) < 1e-9 and pv[3] == "", "perturb: a failure at one value only is chance")
# w = 1 less fair by 0.01, 0.02, 0.03 (mean 0.02, se 0.00577) and w = 0 slower by 1 % each time: both sides
pv = held_out.perturb_verdict([((101.0, 0.01), (100.0, 0.02)), ((101.0, 0.01), (100.0, 0.03)),
                               ((101.0, 0.01), (100.0, 0.04))])
check(pv[0] == 3 and abs(pv[2] - 0.02) < 1e-9 and pv[3] == "both", "perturb: systematic on both sides")

# --against: (old, new) summaries (avg JCT s, unfair fraction, Jain, preemptions/job). Changes of
# JCT +10 %, -5 %, +2 % -> sorted -5, +2, +10: median +2, lowest -5, highest +10; unfair changes
# -0.02, 0, +0.01 -> median 0; preemptions/job old (1 + 2 + 0) / 3 = 1, new (0.5 + 1 + 0) / 3 = 0.5.
ag = held_out.against([((100.0, 0.10, 0.9, 1.0), (110.0, 0.08, 0.9, 0.5)),
                       ((200.0, 0.05, 0.9, 2.0), (190.0, 0.05, 0.9, 1.0)),
                       ((50.0, 0.01, 0.9, 0.0), (51.0, 0.02, 0.9, 0.0))])
check(all(abs(x - y) < 1e-9 for x, y in zip(ag, (2.0, -5.0, 10.0, 0.0, 1.0, 0.5))),
      "--against: JCT change median +2%, -5% to +10%; unfair median 0; preemptions 1 -> 0.5")
# an even count: the median is the mean of the middle two (+2 and +10 -> +6)
ag = held_out.against([((100.0, 0.1, 0, 0), (110.0, 0.1, 0, 0)), ((100.0, 0.1, 0, 0), (102.0, 0.1, 0, 0))])
check(abs(ag[0] - 6.0) < 1e-9, "--against: median of two changes is their mean")
# fit_clusters: a stand-in emulator whose trace-info reports the window's largest job (160 GPUs
# when the arguments hold "helios", 32 otherwise). A 160-GPU job needs ceil(160 / 8) = 20 nodes:
# 11 nodes (88 GPUs) become 20 (160 GPUs) and the point is renamed; 24 nodes (192 GPUs) stay, and
# so does the 32-GPU point on 4 nodes (32 GPUs: it fits exactly).
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as d:
    fake = os.path.join(d, "emu")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\ncase \"$*\" in *helios*) m=160 ;; *) m=32 ;; esac\n"
                "echo \"  GPUs per job             mean 8.18, max $m\"\n")
    os.chmod(fake, 0o755)
    pts = {"helios-load1-88gpus": ["-t", "/x/helios.csv", "--set", "workload.trace_load=1", "--set", "cluster.nodes=11"],
           "helios-load1-192gpus": ["-t", "/x/helios.csv", "--set", "workload.trace_load=1", "--set", "cluster.nodes=24"],
           "titan-load2-32gpus": ["-t", "/x/philly.csv", "--set", "workload.trace_load=2", "--set", "cluster.nodes=4"]}
    got = held_out.fit_clusters(fake, pts)
    check(list(got) == ["helios-load1-160gpus", "helios-load1-192gpus", "titan-load2-32gpus"]
          and opt(got["helios-load1-160gpus"], "cluster.nodes") == "20"
          and opt(got["helios-load1-192gpus"], "cluster.nodes") == "24"
          and opt(got["titan-load2-32gpus"], "cluster.nodes") == "4",
          "fit_clusters: 11 nodes raised to 20 for a 160-GPU job (renamed), 24 and an exact fit kept: %s" % got)
# run_cmd: what each run is asked for
pt = ["-t", "x.csv", "--set", "workload.trace_load=1"]
dk = held_out.run_cmd("emu", pt, "dike", "noisy", "o.h5", "1", dike_set=["dike.late_pass=true", "dike.probe_s=60"])
sr = held_out.run_cmd("emu", pt, "srtf", "noisy", "o.h5", dike_set=["dike.late_pass=true"])
check(dk[:2] == ["emu", "run"] and dk[2:6] == pt and opt(dk, "dike.late_pass") == "true"
      and opt(dk, "dike.probe_s") == "60" and opt(dk, "dike.fairness_weight") == "1"
      and opt(dk, "scheduler.duration_knowledge") == "noisy" and dk[dk.index("-p") + 1] == "dike"
      and dk[dk.index("--out") + 1] == "o.h5",
      "run_cmd: Dike's run carries the point, its mode, its knob and both --dike-set options: %s" % dk)
check(opt(sr, "dike.late_pass") is None and opt(sr, "dike.fairness_weight") is None
      and sr[sr.index("-p") + 1] == "srtf",
      "run_cmd: a baseline's run gets no --dike-set option and no knob: %s" % sr)
check("--seed" not in dk and opt(dk, "scheduler.round_s") is None
      and held_out.run_cmd("emu", pt, "dike", "oracle", "o.h5", "0", 3, 293)[-6:] ==
      ["--set", "dike.fairness_weight=0", "--seed", "3", "--set", "scheduler.round_s=293"],
      "run_cmd: the run seed and round_s only where asked")
sys.exit(1 if bad else 0)
