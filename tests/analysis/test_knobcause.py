#!/usr/bin/python3
"""analysis/knobcause.py on hand-made /jobs tables (used by ctest analysis_knobcause).

    test_knobcause.py SOURCE_DIR

Five jobs, the same ids at both ends; job 5 does not finish at w = 1, so four are compared (N = 4):

  job  GPUs  duration  JCT w=0  JCT w=1  rho w=0  rho w=1   width class   length class
   1     1      300       400      300     1.2      0.9     1 GPU         under 10 min
   2     1     7200      7200     9000     0.8      1.1     1 GPU         1-6 h
   3     8    90000    200000   100000     1.5      1.5     5-8 GPUs      over a day
   4    32     3600      5000     5000     0.5      1.3     17+ GPUs      1-6 h (3,600 s is its lower edge)
   5     2      600       700        -     0.5        -     (unfinished at w = 1: left out)

JCT side, (w = 0 - w = 1) per job: +100, -1800, +100000, 0; total 98300 / 4 = 24575 s (6.83 h).
  width: 1 GPU (100 - 1800) / 4 = -425; 5-8 GPUs 100000 / 4 = 25000 (6.94 h); 17+ GPUs 0.
  length: under 10 min 25; 1-6 h (-1800 + 0) / 4 = -450; over a day 25000.
Unfair side, (rho > 1 at w = 1) - (rho > 1 at w = 0) per job: -1, +1, 0, +1; total 1 / 4 = 0.25.
  width: 1 GPU 0; 5-8 GPUs 0; 17+ GPUs +0.25.   length: under 10 min -0.25; 1-6 h +0.5; over a day 0.
Each list of parts adds up to its total. With the two ends swapped the JCT total is -24575 s, not
in the failing direction, so no phrase; the mean of a pair and its swap is 0.
Split by width and length at once (cross), each job is its own class here: the parts are the
per-job differences / 4 (JCT 25000, -450, 25, 0 in order of size; unfair -0.25, +0.25, +0.25, 0,
ties in class order). Two 1-GPU jobs of 60 s with JCTs 100 and 400 at w = 0, 70 and 70 at w = 1,
preempted 1 and 3 times at w = 0: one class, (30 + 330) / 2 = 180 s each and in all, 2.00 / 0.00
preemptions.
Prints one line per check; exits 1 if any failed.
"""
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path.insert(0, SRC + "/analysis")
import numpy as np  # noqa: E402

import knobcause  # noqa: E402
import report  # noqa: E402

bad = 0


def check(ok, what):
    global bad
    bad += not ok
    print("%s %s" % ("ok  " if ok else "FAIL", what))


DT = [("job_id", "<i8"), ("num_gpus", "<u4"), ("duration", "<f8"), ("finish_time", "<f8"), ("jct", "<f8"),
      ("rho", "<f8")]


def table(rows):
    return np.array(rows, dtype=DT)


# (id, GPUs, duration, finish, JCT, rho); the w = 1 table is stored in another order on purpose
W0 = table([(1, 1, 300, 400, 400, 1.2), (2, 1, 7200, 7200, 7200, 0.8), (3, 8, 90000, 200000, 200000, 1.5),
            (4, 32, 3600, 5000, 5000, 0.5), (5, 2, 600, 700, 700, 0.5)])
W1 = table([(5, 2, 600, -1, -1, 0), (4, 32, 3600, 5000, 5000, 1.3), (3, 8, 90000, 100000, 100000, 1.5),
            (2, 1, 7200, 9000, 9000, 1.1), (1, 1, 300, 300, 300, 0.9)])

p = knobcause.parts(W0, W1, "jct")
check(p["jobs"] == 4, "jobs finished at both ends: 4 (%s)" % p["jobs"])
check(abs(p["total"] - 24575) < 1e-9, "JCT total 24575 s (%s)" % p["total"])
check([(a, n) for a, n, _ in p["width"]] == [("1 GPU", 2), ("5-8 GPUs", 1), ("17+ GPUs", 1)],
      "width classes with jobs: 1 GPU x2, 5-8, 17+ (%s)" % p["width"])
check(np.allclose([v for _, _, v in p["width"]], [-425, 25000, 0]), "width parts -425, 25000, 0 (%s)" % p["width"])
check([(a, n) for a, n, _ in p["length"]] == [("under 10 min", 1), ("1-6 h", 2), ("over a day", 1)],
      "length classes: under 10 min, 1-6 h x2 (3,600 s at its lower edge), over a day (%s)" % p["length"])
check(np.allclose([v for _, _, v in p["length"]], [25, -450, 25000]), "length parts 25, -450, 25000")
for key in ("width", "length"):
    check(abs(sum(v for _, _, v in p[key]) - p["total"]) < 1e-9, "%s parts add up to the total" % key)
text = knobcause.carried_by(W0, W1, "jct")
check(text == "largest parts 5-8 GPUs (1 job, +6.94 h) by width, over a day (1 job, +6.94 h) by length, "
              "of +6.83 h in all", "JCT phrase: %s" % text)

u = knobcause.parts(W0, W1, "unfair")
check(abs(u["total"] - 0.25) < 1e-12, "unfair total 0.25 (%s)" % u["total"])
check(np.allclose([v for _, _, v in u["width"]], [0, 0, 0.25]), "unfair width parts 0, 0, 0.25")
check(np.allclose([v for _, _, v in u["length"]], [-0.25, 0.5, 0]), "unfair length parts -0.25, 0.5, 0")
text = knobcause.carried_by(W0, W1, "unfair")
check(text == "largest parts 17+ GPUs (1 job, +0.2500) by width, 1-6 h (2 jobs, +0.5000) by length, "
              "of +0.2500 in all", "unfair phrase: %s" % text)

check(knobcause.carried_by(W1, W0, "jct") == "", "ends swapped: w = 0 faster, no phrase")
m = knobcause.mean_parts([(W0, W1), (W1, W0)], "jct")
check(abs(m["total"]) < 1e-9 and all(abs(v) < 1e-9 for _, _, v in m["width"]),
      "the mean of a pair and its swap: every part 0")
other = W1.copy()
other["job_id"][0] = 99
check(knobcause.parts(W0, other, "jct") is None and knobcause.carried_by(W0, other, "jct") == "",
      "tables of other job ids: not compared")
try:
    knobcause.parts(W0, W1, "jain")
    check(False, "an unknown side is refused")
except ValueError:
    check(True, "an unknown side is refused")
# widths at the classes' edges: 4 GPUs is 2-4, 5 is 5-8, 16 is 9-16, 17 is 17+; 600 s is 10 min-1 h
E0 = table([(1, 4, 599.9, 1, 10, 1), (2, 5, 600, 1, 10, 1), (3, 16, 86399, 1, 10, 1), (4, 17, 86400, 1, 10, 1)])
E1 = E0.copy()
E1["jct"] = [9, 8, 7, 6]
e = knobcause.parts(E0, E1, "jct")
check([(a, n) for a, n, _ in e["width"]] == [("2-4 GPUs", 1), ("5-8 GPUs", 1), ("9-16 GPUs", 1), ("17+ GPUs", 1)],
      "width edges 4 | 5, 16 | 17 (%s)" % e["width"])
check([(a, n) for a, n, _ in e["length"]] == [("under 10 min", 1), ("10 min-1 h", 1), ("6-24 h", 1),
                                              ("over a day", 1)], "length edges 600 s and 86,400 s (%s)" % e["length"])

# cross(): width and length at once, the largest parts either way first (worked out above: the
# JCT parts per job are the per-job differences / 4; the unfair ones -0.25, +0.25, 0, +0.25)
x = knobcause.cross(W0, W1, "jct")
check(x["jobs"] == 4 and abs(x["total"] - 24575) < 1e-9, "cross: 4 jobs, total 24575 s")
check([(r[0], r[1], r[2]) for r in x["rows"]] == [("5-8 GPUs", "over a day", 1), ("1 GPU", "1-6 h", 1),
                                                  ("1 GPU", "under 10 min", 1), ("17+ GPUs", "1-6 h", 1)],
      "cross: classes by the size of their part, 25000, -450, 25, 0 (%s)" % [r[:2] for r in x["rows"]])
check(np.allclose([r[3] for r in x["rows"]], [25000, -450, 25, 0]) and
      np.allclose([r[4] for r in x["rows"]], [100000, -1800, 100, 0]), "cross: parts and means per job")
check(abs(sum(r[3] for r in x["rows"]) - x["total"]) < 1e-9, "cross: the parts add up to the total")
check(all(r[5] is None and r[6] is None for r in x["rows"]), "cross: no preemptions column, no preemptions")
t = knobcause.cross_table(x, "jct", 2).splitlines()
check(t[2] == "| 5-8 GPUs, over a day | 1 | +100,000 s | +25,000 s |" and
      t[4] == "| the other 2 jobs (2 classes) | 2 | | +25 s |" and t[5] == "| all | 4 | | +24,575 s |",
      "cross table: two rows, the other two classes in one, the total (%s)" % t)
u = knobcause.cross(W0, W1, "unfair")
check([(r[0], r[1]) for r in u["rows"]] == [("1 GPU", "under 10 min"), ("1 GPU", "1-6 h"), ("17+ GPUs", "1-6 h"),
                                            ("5-8 GPUs", "over a day")] and
      np.allclose([r[3] for r in u["rows"]], [-0.25, 0.25, 0.25, 0]),
      "cross, unfair side: -0.25, +0.25, +0.25 (ties in class order), then 0 (%s)" % u["rows"])
PT = [("job_id", "<i8"), ("num_gpus", "<u4"), ("duration", "<f8"), ("finish_time", "<f8"), ("jct", "<f8"),
      ("rho", "<f8"), ("preemptions", "<u4")]
P0 = np.array([(1, 1, 60, 100, 100, 1.5, 1), (2, 1, 60, 400, 400, 2.0, 3)], dtype=PT)
P1 = np.array([(1, 1, 60, 70, 70, 1.1, 0), (2, 1, 60, 70, 70, 1.1, 0)], dtype=PT)
x = knobcause.cross(P0, P1, "jct")
check(len(x["rows"]) == 1 and x["rows"][0][2:] == (2, 180.0, 180.0, 2.0, 0.0),
      "cross with preemptions: one class, (30 + 330) / 2 = 180 s, 2.00 / 0.00 preemptions (%s)" % x["rows"])
check(knobcause.cross_table(x, "jct").splitlines()[2] == "| 1 GPU, under 10 min | 2 | +180 s | +180 s | 2.00 / 0.00 |",
      "cross table with preemptions")
check(knobcause.cross(W0, other, "jct") is None, "cross: tables of other job ids: not compared")

# report.py's failing knob line gets the phrase from each seed's runs at both ends
class R:
    def __init__(self, seed, jobs):
        self.seed, self.jobs, self.released = seed, jobs, False

    def release(self):
        self.released = True


class Pt:
    def __init__(self, runs):
        self.seed_runs = runs


class Chk:
    def __init__(self, w0, w1, jct_ok, fair_ok):
        self.w0, self.w1, self.jct_ok, self.fair_ok = Pt(w0), Pt(w1), jct_ok, fair_ok


a, b = R(1, W0), R(1, W1)
t = report.knob_carriers(Chk([a], [b], False, True))
check(t == "; JCT side: largest parts 5-8 GPUs (1 job, +6.94 h) by width, over a day (1 job, +6.94 h) by "
           "length, of +6.83 h in all", "report: the JCT side's phrase: %s" % t)
check(a.released and b.released, "report: the runs' /jobs released again")
t = report.knob_carriers(Chk([R(1, W0)], [R(1, W1)], False, False))
check(t.count("; ") == 2 and "; unfair side: largest parts 17+ GPUs" in t, "report: both sides: %s" % t)
t = report.knob_carriers(Chk([R(1, W0), R(2, W1)], [R(1, W1), R(2, W0)], False, True))
check(t == "", "report: two seeds whose differences cancel: no phrase (%r)" % t)
t = report.knob_carriers(Chk([R(1, None)], [R(1, W1)], False, True))
check(t == "", "report: runs without /jobs: no phrase")
sys.exit(1 if bad else 0)
