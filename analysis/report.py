#!/usr/bin/python3
"""Paper-style report (tables and figures) from dike-emu runs.

    /usr/bin/python3 analysis/report.py RESULTS [RESULTS ...] [-o REPORT_DIR]

RESULTS is a folder of .h5 files (searched recursively), a folder holding a campaign manifest
(campaign.json: only its completed points are read, failed ones are skipped with a warning), a
manifest, or .h5 files. Files that are not complete dike-emu outputs are skipped with a warning
(listed at the end of the report); --strict stops at the first one instead.

Written under REPORT_DIR (default: report/):

    report.md                       tables and figures of every (trace, load, cluster size), the
                                    checks, run metadata
    tables/SLUG.{md,csv,tex}        summary table per group: one row per configuration (policy,
                                    Dike's fairness_weight, duration knowledge, tenant weighting);
                                    CSV in seconds with full precision
    tables/dominance.csv            every Dike default-knob row against every baseline of its
                                    setting: the three metrics of both and whether it dominates
    tables/monotonicity.csv         Dike's w = 0 and w = 1 per setting: unfair fraction, avg JCT, verdict
    tables/SLUG-tenants.{md,csv}    per tenant: weight, weight share, received and entitled shares
    tables/runs.csv                 every input file: metadata and its /summary attributes
    tables/scaling.{csv,md}         wall time, events and events/s per run (from /perf)
    figures/SLUG-jct_cdf.*          JCT CDF per policy
    figures/SLUG-rho_cdf.*          rho CDF, with the rho = 1 line
    figures/SLUG-timeseries.*       busy GPUs and queued jobs over time
    figures/SLUG-tenant_share.*     per-tenant share of the cluster over time, one panel per policy
    figures/SLUG-tenant_entitlement.*  per tenant: received vs entitled share, one marker per policy
    figures/SLUG-frontier.*         avg JCT vs max rho and vs unfair fraction: Dike over its knob,
                                    baselines as labelled points
    figures/SLUG-jct_by_size.*      mean JCT by job size (GPU count) bars
    figures/scaling.*               engine wall time and events/s vs MPI ranks

SLUG is "TRACE-LOAD-G-gpus" in lower case with runs of other characters than [a-z0-9.] replaced
by "-", e.g. "philly-vc-week-as-recorded-512-gpus" or "synthetic-load-0.9-64-gpus" (TRACE without
its .csv extension, G the cluster's GPUs).

Grouping. A group is (trace, load, cluster size): the trace file name ("synthetic" for generated
workloads), the load ([run] label if the config has one, else workload.trace_load or
workload.time_scale for a trace, "as recorded" when neither is set, workload.load for a synthetic
workload) and the cluster's GPUs. Inside a group, a row is one resolved configuration, ignoring
run.* (seed, output file, checkpoints; but not run.label), output.* and engine.*, keys that do not
change results. Two keys name a row's setting: scheduler.duration_knowledge (oracle | noisy |
none; a file without it is oracle) and tenants.weights (equal | demand | file:PATH | a list; empty
or missing is equal). Rows are named "dike w=0.5 · noisy · demand": the knowledge tag for the
policies that use durations (sjf, srtf, themis, dike), the weighting tag for the tenant-aware ones
(gandiva-fair, drf), each only when the group holds several; other keys that vary
among one policy's rows follow as key=value. fifo, las, gandiva-fair and drf use no durations:
their rows stand for every knowledge mode; all but gandiva-fair and drf ignore tenant weights:
their rows stand for every weighting. Runs of one row that differ in run.seed are seeds: tables show
their mean with a 95% confidence interval, mean +- t * s / sqrt(n), s the sample standard
deviation, t Student's 0.975 quantile with n - 1 degrees of freedom from the table T975 below
(df 1..30; beyond, the normal quantile 1.96, at most 4% narrower than t). Runs of one row and one
seed on different rank counts give the same results (SPEC section 3): the first is used for the
metrics, all of them for the scaling figure. CDFs pool the jobs of every seed; the time-series
and tenant-share figures show the lowest seed.

Checks (issue 12), per group and printed in report.md, at full precision (the means, never the
printed rounding): the dominance check (a baseline of the same knowledge mode and weighting
dominates Dike at its default knob, w = 0.5 or not recorded, when its average JCT is lower, its
unfair fraction lower and its Jain's index higher, all three strictly), with a summary of the
groups that pass per mode at the top; knob monotonicity (unfair_fraction(w=1) <=
unfair_fraction(w=0) and avg_jct(w=0) <= avg_jct(w=1) per setting); and on the full TitanSched
Philly trace (philly.csv, 82,247 jobs) at load 1 on 512 GPUs the target line: Dike's avg JCT in %
above the best baseline's, its unfair fraction minus the best baseline's, preemptions per job.

Figures. When a group holds several settings, the figures show one, the headline: oracle
knowledge and the weighting of --headline-weights (default demand); the other settings are in the
tables and checks, and so is the "Dike against the best baseline" comparison (generated sentences:
where Dike wins and where it loses). At most MAX_FIGURE_LINES rows are drawn per axis: beyond,
Dike shows its extreme knob values and the default (the frontier joins every knob value).
--figure-kinds picks the per-group figures, --full-figures REGEX gives matching groups all of them.

Options --report, --figures and --tables place the three outputs anywhere (the gallery writes
docs/results.md and docs/results/); --formats png,pdf picks the figure formats; --no-tables skips
the table files (the tables are in report.md in any case).
"""
import argparse
import csv
import io
import math
import os
import re
import sys

try:
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import cm
    import matplotlib.ticker
except ImportError as e:
    sys.exit("report: %s; use Debian's /usr/bin/python3 with python3-numpy and python3-matplotlib "
             "(apt-get install python3-h5py python3-numpy python3-matplotlib)" % e)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dikeio  # noqa: E402

# Student's t, 0.975 quantile, by degrees of freedom (two-sided 95% interval).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
        17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
        25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042}


def t975(df):
    return T975.get(df, 1.96)


def mean_ci(values):
    """(mean, 95% CI half-width or None, n) of a list of numbers."""
    n = len(values)
    if n == 0:
        return (float("nan"), None, 0)
    if n == 1:
        return (values[0], None, 1)
    m = math.fsum(values) / n
    s = math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1))
    return (m, t975(n - 1) * s / math.sqrt(n), n)


# (key in /summary, Markdown header, LaTeX header, kind, better)
METRICS = [
    ("avg_jct", "avg JCT", "avg JCT", "time", "low"),
    ("p50_jct", "p50 JCT", "p50 JCT", "time", "low"),
    ("p99_jct", "p99 JCT", "p99 JCT", "time", "low"),
    ("makespan", "makespan", "makespan", "time", "low"),
    ("avg_queue_delay", "avg queueing", "avg queueing", "time", "low"),
    ("mean_rho", "mean ρ", r"mean $\rho$", "ratio", "low"),
    ("p99_rho", "p99 ρ", r"p99 $\rho$", "ratio", "low"),
    ("max_rho", "max ρ", r"max $\rho$", "ratio", "low"),
    ("unfair_fraction", "unfair", "unfair", "ratio", "low"),
    ("jain", "Jain", "Jain", "ratio", "high"),
    ("utilization", "util", "util.", "ratio", "high"),
    ("preemptions", "preempt", "preempt.", "count", "low"),
    ("preemptions_per_job", "preempt/job", "preempt./job", "ratio", "low"),
]
# Metrics computed from /summary rather than read from it: key -> function of the summary.
DERIVED = {
    "preemptions_per_job": lambda s: s["preemptions"] / s["jobs"] if s["jobs"] else float("nan"),
}
# Left out of the generated "Dike against the best baseline" comparison (it repeats preemptions:
# every row of a group has the same jobs).
NOT_COMPARED = ("preemptions_per_job",)
METRIC_NAMES = {
    "avg_jct": "average JCT", "p50_jct": "median JCT", "p99_jct": "p99 JCT", "makespan": "makespan",
    "avg_queue_delay": "average queueing delay", "mean_rho": "mean ρ", "p99_rho": "p99 ρ",
    "max_rho": "max ρ", "unfair_fraction": "unfair fraction (ρ > 1)", "jain": "Jain's index",
    "utilization": "GPU utilisation", "preemptions": "preemptions",
    "preemptions_per_job": "preemptions per job",
}

POLICY_ORDER = ["fifo", "sjf", "srtf", "las", "themis", "gandiva-fair", "drf", "dike"]
BASE_COLORS = {"fifo": "#1f77b4", "sjf": "#17becf", "srtf": "#2ca02c", "las": "#9467bd",
               "themis": "#8c564b", "gandiva-fair": "#e377c2", "drf": "#7f7f7f"}
EXTRA_COLORS = ["#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#000000"]
MARKERS = {"fifo": "o", "sjf": "s", "srtf": "^", "las": "v", "themis": "D", "gandiva-fair": "P",
           "drf": "X"}
EXTRA_MARKERS = ["<", ">", "p", "h", "*", "8", "d"]
LINESTYLES = ["-", "--", ":", "-."]

# Config keys that do not change results: [run] (seed, the replicate axis; output file;
# checkpointing) except a label, [output] (sampling and progress knobs) and [engine] (the
# parallel decomposition: SPEC section 3 makes results bit-identical for any rank count).
IGNORED_SECTIONS = ("engine", "output", "run")
KEPT_KEYS = ("run.label",)

PDF_META = {"CreationDate": None, "Producer": None, "Creator": None}
PNG_META = {"Software": None}


# ---------------------------------------------------------------------------------------------
# Grouping

# Policies that never read a job's duration: run once per group (under oracle knowledge), their
# rows stand for every duration-knowledge mode.
DURATION_FREE = ("fifo", "las", "gandiva-fair", "drf")
# Policies that ignore [tenants] weights: their rows stand for every tenant weighting
# (docs/policies.md: only drf and gandiva-fair use them).
WEIGHT_FREE = ("fifo", "sjf", "srtf", "las", "themis", "dike")
KNOWLEDGE_MODES = ("oracle", "noisy", "none")
KNOWLEDGE_KEYS = ("scheduler.duration_knowledge", "scheduler.duration_error_sigma")
WEIGHT_KEY = "tenants.weights"
DEFAULT_KNOB = 0.5            # dike.fairness_weight's default (dike-emu config-reference)
MAX_FIGURE_LINES = 10         # lines (rows) per axis in the per-row figures
FIGURE_KINDS = ("jct_cdf", "rho_cdf", "frontier", "jct_by_size", "timeseries", "tenant_share",
                "tenant_entitlement")


def config_items(run):
    d = {}
    for sec in run.config.sections():
        for k, v in run.config.items(sec):
            d["%s.%s" % (sec, k)] = v
    return d


def ignored(key):
    return key not in KEPT_KEYS and key.split(".", 1)[0] in IGNORED_SECTIONS


def _num(s, default):
    try:
        return float(s)
    except (TypeError, ValueError):
        return default


def load_label(run):
    label = run.get("run", "label")
    if label:
        return label
    if run.trace != "synthetic":
        tl = _num(run.get("workload", "trace_load"), 0.0)
        if tl != 0:
            return "load %s" % run.get("workload", "trace_load")
        ts = _num(run.get("workload", "time_scale"), 1.0)
        if ts != 1.0:
            return "time_scale %s" % run.get("workload", "time_scale")
        return "as recorded"
    return "load %s" % run.get("workload", "load", "?")


def group_key(run):
    return (run.trace, load_label(run), run.gpus)


def slug(group):
    trace, load, gpus = group
    trace = re.sub(r"\.csv$", "", trace)
    s = re.sub(r"[^a-z0-9.]+", "-", ("%s-%s-%d-gpus" % (trace, load, gpus)).lower()).strip("-")
    return s or "group"


def weight_of(run):
    return _num(run.get("dike", "fairness_weight"), float("nan"))


def knowledge_of(run):
    """scheduler.duration_knowledge; files written before the key existed are 'oracle'."""
    return (run.get("scheduler", "duration_knowledge") or "").strip().lower() or "oracle"


def weighting_of(run):
    """tenants.weights normalised: 'equal' (also for an empty or missing key), 'demand', or the
    value as written (file:PATH, an explicit name:weight list)."""
    v = (run.get("tenants", "weights") or "").strip()
    if v.lower() in ("", "equal"):
        return "equal"
    return "demand" if v.lower() == "demand" else v


ANY_WEIGHTING = "every weighting"


def weighting_tag(wt):
    """Short text of a weighting for a row name."""
    if wt in ("equal", "demand", ANY_WEIGHTING):
        return wt
    if wt.lower().startswith("file:"):
        return "file:" + os.path.basename(wt[5:].strip())
    return "weights " + (wt if len(wt) <= 24 else wt[:21] + "…")


def uses_durations(policy):
    return policy not in DURATION_FREE


def uses_weights(policy):
    return policy not in WEIGHT_FREE


def knowledge_order(k):
    return (KNOWLEDGE_MODES.index(k), "") if k in KNOWLEDGE_MODES else (len(KNOWLEDGE_MODES), k)


def weighting_order(wt):
    return (("equal", "demand").index(wt), "") if wt in ("equal", "demand") else (2, wt)


def fmt_w(w):
    return ("%g" % w) if w == w else "?"


def metric_value(summary, key):
    f = DERIVED.get(key)
    return f(summary) if f else summary[key]


class Point:
    """One configuration in a group; its seeds and the statistics over them."""

    def __init__(self, key, runs):
        self.key = key
        self.all_runs = sorted(runs, key=lambda r: (r.seed, r.ranks, r.path))
        self.policy = self.all_runs[0].policy
        self.weight = weight_of(self.all_runs[0]) if self.policy == "dike" else None
        self.knowledge = knowledge_of(self.all_runs[0])
        self.weighting = weighting_of(self.all_runs[0])
        self.tags = []        # knowledge / weighting shown in the row name (set by Group)
        self.variant = ""
        self.style_index = 0
        by_seed = {}
        for r in self.all_runs:
            by_seed.setdefault(r.seed, []).append(r)
        self.seed_runs = [by_seed[s][0] for s in sorted(by_seed)]
        self.warnings = []
        for s in sorted(by_seed):
            first = by_seed[s][0]
            for other in by_seed[s][1:]:
                if other.summary != first.summary:
                    self.warnings.append("%s and %s: same configuration and seed %d, different /summary "
                                         "(%d vs %d ranks): results should not depend on the rank count"
                                         % (first.path, other.path, s, first.ranks, other.ranks))
        self.stats = {}
        for m in METRICS:
            self.stats[m[0]] = mean_ci([metric_value(r.summary, m[0]) for r in self.seed_runs])

    @property
    def seeds(self):
        return [r.seed for r in self.seed_runs]

    @property
    def n(self):
        return len(self.seed_runs)

    @property
    def first(self):
        return self.seed_runs[0]

    @property
    def base_label(self):
        return "dike w=%s" % fmt_w(self.weight) if self.policy == "dike" else self.policy

    @property
    def label(self):
        return " · ".join([self.base_label] + self.tags) + (", " + self.variant if self.variant else "")

    @property
    def is_default_knob(self):
        """Dike at its default knob: fairness_weight 0.5, or not recorded."""
        return self.policy == "dike" and (self.weight != self.weight or self.weight == DEFAULT_KNOB)

    def value(self, key):
        """The metric at full precision (the mean over seeds; one seed: the /summary value)."""
        return self.stats[key][0]

    def order(self):
        p = self.policy
        i = POLICY_ORDER.index(p) if p in POLICY_ORDER else len(POLICY_ORDER)
        return (i, p, knowledge_order(self.knowledge), weighting_order(self.weighting),
                self.variant, self.weight if self.weight is not None else 0.0)


def valid_for(point, knowledge, weighting):
    """Does this row stand for (knowledge, weighting)? Duration-free policies stand for every
    knowledge mode, weight-free ones for every weighting."""
    return ((not uses_durations(point.policy) or point.knowledge == knowledge) and
            (not uses_weights(point.policy) or point.weighting == weighting))


class Group:
    """The runs of one (trace, load, cluster size in GPUs), one Point per configuration."""

    def __init__(self, key, runs, headline_weights="demand"):
        self.key = key
        self.trace, self.load, self._gpus = key
        self.slug = slug(key)
        self.runs = runs
        pts = {}
        for r in runs:
            items = config_items(r)
            pk = tuple(sorted((k, v) for k, v in items.items() if not ignored(k)))
            pts.setdefault(pk, []).append(r)
        self.points = [Point(k, v) for k, v in pts.items()]
        self.modes = sorted(set(p.knowledge for p in self.points), key=knowledge_order)
        self.weightings = sorted(set(p.weighting for p in self.points if uses_weights(p.policy)) or {"equal"},
                                 key=weighting_order)
        # Row names: knowledge and weighting as short tags when the group has several and the
        # policy uses them (or when they vary among the policy's own rows); other keys that vary
        # among the rows of one policy (besides Dike's knob) as key=value, so that two rows never
        # look the same.
        by_policy = {}
        for p in self.points:
            by_policy.setdefault(p.policy, []).append(p)
        for pol, plist in by_policy.items():
            own_k = len(set(p.knowledge for p in plist)) > 1
            own_w = len(set(p.weighting for p in plist)) > 1
            for p in plist:
                if own_k or (uses_durations(pol) and len(self.modes) > 1):
                    p.tags.append(p.knowledge)
                if own_w or (uses_weights(pol) and len(self.weightings) > 1):
                    p.tags.append(weighting_tag(p.weighting))
            if len(plist) < 2:
                continue
            dicts = [dict(p.key) for p in plist]
            keys = sorted(set().union(*dicts))
            skip = ("scheduler.policy", "dike.fairness_weight", WEIGHT_KEY) + KNOWLEDGE_KEYS[:1]
            varying = [k for k in keys if k not in skip and len(set(d.get(k) for d in dicts)) > 1]
            for p, d in zip(plist, dicts):
                p.variant = ", ".join("%s=%s" % (k, d.get(k, "")) for k in varying)
        self.points.sort(key=Point.order)
        self.dike = [p for p in self.points if p.policy == "dike"]
        self.baselines = [p for p in self.points if p.policy != "dike"]
        # Keys that tell Dike's rows apart besides the knob, knowledge and weighting (and Dike's own
        # [dike] keys): a baseline is compared with a Dike row only if it has the same values.
        dd = [dict(p.key) for p in self.dike]
        self.context_keys = sorted(k for k in set().union(*dd) if not k.startswith("dike.")
                                   and k not in ("scheduler.policy", WEIGHT_KEY) + KNOWLEDGE_KEYS
                                   and len(set(d.get(k) for d in dd)) > 1) if dd else []
        self.headline = self.pick_headline(headline_weights)

    def comparable(self, base, dike):
        """Baseline row `base` is run in the same setting as Dike row `dike`."""
        if uses_durations(base.policy) and base.knowledge != dike.knowledge:
            return False
        if uses_weights(base.policy) and uses_weights(dike.policy) and base.weighting != dike.weighting:
            return False
        b, d = dict(base.key), dict(dike.key)
        return all(b.get(k) == d.get(k) for k in self.context_keys)

    def pick_headline(self, weights):
        """(knowledge, weighting) shown in the figures: oracle (else the first mode present) and
        the weighting asked for (else equal, else the first present)."""
        k = "oracle" if "oracle" in self.modes else self.modes[0]
        wts = self.weightings
        w = weights if weights in wts else ("equal" if "equal" in wts else wts[0])
        return (k, w)

    def slice_points(self, knowledge, weighting):
        """Rows that stand for (knowledge, weighting): for a policy with several rows that would
        all qualify (e.g. a duration-free policy also run under noisy), the exact match only."""
        out = []
        for p in self.points:
            if not valid_for(p, knowledge, weighting):
                continue
            exact_k = p.knowledge == knowledge or not any(
                q.policy == p.policy and q.knowledge == knowledge and q.variant == p.variant for q in self.points)
            exact_w = p.weighting == weighting or not any(
                q.policy == p.policy and q.weighting == weighting and q.variant == p.variant for q in self.points)
            if exact_k and exact_w:
                out.append(p)
        return out

    @property
    def sliced(self):
        """Does the group hold more than one (knowledge, weighting) setting?"""
        return len(self.modes) > 1 or len(self.weightings) > 1

    def figure_view(self):
        """What the per-row figures draw: the headline slice's rows; when there are more than
        MAX_FIGURE_LINES, Dike at its extreme knob values and the default only (the frontier
        still joins every knob value), then the first rows in table order."""
        k, w = self.headline
        pts = self.slice_points(k, w) if self.sliced else list(self.points)
        dike_all = [p for p in pts if p.policy == "dike"]
        left = []
        if len(pts) > MAX_FIGURE_LINES:
            ws = sorted(set(p.weight for p in dike_all if p.weight == p.weight))
            keep = set(ws[:1] + ws[-1:] + [DEFAULT_KNOB])
            thin = [p for p in pts if p.policy != "dike" or p.weight != p.weight or p.weight in keep]
            left = [p for p in pts if p not in thin]
            pts = thin
        if len(pts) > MAX_FIGURE_LINES:
            left += pts[MAX_FIGURE_LINES:]
            pts = pts[:MAX_FIGURE_LINES]
        by_pol = {}
        for p in self.points:
            p.style_index = 0
        for p in pts:
            if p.policy != "dike":
                p.style_index = by_pol.get(p.policy, 0)
                by_pol[p.policy] = p.style_index + 1
        suffix = " (%s, %s)" % (k, weighting_tag(w)) if self.sliced else ""
        return FigureView(self, pts, [p for p in pts if p.policy != "dike"], dike_all, suffix, left)

    @property
    def title(self):
        return "%s, %s, %s GPUs" % (self.trace, self.load, "{:,}".format(self._gpus))

    @property
    def gpus(self):
        return self._gpus

    @property
    def load_value(self):
        m = re.match(r"load (\S+)$", self.load)
        return _num(m.group(1), float("nan")) if m else float("nan")

    @property
    def jobs(self):
        return int(self.points[0].first.summary["jobs"])

    @property
    def seed_counts(self):
        return sorted(set(p.n for p in self.points))


class FigureView:
    """The part of a group the per-row figures draw (Group.figure_view)."""

    def __init__(self, group, points, baselines, dike, suffix, left_out):
        self.group = group
        self.points = points
        self.baselines = baselines
        self.dike = dike                   # the frontier's knob line(s): every knob value of the slice
        self.title = group.title + suffix
        self.slug = group.slug
        self.gpus = group.gpus
        self.left_out = left_out
        self.seed_counts = sorted(set(p.n for p in points)) or [1]
        self.one_setting = group.sliced

    def label(self, point):
        """A row's name in a figure: without the knowledge and weighting tags when the figure shows
        one setting (its title names it)."""
        if not self.one_setting:
            return point.label
        return point.base_label + (", " + point.variant if point.variant else "")


# ---------------------------------------------------------------------------------------------
# Colours: fixed per baseline policy; Dike on a yellow-orange-red ramp by its knob, the same
# colour for the same w in every figure; other policies get the next free colour in name order.

class Palette:
    def __init__(self, policies):
        self.extra = {}
        self.extra_marker = {}
        for i, p in enumerate(sorted(x for x in set(policies) if x not in BASE_COLORS and x != "dike")):
            self.extra[p] = EXTRA_COLORS[i % len(EXTRA_COLORS)]
            self.extra_marker[p] = EXTRA_MARKERS[i % len(EXTRA_MARKERS)]
        self.ramp = matplotlib.colormaps["YlOrRd"] if hasattr(matplotlib, "colormaps") else cm.get_cmap("YlOrRd")

    def color(self, point):
        if point.policy == "dike":
            w = point.weight if point.weight == point.weight else 0.5
            return self.ramp(0.4 + 0.6 * min(max(w, 0.0), 1.0))
        return BASE_COLORS.get(point.policy) or self.extra[point.policy]

    def marker(self, point):
        if point.policy == "dike":
            return "o"
        return MARKERS.get(point.policy) or self.extra_marker[point.policy]

    def linestyle(self, point):
        return LINESTYLES[getattr(point, "style_index", 0) % len(LINESTYLES)]

    def linewidth(self, point):
        return 2.0 if point.policy == "dike" else 1.3


# ---------------------------------------------------------------------------------------------
# Number formatting

def fnum(v):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1000:
        return "{:,.0f}".format(v)
    if a >= 100:
        return "%.1f" % v
    if a >= 10:
        return "%.2f" % v
    if a >= 1:
        return "%.3f" % v
    return "%.4f" % v


def sig2(x):
    """x with 2 significant digits, no exponent."""
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    d = 1 - int(math.floor(math.log10(abs(x))))
    r = round(x, d)
    return "{:,.{p}f}".format(r, p=max(d, 0))


def time_unit(points, key):
    vals = [p.stats[key][0] for p in points if math.isfinite(p.stats[key][0])]
    if vals and max(vals) >= 36000:
        return ("h", 3600.0)
    return ("s", 1.0)


def cell(point, metric, unit_div, tex=False):
    key, _, _, kind, _ = metric
    m, ci, n = point.stats[key]
    if kind == "time":
        m = m / unit_div
        ci = ci / unit_div if ci is not None else None
    if kind == "count" and m == int(m):
        text = "{:,}".format(int(m))
    elif kind == "count":
        text = "{:,.1f}".format(m)
    else:
        text = fnum(m)
    if ci is not None:
        text += (r" $\pm$ " if tex else " ± ") + sig2(ci)
    return text


def best_values(points):
    best = {}
    for key, _, _, _, better in METRICS:
        vals = [p.stats[key][0] for p in points if math.isfinite(p.stats[key][0])]
        if vals:
            best[key] = max(vals) if better == "high" else min(vals)
    return best


def headers(points, tex=False):
    out = []
    for m in METRICS:
        key, md, tx, kind, _ = m
        h = tx if tex else md
        if kind == "time":
            h += " (%s)" % time_unit(points, key)[0]
        out.append(h)
    return out


def md_table(group):
    pts = group.points
    units = {m[0]: time_unit(pts, m[0])[1] for m in METRICS if m[3] == "time"}
    best = best_values(pts)
    lines = ["| policy | seeds | " + " | ".join(headers(pts)) + " |",
             "|---|---:|" + "---:|" * len(METRICS)]
    for p in pts:
        cells = []
        for m in METRICS:
            t = cell(p, m, units.get(m[0], 1.0))
            if m[0] in best and p.stats[m[0]][0] == best[m[0]]:
                t = "**%s**" % t
            cells.append(t)
        lines.append("| %s | %d | %s |" % (p.label, p.n, " | ".join(cells)))
    return "\n".join(lines)


def tex_escape(s):
    return re.sub(r"([_&%#$])", r"\\\1", s)


def tex_table(group):
    pts = group.points
    units = {m[0]: time_unit(pts, m[0])[1] for m in METRICS if m[3] == "time"}
    best = best_values(pts)
    hs = headers(pts, tex=True)
    out = ["% dike-emu summary table: " + tex_escape(group.title) + " (generated by analysis/report.py)",
           "% needs \\usepackage{booktabs}",
           "\\begin{table}[t]",
           "\\centering",
           "\\small",
           "\\setlength{\\tabcolsep}{3pt}",
           "\\begin{tabular}{l r " + " ".join("r" for _ in METRICS) + "}",
           "\\toprule",
           "policy & seeds & " + " & ".join(hs) + " \\\\",
           "\\midrule"]
    for p in pts:
        cells = []
        for m in METRICS:
            t = cell(p, m, units.get(m[0], 1.0), tex=True).replace(",", "{,}")
            if m[0] in best and p.stats[m[0]][0] == best[m[0]]:
                t = "\\textbf{%s}" % t
            cells.append(t)
        out.append("%s & %d & %s \\\\" % (tex_escape(p.label), p.n, " & ".join(cells)))
    cap = "%s: %s jobs on %d GPUs. Bold: best in the column." % (
        tex_escape(group.title), "{:,}".format(group.jobs).replace(",", "{,}"), group.gpus)
    if any(p.n > 1 for p in pts):
        cap += r" Mean over seeds $\pm$ half-width of the 95\% confidence interval (Student $t$)."
    out += ["\\bottomrule", "\\end{tabular}", "\\caption{%s}" % cap, "\\label{tab:%s}" % group.slug,
            "\\end{table}", ""]
    return "\n".join(out)


def csv_value(v):
    """Exact text of a value: integers as integers, floats as Python's shortest round-trip repr."""
    if v is None:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return str(int(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


def csv_text(header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([csv_value(v) for v in r])
    return buf.getvalue()


def group_csv(group):
    header = ["trace", "load", "row", "policy", "fairness_weight", "duration_knowledge", "tenant_weights",
              "variant", "seeds", "seed_list", "jobs", "gpus"]
    for m in METRICS:
        header += [m[0], m[0] + "_ci95"]
    rows = []
    for p in group.points:
        row = [group.trace, group.load, p.label, p.policy, p.weight if p.weight is not None else "",
               p.knowledge, p.weighting, p.variant, p.n, " ".join(str(s) for s in p.seeds),
               int(p.first.summary["jobs"]), group.gpus]
        for m in METRICS:
            mean, ci, _ = p.stats[m[0]]
            row += [mean, ci]
        rows.append(row)
    return csv_text(header, rows)


# ---------------------------------------------------------------------------------------------
# Dike against the baselines (generated text: where Dike wins and where it loses)

def compare(group, dike=None, baselines=None, label=None):
    """(Markdown table, list of sentences) comparing Dike's rows with the best baseline per metric
    (by default every row of the group; the report passes the headline slice's rows)."""
    lab = label or (lambda p: p.label)
    dike = group.dike if dike is None else dike
    baselines = group.baselines if baselines is None else baselines
    if not dike or not baselines:
        return None, []
    units = {m[0]: time_unit(group.points, m[0]) for m in METRICS if m[3] == "time"}

    def show(key, v):
        if key in units:
            u, div = units[key]
            return "%s %s" % (fnum(v / div), u)
        if key == "preemptions":
            return "{:,.0f}".format(v) if v == int(v) else "{:,.1f}".format(v)
        return fnum(v)

    def better(key, a, b):
        """+1 if a is better than b, -1 if worse, 0 if equal (relative 1e-9)."""
        hi = dict((m[0], m[4]) for m in METRICS)[key] == "high"
        if abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300):
            return 0
        return (1 if a > b else -1) if hi else (1 if a < b else -1)

    def overlap(p, q, key):
        (m1, c1, _), (m2, c2, _) = p.stats[key], q.stats[key]
        if c1 is None and c2 is None:
            return False
        return abs(m1 - m2) <= (c1 or 0) + (c2 or 0)

    head = "| metric | better | best baseline | " + " | ".join(lab(p) for p in dike) + " |"
    lines = [head, "|---|---|---|" + "---:|" * len(dike)]
    wins, losses, ties = [], [], []
    default = next((p for p in dike if p.is_default_knob and not p.variant), None)
    dwin, dlose = [], []
    for key, _, _, _, hl in METRICS:
        if key in NOT_COMPARED:
            continue
        base = [p for p in baselines if math.isfinite(p.stats[key][0])]
        if not base:
            continue
        sign = 1 if hl == "high" else -1
        bb = max(base, key=lambda p: (sign * p.stats[key][0], -group.points.index(p)))
        bv = bb.stats[key][0]
        ties_b = [lab(p) for p in base if p.stats[key][0] == bv]
        cells = []
        for d in dike:
            v = d.stats[key][0]
            rel = "" if bv == 0 else " (%+.1f%%)" % (100.0 * (v - bv) / abs(bv))
            mark = {1: " ✓", -1: "", 0: " ="}[better(key, v, bv)]
            cells.append(show(key, v) + rel + mark)
        lines.append("| %s | %s | %s: %s | %s |" % (METRIC_NAMES[key], "higher" if hl == "high" else "lower",
                                                    " = ".join(ties_b), show(key, bv), " | ".join(cells)))
        bd = max(dike, key=lambda p: (sign * p.stats[key][0], -group.points.index(p)))
        dv = bd.stats[key][0]
        c = better(key, dv, bv)
        ov = " (within the 95% CIs)" if c != 0 and overlap(bd, bb, key) else ""
        winners = [lab(d) for d in dike if better(key, d.stats[key][0], bv) > 0]
        if c > 0:
            wins.append("%s (%s: %s vs %s's %s)%s" % (METRIC_NAMES[key], ", ".join(winners), show(key, dv),
                                                     lab(bb), show(key, bv), ov))
        elif c < 0:
            losses.append("%s (best Dike, %s: %s vs %s's %s)%s" % (METRIC_NAMES[key], lab(bd), show(key, dv),
                                                                  lab(bb), show(key, bv), ov))
        else:
            ties.append("%s (%s, like %s)" % (METRIC_NAMES[key], show(key, dv), lab(bb)))
        if default is not None:
            c0 = better(key, default.stats[key][0], bv)
            (dwin if c0 > 0 else dlose if c0 < 0 else []).append(METRIC_NAMES[key])
    text = []
    text.append("Dike beats the best baseline on %d of %d metrics at some knob value%s" %
                (len(wins), len(wins) + len(losses) + len(ties), ": " + "; ".join(wins) + "." if wins else "."))
    if losses:
        text.append("**Dike loses** to the best baseline at every knob value on %d metric%s: %s." %
                    (len(losses), "" if len(losses) == 1 else "s", "; ".join(losses)))
    else:
        text.append("There is no metric on which every Dike knob value loses to the best baseline.")
    if ties:
        text.append("Ties: %s." % "; ".join(ties))
    if default is not None:
        text.append("At the default knob (w = 0.5) Dike is better than the best baseline on %s, and worse on %s."
                    % (", ".join(dwin) if dwin else "no metric", ", ".join(dlose) if dlose else "no metric"))
    text.append("The best baseline is chosen per metric, and so is Dike's knob value: no single policy "
                "or knob value is the one compared on every line.")
    return "\n".join(lines), text


# ---------------------------------------------------------------------------------------------
# Checks of issue 12: dominance, knob monotonicity, the TitanSched target

def dominates(base, dike):
    """A baseline dominates Dike when its average JCT is lower, its unfair fraction lower and its
    Jain's index higher, all three strictly, at full precision (means over seeds). A tie on any
    of the three is not domination; NaN compares false, so it never dominates either."""
    return (base.value("avg_jct") < dike.value("avg_jct") and
            base.value("unfair_fraction") < dike.value("unfair_fraction") and
            base.value("jain") > dike.value("jain"))


class DominanceCheck:
    """One Dike default-knob row against every baseline of its setting."""

    def __init__(self, dike, baselines):
        self.dike = dike
        self.knowledge = dike.knowledge
        # a Dike that uses no tenant weights is compared with every weighting of the baselines
        self.weighting = dike.weighting if uses_weights(dike.policy) else ANY_WEIGHTING
        self.baselines = baselines
        self.dominators = [b for b in baselines if dominates(b, dike)]

    @property
    def passed(self):
        return not self.dominators


def dominance_checks(group):
    """A DominanceCheck per Dike default-knob row of the group, in table order."""
    return [DominanceCheck(d, [b for b in group.baselines if group.comparable(b, d)])
            for d in group.dike if d.is_default_knob]


class MonotonicityCheck:
    """Dike's knob on one setting: unfair(w=1) <= unfair(w=0) and avg JCT(w=0) <= avg JCT(w=1)."""

    def __init__(self, w0, w1):
        self.w0, self.w1 = w0, w1
        self.knowledge, self.weighting = w0.knowledge, w0.weighting
        self.fair_ok = w1.value("unfair_fraction") <= w0.value("unfair_fraction")
        self.jct_ok = w0.value("avg_jct") <= w1.value("avg_jct")

    @property
    def passed(self):
        return self.fair_ok and self.jct_ok


def monotonicity_checks(group):
    """A MonotonicityCheck per setting (knowledge, weighting, other Dike keys) with rows at w = 0
    and w = 1."""
    by = {}
    for d in group.dike:
        if d.weight in (0.0, 1.0):
            by.setdefault((d.knowledge, d.weighting, d.variant), {})[d.weight] = d
    return [MonotonicityCheck(ws[0.0], ws[1.0]) for ws in by.values() if 0.0 in ws and 1.0 in ws]


def setting_text(knowledge, weighting, variant=""):
    return "%s, %s%s" % (knowledge, weighting_tag(weighting), ", " + variant if variant else "")


def dominance_lines(group, checks):
    u, div = time_unit(group.points, "avg_jct")
    out = []
    for c in checks:
        where = setting_text(c.knowledge, c.weighting, c.dike.variant)
        if c.passed:
            out.append("✓ no baseline dominates Dike (%s): %d baseline%s compared" %
                       (where, len(c.baselines), "" if len(c.baselines) == 1 else "s"))
            continue
        d = c.dike
        out.append("✗ dominated (%s) by %s" % (where, "; ".join(
            "%s (avg JCT %s %s vs %s %s, unfair %s vs %s, Jain %s vs %s)" %
            (b.label, fnum(b.value("avg_jct") / div), u, fnum(d.value("avg_jct") / div), u,
             fnum(b.value("unfair_fraction")), fnum(d.value("unfair_fraction")),
             fnum(b.value("jain")), fnum(d.value("jain"))) for b in c.dominators)))
    return out


def monotonicity_lines(group, checks):
    u, div = time_unit(group.points, "avg_jct")
    out = []
    for c in checks:
        a, b = c.w0, c.w1
        out.append("%s knob %s (%s): unfair fraction %s at w=1 %s %s at w=0; avg JCT %s %s at w=0 %s %s %s at w=1" %
                   ("✓" if c.passed else "✗", "monotone" if c.passed else "NOT monotone",
                    setting_text(c.knowledge, c.weighting, a.variant),
                    fnum(b.value("unfair_fraction")), "≤" if c.fair_ok else ">", fnum(a.value("unfair_fraction")),
                    fnum(a.value("avg_jct") / div), u, "≤" if c.jct_ok else ">", fnum(b.value("avg_jct") / div), u))
    return out


# The target of issue 12: Dike's default knob on the full TitanSched Philly trace at load 1 on
# 512 GPUs with oracle durations.
TARGET_TRACE, TARGET_JOBS, TARGET_GPUS, TARGET_LOAD = "philly.csv", 82247, 512, 1.0
TARGET_JCT_PCT, TARGET_UNFAIR, TARGET_PPJ = 5.0, 0.01, 2.0


def is_target_group(group):
    return (group.trace == TARGET_TRACE and group.jobs == TARGET_JOBS and group.gpus == TARGET_GPUS
            and group.load_value == TARGET_LOAD)


def target_rows(group):
    """[(dike row, best baseline by avg JCT, best baseline by unfair fraction, JCT % above,
    unfair difference, preemptions per job)] for each oracle Dike default row of the target group."""
    if not is_target_group(group):
        return []
    out = []
    for d in group.dike:
        if not d.is_default_knob or d.knowledge != "oracle":
            continue
        base = [b for b in group.baselines if group.comparable(b, d)]
        bj = [b for b in base if math.isfinite(b.value("avg_jct"))]
        bu = [b for b in base if math.isfinite(b.value("unfair_fraction"))]
        if not bj or not bu:
            continue
        best_j = min(bj, key=lambda b: b.value("avg_jct"))
        best_u = min(bu, key=lambda b: b.value("unfair_fraction"))
        pct = 100.0 * (d.value("avg_jct") - best_j.value("avg_jct")) / best_j.value("avg_jct")
        du = d.value("unfair_fraction") - best_u.value("unfair_fraction")
        out.append((d, best_j, best_u, pct, du, d.value("preemptions_per_job")))
    return out


def target_lines(group):
    u, div = time_unit(group.points, "avg_jct")
    out = []
    for d, bj, bu, pct, du, ppj in target_rows(group):
        out.append("Target (full TitanSched Philly, load 1, 512 GPUs, %s): Dike w=%s avg JCT %s %s, "
                   "%+.1f%% vs the best baseline's (%s, %s %s; target ≤ +%g%%: %s); unfair fraction %s, "
                   "%+.4f vs the best baseline's (%s, %s; target ≤ +%g: %s); %.2f preemptions per job "
                   "(target ≤ %g: %s)" %
                   (setting_text(d.knowledge, d.weighting, d.variant), fmt_w(d.weight) if d.weight == d.weight
                    else fmt_w(DEFAULT_KNOB), fnum(d.value("avg_jct") / div), u, pct, bj.label,
                    fnum(bj.value("avg_jct") / div), u, TARGET_JCT_PCT, "✓" if pct <= TARGET_JCT_PCT else "✗",
                    fnum(d.value("unfair_fraction")), du, bu.label, fnum(bu.value("unfair_fraction")),
                    TARGET_UNFAIR, "✓" if du <= TARGET_UNFAIR else "✗", ppj, TARGET_PPJ,
                    "✓" if ppj <= TARGET_PPJ else "✗"))
    return out


def checks_summary(groups, dom, mono):
    """Markdown lines for the top of the report: groups passing the dominance check per
    knowledge mode (and weighting), and the monotonicity check."""
    lines = []
    modes = sorted(set(c.knowledge for cs in dom.values() for c in cs), key=knowledge_order)
    if modes:
        lines += ["**Dominance check** (no baseline has a lower average JCT, a lower unfair fraction and a "
                  "higher Jain's index than Dike at its default knob w = %g, all at once; compared with the "
                  "baselines of the same duration knowledge and tenant weighting, and for a Dike that uses no "
                  "tenant weights, with the baselines of every weighting):" % DEFAULT_KNOB, ""]
        for k in modes:
            gs = [g for g in groups if any(c.knowledge == k for c in dom[g.key])]
            ok = [g for g in gs if all(c.passed for c in dom[g.key] if c.knowledge == k)]
            wts = sorted(set(c.weighting for g in gs for c in dom[g.key] if c.knowledge == k), key=weighting_order)
            per_w = []
            if len(wts) > 1:
                for w in wts:
                    gw = [g for g in gs if any(c.knowledge == k and c.weighting == w for c in dom[g.key])]
                    okw = [g for g in gw if all(c.passed for c in dom[g.key] if c.knowledge == k and c.weighting == w)]
                    per_w.append("%s %d of %d" % (weighting_tag(w), len(okw), len(gw)))
            bad = [g.title for g in gs if g not in ok]
            lines.append("- %s: **%d of %d** groups pass%s%s" %
                         (k, len(ok), len(gs), " (by weighting: %s)" % ", ".join(per_w) if per_w else "",
                          "; failing: %s" % "; ".join(bad) if bad else ""))
        lines.append("")
    mgs = [g for g in groups if mono[g.key]]
    if mgs:
        mok = [g for g in mgs if all(c.passed for c in mono[g.key])]
        nset = sum(len(mono[g.key]) for g in mgs)
        nok = sum(1 for g in mgs for c in mono[g.key] if c.passed)
        lines += ["**Knob monotonicity** (unfair fraction at w = 1 no higher than at w = 0, and average JCT "
                  "at w = 0 no higher than at w = 1): **%d of %d** groups pass (%d of %d settings)." %
                  (len(mok), len(mgs), nok, nset), ""]
    return lines


def dominance_csv(groups, dom):
    header = ["trace", "load", "gpus", "duration_knowledge", "tenant_weights", "dike_row", "baseline_row",
              "dike_avg_jct", "baseline_avg_jct", "dike_unfair_fraction", "baseline_unfair_fraction",
              "dike_jain", "baseline_jain", "dominates"]
    rows = []
    for g in groups:
        for c in dom[g.key]:
            d = c.dike
            for b in c.baselines:
                rows.append([g.trace, g.load, g.gpus, c.knowledge, c.weighting, d.label, b.label,
                             d.value("avg_jct"), b.value("avg_jct"), d.value("unfair_fraction"),
                             b.value("unfair_fraction"), d.value("jain"), b.value("jain"), int(dominates(b, d))])
    return csv_text(header, rows)


def monotonicity_csv(groups, mono):
    header = ["trace", "load", "gpus", "duration_knowledge", "tenant_weights", "variant", "unfair_fraction_w0",
              "unfair_fraction_w1", "avg_jct_w0", "avg_jct_w1", "fairness_ok", "jct_ok", "pass"]
    rows = []
    for g in groups:
        for c in mono[g.key]:
            rows.append([g.trace, g.load, g.gpus, c.knowledge, c.weighting, c.w0.variant,
                         c.w0.value("unfair_fraction"), c.w1.value("unfair_fraction"), c.w0.value("avg_jct"),
                         c.w1.value("avg_jct"), int(c.fair_ok), int(c.jct_ok), int(c.passed)])
    return csv_text(header, rows)

# ---------------------------------------------------------------------------------------------
# Figures

def setup_matplotlib():
    plt.rcParams.update({
        "figure.dpi": 100, "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9,
        "legend.fontsize": 8, "xtick.labelsize": 8, "ytick.labelsize": 8, "axes.grid": True,
        "grid.alpha": 0.3, "grid.linewidth": 0.6, "lines.linewidth": 1.4, "savefig.bbox": "tight",
        "pdf.fonttype": 42, "svg.hashsalt": "dike-emu", "path.simplify": True,
    })


class FigureWriter:
    def __init__(self, folder, formats, dpi):
        self.folder = folder
        self.formats = formats
        self.dpi = dpi
        self.written = []

    def save(self, fig, name, layout=True):
        # Subplot spacing here (unless the figure did its own); bbox_inches="tight" (rcParams) then
        # takes in what lies outside the axes (legends on the right, suptitles).
        for ax in fig.axes:
            for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
                if scale == "log":
                    plain_log_labels(axis)
        if layout:
            fig.tight_layout(pad=0.4)
        os.makedirs(self.folder, exist_ok=True)
        paths = []
        for fmt in self.formats:
            p = os.path.join(self.folder, "%s.%s" % (name, fmt))
            meta = PDF_META if fmt == "pdf" else PNG_META if fmt == "png" else None
            fig.savefig(p, format=fmt, dpi=self.dpi, metadata=meta)
            paths.append(p)
        plt.close(fig)
        self.written += paths
        return paths


def subsample_cdf(x):
    """Sorted values and their empirical CDF, thinned to at most ~2,000 points for plotting."""
    x = np.sort(x)
    n = len(x)
    y = np.arange(1, n + 1) / n
    if n > 2000:
        idx = np.unique(np.concatenate([np.linspace(0, n - 1, 2000).astype(int), [n - 1]]))
        x, y = x[idx], y[idx]
    return x, y


def finished(run):
    j = run.jobs
    return j[j["finish_time"] >= 0]


def legend_right(ax, handles=None, labels=None, title=None):
    """Legend outside the axes, on the right, one entry per line."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8,
                  title=title, title_fontsize=8, borderaxespad=0.0)


def fig_cdf(group, pal, fw, what):
    """JCT CDF (one panel), or rho CDF and its tail 1 - CDF on log-log axes (two panels)."""
    seeds = "" if group.seed_counts == [1] else " (jobs of all seeds pooled)"
    if what == "jct":
        fig, ax = plt.subplots(figsize=(8.0, 4.0))
        axes = [ax]
    else:
        fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.9))
    nmax = 1
    for p in group.points:
        vals = np.concatenate([finished(r)[what] for r in p.seed_runs])
        vals = vals[np.isfinite(vals) & (vals > 0)]
        if not len(vals):
            continue
        nmax = max(nmax, len(vals))
        x, y = subsample_cdf(vals)
        kw = dict(color=pal.color(p), ls=pal.linestyle(p), lw=pal.linewidth(p), label=group.label(p))
        axes[0].step(x, y, where="post", **kw)
        if what != "jct":
            # fraction of jobs with rho > x: the unfair tail that the CDF squeezes against y = 1
            sx = np.sort(vals)
            tail = 1.0 - np.arange(1, len(sx) + 1) / len(sx)
            keep = tail > 0
            sx, tail = sx[keep], tail[keep]
            if len(sx) > 2000:
                idx = np.unique(np.linspace(0, len(sx) - 1, 2000).astype(int))
                sx, tail = sx[idx], tail[idx]
            axes[1].step(sx, tail, where="post", **kw)
    for ax in axes:
        ax.set_xscale("log")
    axes[0].set_ylim(0, 1.0)
    axes[0].set_ylabel("fraction of finished jobs")
    if what == "jct":
        axes[0].set_xlabel("job completion time (s, log scale)")
        axes[0].set_title("JCT CDF — %s%s" % (group.title, seeds))
        legend_right(axes[0])
        return fw.save(fig, "%s-jct_cdf" % group.slug)
    for ax in axes:
        ax.axvline(1.0, color="black", lw=1.0, ls="--", zorder=0)
    axes[0].text(1.0, 0.03, " ρ = 1", fontsize=8, ha="left", va="bottom")
    axes[1].text(1.0, 1.5 / nmax, " ρ = 1", fontsize=8, ha="left", va="bottom")
    axes[0].set_xlabel("ρ = JCT / T_ideal (log scale; ρ ≤ 1 is fair)")
    axes[0].set_title("CDF", fontsize=9)
    axes[1].set_yscale("log")
    axes[1].set_ylim(1.0 / nmax, 1.0)
    axes[1].set_xlabel("ρ (log scale)")
    axes[1].set_ylabel("fraction of jobs with ρ > x (log)")
    axes[1].set_title("tail: 1 − CDF", fontsize=9)
    fig.suptitle("Finish-time fairness ρ — %s%s" % (group.title, seeds), fontsize=10)
    legend_right(axes[1])
    return fw.save(fig, "%s-rho_cdf" % group.slug)


def binned(t, ys, nbins=400):
    """Time series averaged over at most nbins equal bins of samples."""
    n = len(t)
    if n <= nbins:
        return t, ys
    edges = np.linspace(0, n, nbins + 1).astype(int)
    edges = np.unique(edges)
    starts = edges[:-1]
    counts = np.diff(edges)
    tb = np.add.reduceat(t, starts) / counts
    out = []
    for y in ys:
        y = np.asarray(y, dtype=float)
        if y.ndim == 1:
            out.append(np.add.reduceat(y, starts) / counts)
        else:
            out.append(np.add.reduceat(y, starts, axis=0) / counts[:, None])
    return tb, out


def duration_text(s):
    if s >= 2 * 3600:
        return "%.3g h" % (s / 3600)
    if s >= 120:
        return "%.3g min" % (s / 60)
    return "%.3g s" % s


def time_axis(tmax):
    if tmax > 3 * 86400:
        return ("days", 86400.0)
    if tmax > 3 * 3600:
        return ("hours", 3600.0)
    return ("s", 1.0)


def fig_timeseries(group, pal, fw):
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8.5, 5.0), sharex=True)
    tmax = max((float(p.first.timeseries["time"][-1]) for p in group.points if len(p.first.timeseries["time"])),
               default=1.0)
    unit, div = time_axis(tmax)
    for p in group.points:
        ts = p.first.timeseries
        if not len(ts["time"]):
            continue
        t, (busy, queued) = binned(ts["time"].astype(float), [ts["busy_gpus"], ts["queued"]])
        kw = dict(color=pal.color(p), ls=pal.linestyle(p), lw=pal.linewidth(p) * 0.8, label=group.label(p))
        a1.plot(t / div, busy, **kw)
        a2.plot(t / div, queued, **kw)
    if group.gpus:
        a1.axhline(group.gpus, color="black", lw=0.8, ls=":", zorder=0)
        a1.text(0, group.gpus, "cluster: %d GPUs" % group.gpus, fontsize=7, va="bottom")
        a1.set_ylim(0, group.gpus * 1.08)
    a1.set_ylabel("busy GPUs")
    a2.set_ylabel("jobs queued")
    a2.set_xlabel("simulated time (%s)" % unit)
    a2.set_ylim(bottom=0)
    t0 = group.points[0].first.timeseries["time"]
    n = len(t0)
    step = float(t0[1] - t0[0]) if n > 1 else 0.0
    binw = step * max(1, n // 400) if n > 400 else step
    a1.set_title("Busy GPUs and queued jobs — %s" % group.title)
    fig.text(0.01, 0.005, "seed %d; each line is the mean over bins of %s" %
             (group.points[0].first.seed, duration_text(binw)), fontsize=7, color="#555555")
    legend_right(a1)
    fig.align_ylabels([a1, a2])
    return fw.save(fig, "%s-timeseries" % group.slug)


def fig_tenant_share(group, fw):
    pts = group.points
    # Tenants by name over the group; the biggest 11 by GPU-seconds in the first run get their own
    # colour, the rest are summed as "other".
    first = pts[0].first
    names = first.tenant_names()
    order = np.argsort(-first.tenants["gpu_seconds"], kind="stable") if "gpu_seconds" in first.tenants.dtype.names \
        else np.arange(len(names))
    top = [names[i] for i in order[:11]] if len(names) > 12 else [names[i] for i in order]
    has_other = len(names) > len(top)
    colours = [plt.get_cmap("tab20")(i % 20) for i in range(len(top))] + ["#cccccc"]
    ncols = min(3, len(pts))
    nrows = int(math.ceil(len(pts) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.9 * ncols + 1.6, 1.7 * nrows + 0.7), sharex=True,
                             sharey=True, squeeze=False)
    tmax = max((float(p.first.timeseries["time"][-1]) for p in pts if len(p.first.timeseries["time"])), default=1.0)
    unit, div = time_axis(tmax)
    G = group.gpus or 1
    for ax, p in zip(axes.flat, pts):
        r = p.first
        ts = r.timeseries
        tg = np.asarray(ts["tenant_gpus"], dtype=float)
        if tg.ndim != 2 or not len(ts["time"]):
            ax.set_visible(False)
            continue
        rn = r.tenant_names()
        cols = np.zeros((tg.shape[0], len(top) + 1))
        for j, nm in enumerate(rn[:tg.shape[1]]):
            k = top.index(nm) if nm in top else len(top)
            cols[:, k] += tg[:, j]
        t, (cols,) = binned(ts["time"].astype(float), [cols], nbins=200)
        share = cols / G
        series = [share[:, k] for k in range(len(top) + (1 if has_other else 0))]
        ax.stackplot(t / div, *series, colors=colours[:len(series)], lw=0, rasterized=True)
        ax.set_title(group.label(p), fontsize=8, pad=2)
        ax.set_ylim(0, 1.02)
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(pts):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("share of GPUs")
    for ax in axes[-1, :]:
        ax.set_xlabel("time (%s)" % unit)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[i]) for i in range(len(top))]
    labels = list(top)
    if has_other:
        handles.append(plt.Rectangle((0, 0), 1, 1, color=colours[-1]))
        labels.append("other %d tenants" % (len(names) - len(top)))
    fig.suptitle("Share of the cluster's %d GPUs by tenant — %s (seed %d)" % (G, group.title, first.seed),
                 fontsize=10)
    height = 1.7 * nrows + 0.7
    fig.tight_layout(pad=0.4, h_pad=0.5, w_pad=0.4, rect=(0, 0, 1, 1 - 0.3 / height))
    fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.95), ncol=1, frameon=False,
               fontsize=7, title="tenant", title_fontsize=8)
    return fw.save(fig, "%s-tenant_share" % group.slug, layout=False)


# ---------------------------------------------------------------------------------------------
# Per tenant: weight, GPUs held against entitlement, received against entitled share

TENANT_SHARE_COLUMNS = ("weight", "weight_share", "avg_gpus", "entitlement", "gpu_share", "entitled_share")


def has_tenant_shares(run):
    return all(c in run.tenants.dtype.names for c in TENANT_SHARE_COLUMNS)


def tenant_rows(group, limit=12):
    """Tenants of the group's first run by weight share, then GPU-seconds (the largest first);
    beyond @p limit the rest are summed into one "other N tenants" row. Returns [(label, [names])]."""
    first = group.points[0].first
    names = first.tenant_names()
    t = first.tenants
    order = sorted(range(len(names)), key=lambda i: (-float(t["weight_share"][i]), -float(t["gpu_seconds"][i]), i))
    rows = [(names[i], [names[i]]) for i in order[:limit]]
    if len(order) > limit:
        rest = [names[i] for i in order[limit:]]
        rows.append(("other %d tenants" % len(rest), rest))
    return rows


def tenant_sums(run, members):
    """Sums of the share columns over the named tenants of @p run (shares add up; so do GPUs)."""
    idx = {n: i for i, n in enumerate(run.tenant_names())}
    t = run.tenants
    out = {c: 0.0 for c in TENANT_SHARE_COLUMNS}
    for n in members:
        if n in idx:
            for c in TENANT_SHARE_COLUMNS:
                out[c] += float(t[c][idx[n]])
    return out


def tenant_table(group):
    """Markdown: one row per tenant (the 12 largest by weight), then per configuration its received
    share of GPU-seconds and its entitled share (lowest seed). When all configurations share the
    weights, they are two columns of their own; else each cell adds the weight share."""
    pts = [p for p in group.points if has_tenant_shares(p.first)]
    if not pts:
        return ""
    rows = tenant_rows(group)
    first = pts[0].first
    shared = all(p.first.tenant_names() == first.tenant_names() and
                 np.array_equal(p.first.tenants["weight"], first.tenants["weight"]) for p in pts)
    what = "received / entitled" + ("" if shared else " (weight share)")
    head = ["tenant"] + (["weight", "weight share"] if shared else []) + \
        ["%s: %s" % (md_escape(p.label), what) for p in pts]
    lines = ["| " + " | ".join(head) + " |", "|---|" + ("---:|---:|" if shared else "") + "---:|" * len(pts)]
    for label, members in rows:
        cells = [md_escape(label)]
        if shared:
            base = tenant_sums(first, members)
            cells += [fnum(base["weight"]) if len(members) == 1 else "–", "%.1f%%" % (100 * base["weight_share"])]
        for p in pts:
            s = tenant_sums(p.first, members)
            cell = "%.1f%% / %.1f%%" % (100 * s["gpu_share"], 100 * s["entitled_share"])
            if not shared:
                cell += " (%.1f%%)" % (100 * s["weight_share"])
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def tenant_csv(group):
    """Every tenant of every configuration (lowest seed), full precision."""
    header = ["configuration", "seed", "tenant", "name", "jobs", "gpu_seconds"] + list(TENANT_SHARE_COLUMNS)
    rows = []
    for p in group.points:
        r = p.first
        if not has_tenant_shares(r):
            continue
        t = r.tenants
        for i, name in enumerate(r.tenant_names()):
            rows.append([p.label, r.seed, int(t["tenant"][i]), name, int(t["jobs"][i]), float(t["gpu_seconds"][i])]
                        + [float(t[c][i]) for c in TENANT_SHARE_COLUMNS])
    return csv_text(header, rows)


def fig_tenant_entitlement(group, pal, fw):
    """Received share of GPU-seconds against entitled share, one marker per (configuration, tenant):
    on the diagonal a tenant got what weighted max-min fairness entitled it to."""
    pts = [p for p in group.points if has_tenant_shares(p.first)]
    if not pts:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    lo = 1.0
    for p in pts:
        t = p.first.tenants
        x = np.asarray(t["entitled_share"], dtype=float)
        y = np.asarray(t["gpu_share"], dtype=float)
        keep = (x > 0) & (y > 0)
        if keep.any():
            lo = min(lo, float(x[keep].min()), float(y[keep].min()))
        ax.scatter(x[keep], y[keep], s=22, marker=pal.marker(p), facecolors="none" if p.policy != "dike" else pal.color(p),
                   edgecolors=pal.color(p), linewidths=1.0, alpha=0.85, label=p.label)
    log = lo < 0.02
    lim_lo = 10 ** math.floor(math.log10(lo)) if log else 0.0
    ax.plot([lim_lo or 1e-9, 1], [lim_lo or 1e-9, 1], color="#888888", lw=0.8, ls="--", zorder=0, label="received = entitled")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlim(lim_lo, 1)
    ax.set_ylim(lim_lo, 1)
    ax.set_xlabel("entitled share (weighted max-min water-filling over demand)")
    ax.set_ylabel("received share of GPU-seconds")
    ax.set_title("Per tenant: received vs entitled share — %s (seed %d)" % (group.title, pts[0].first.seed), fontsize=9)
    legend_right(ax, title="policy (one marker per tenant)")
    return fw.save(fig, "%s-tenant_entitlement" % group.slug)


def fig_frontier(group, pal, fw):
    """Average JCT against max rho and against the unfair fraction: Dike's points joined in knob
    order, baselines as labelled markers. With several seeds: each seed a small dot, the mean a
    marker with its 95% CI as thin bars (cut at the axes, which are set by the seeds' values)."""
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 4.0), sharey=True)
    u, div = time_unit(group.points, "avg_jct")
    ys_all = []

    def draw(ax, p, xkey, marker, ms, z, label=None):
        x, y = p.stats[xkey][0], p.stats["avg_jct"][0] / div
        xe, ye = p.stats[xkey][1], p.stats["avg_jct"][1]
        if p.n > 1:
            sx = [r.summary[xkey] for r in p.seed_runs]
            sy = [r.summary["avg_jct"] / div for r in p.seed_runs]
            ax.plot(sx, sy, ".", ms=3, color=pal.color(p), alpha=0.6, zorder=z - 1)
            ax.errorbar([x], [y], xerr=None if xe is None else [xe], yerr=None if ye is None else [ye / div],
                        fmt="none", ecolor=pal.color(p), alpha=0.5, elinewidth=0.7, capsize=2, zorder=z - 1)
            xs_seen.extend(sx)
            ys_all.extend(sy)
        ax.plot([x], [y], marker, ms=ms, color=pal.color(p), mec="black", mew=0.5, zorder=z, ls="none",
                label=label)
        xs_seen.append(x)
        ys_all.append(y)
        return x, y

    for ax, xkey, xlabel in ((axes[0], "max_rho", "max ρ (lower is fairer)"),
                             (axes[1], "unfair_fraction", "unfair fraction: jobs with ρ > 1")):
        xs_seen = []
        variants = {}
        for p in group.dike:
            variants.setdefault(p.variant, []).append(p)
        for vi, (var, plist) in enumerate(sorted(variants.items())):
            plist = sorted(plist, key=lambda p: p.weight)
            ax.plot([p.stats[xkey][0] for p in plist], [p.stats["avg_jct"][0] / div for p in plist],
                    color="#b2182b", lw=1.2, ls=LINESTYLES[vi % 4], zorder=1,
                    label="dike, w = " + ", ".join(fmt_w(p.weight) for p in plist) + (" (%s)" % var if var else ""))
            for p in plist:
                x, y = draw(ax, p, xkey, "o", 6, 4)
                ax.annotate("w=%s" % fmt_w(p.weight), (x, y), textcoords="offset points", xytext=(-6, 3),
                            ha="right", fontsize=7, color="#67000d")
        for p in group.baselines:
            x, y = draw(ax, p, xkey, pal.marker(p), 7, 3, label=group.label(p))
            ax.annotate(group.label(p), (x, y), textcoords="offset points", xytext=(5, -9), fontsize=7,
                        color=pal.color(p))
        ax.set_xlabel(xlabel)
        set_limits(ax, "x", xs_seen, log_ok=True)
        if ax.get_xscale() == "log":
            ax.set_xlabel(xlabel + ", log scale")
    set_limits(axes[0], "y", ys_all, log_ok=False)
    axes[0].set_ylabel("average JCT (%s)" % u)
    ci = any(p.n > 1 for p in group.points)
    fig.suptitle("Fairness-efficiency frontier — %s%s" % (group.title, " (dots: seeds; bars: 95% CI of the mean, "
                                                           "cut at the axes)" if ci else ""), fontsize=10)
    legend_right(axes[1])
    return fw.save(fig, "%s-frontier" % group.slug)


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def log_label(v):
    if v <= 0:
        return ""
    if 0.001 <= v < 1e5:
        return "%g" % v
    e = math.log10(v)
    if abs(e - round(e)) < 1e-9:
        return "10" + str(int(round(e))).translate(SUPERSCRIPT)
    return "%.0e" % v


def plain_log_labels(axis):
    """Plain text labels on a log axis (0.1, 1, 10, ..., 10⁶; 2 and 5 between when the axis spans
    less than three decades): readable, and no mathtext to lay out, which is most of the time
    matplotlib spends on a log axis."""
    lo, hi = axis.get_view_interval()
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: log_label(v)))
    if hi / max(lo, 1e-300) < 1000:
        axis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: log_label(v) if v > 0 and round(v / 10 ** math.floor(math.log10(v) + 1e-9)) in (2, 5)
            else ""))
    else:
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def set_limits(ax, which, vals, log_ok):
    """Axis limits from the plotted means with a margin (confidence bars may run off the axes:
    with two seeds, t = 12.7 makes them far wider than the spread of the points); a log scale
    when the values are positive and span more than a factor of 10."""
    vals = [v for v in vals if math.isfinite(v)]
    if not vals:
        return
    lo, hi = min(vals), max(vals)
    setter = ax.set_xlim if which == "x" else ax.set_ylim
    if log_ok and lo > 0 and hi / lo > 10:
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")
        f = (hi / lo) ** 0.12
        setter(lo / f, hi * f)
        return
    pad = (hi - lo) * 0.12 or abs(hi) * 0.05 or 1.0
    setter(lo - pad, hi + pad)


SIZE_BUCKETS = [(1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 128), (129, 256),
                (257, 512), (513, 1 << 30)]


def bucket_label(lo, hi):
    if lo == hi:
        return "%d" % lo
    if hi >= 1 << 30:
        return "≥%d" % lo
    return "%d–%d" % (lo, hi)


def fig_jct_by_size(group, pal, fw):
    present = []
    for lo, hi in SIZE_BUCKETS:
        if any(((r.jobs["num_gpus"] >= lo) & (r.jobs["num_gpus"] <= hi)).any()
               for p in group.points for r in p.seed_runs):
            present.append((lo, hi))
    u, div = time_unit(group.points, "avg_jct")
    fig, ax = plt.subplots(figsize=(min(14.0, max(8.0, 1.0 + 0.08 * len(present) * len(group.points))), 4.0))
    npts = len(group.points)
    width = 0.84 / npts
    xs = np.arange(len(present))
    counts = []
    for lo, hi in present:
        c = [int(((p.first.jobs["num_gpus"] >= lo) & (p.first.jobs["num_gpus"] <= hi)).sum())
             for p in group.points[:1]]
        counts.append(c[0])
    for i, p in enumerate(group.points):
        means, errs = [], []
        for lo, hi in present:
            per_seed = []
            for r in p.seed_runs:
                f = finished(r)
                sel = f[(f["num_gpus"] >= lo) & (f["num_gpus"] <= hi)]["jct"]
                if len(sel):
                    per_seed.append(float(sel.mean()))
            m, ci, _ = mean_ci(per_seed)
            means.append(m / div)
            errs.append(0.0 if ci is None else ci / div)
        yerr = None if not any(errs) else [errs, errs]
        ax.bar(xs - 0.42 + width * (i + 0.5), means, width, color=pal.color(p), edgecolor="black", lw=0.3,
               hatch=None if pal.linestyle(p) == "-" else "//", label=group.label(p), yerr=yerr,
               error_kw=dict(elinewidth=0.6, capsize=1.5, ecolor="#333333"))
    ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels(["%s\n%d jobs" % (bucket_label(lo, hi), c) for (lo, hi), c in zip(present, counts)])
    ax.set_xlabel("job size (GPUs)" + (", jobs of seed %d" % group.points[0].first.seed
                                       if group.seed_counts != [1] else ""))
    ax.set_ylabel("mean JCT of finished jobs (%s, log scale)" % u)
    ci = any(p.n > 1 for p in group.points)
    ax.set_title("JCT by job size — %s%s" % (group.title, "; bars: 95% CI over seeds" if ci else ""))
    ax.grid(True, axis="y", alpha=0.3)
    ax.grid(False, axis="x")
    legend_right(ax)
    return fw.save(fig, "%s-jct_by_size" % group.slug)


def scaling_series(groups):
    """[(label, [(ranks, runs)])] for every (group, point, seed) with several rank counts, else
    one series per group with each run as it is."""
    multi = []
    for g in groups:
        for p in g.points:
            by_seed = {}
            for r in p.all_runs:
                by_seed.setdefault(r.seed, {}).setdefault(r.ranks, []).append(r)
            for s, by_r in sorted(by_seed.items()):
                if len(by_r) > 1:
                    lab = "%s: %s" % (g.title, p.label) + (", seed %d" % s if p.n > 1 else "")
                    multi.append((lab, sorted(by_r.items())))
    return multi


def fig_scaling(groups, fw):
    multi = scaling_series(groups)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.0, 3.8))
    allranks = set()
    if multi:
        colours = plt.get_cmap("tab10")
        for i, (lab, series) in enumerate(multi[:10]):
            rs = [r for r, _ in series]
            wall = [float(np.mean([x.engine_wall for x in runs])) for _, runs in series]
            eps = [float(np.mean([x.events / x.engine_wall if x.engine_wall > 0 else np.nan for x in runs]))
                   for _, runs in series]
            allranks.update(rs)
            a1.plot(rs, wall, "o-", color=colours(i % 10), label=lab)
            a1.plot(rs, [wall[0] * rs[0] / r for r in rs], ":", color=colours(i % 10), lw=0.9)
            a2.plot(rs, eps, "o-", color=colours(i % 10), label=lab)
        note = "dotted: ideal (wall time ∝ 1/ranks)"
        if len(multi) > 10:
            note += "; %d more series in the table" % (len(multi) - 10)
    else:
        for g in groups:
            for p in g.points:
                for r in p.all_runs:
                    allranks.add(r.ranks)
                    a1.plot([r.ranks], [r.engine_wall], "o", color="#1f77b4", alpha=0.6)
                    a2.plot([r.ranks], [r.events / r.engine_wall if r.engine_wall > 0 else np.nan], "o",
                            color="#1f77b4", alpha=0.6)
        note = "no configuration was run with several rank counts: each dot is one run"
    for ax in (a1, a2):
        ys = [y for line in ax.get_lines() for y in line.get_ydata() if np.isfinite(y)]
        if ys:
            ax.set_ylim(0, max(ys) * 1.12 or 1.0)
        ax.set_xlabel("MPI ranks")
        rs = sorted(allranks)
        if rs:
            if rs[-1] / max(rs[0], 1) > 8:
                ax.set_xscale("log", base=2)
            ax.set_xticks(rs)
            ax.set_xticklabels([str(r) for r in rs])
    a1.set_ylabel("engine wall time (s, slowest rank)")
    a2.set_ylabel("events per second (all ranks)")
    a2.yaxis.set_major_formatter(matplotlib.ticker.EngFormatter(sep=""))
    fig.suptitle("Scaling (from /perf) — %s" % note, fontsize=9)
    if multi:
        a1.legend(loc="lower left", fontsize=7, framealpha=0.8)
    return fw.save(fig, "scaling")


# ---------------------------------------------------------------------------------------------
# Report

def rel(path, start_dir):
    return os.path.relpath(path, start_dir).replace(os.sep, "/")


def runs_csv(groups, display):
    header = ["file", "trace", "load", "gpus", "row", "policy", "fairness_weight", "duration_knowledge",
              "tenant_weights", "placement", "seed", "ranks",
              "version", "schema_version", "trace_path", "trace_sha256", "wall_seconds", "engine_wall_seconds",
              "events"] + list(dikeio.SUMMARY_ATTRS)
    rows = []
    for g in groups:
        for p in g.points:
            for r in p.all_runs:
                rows.append([display[r.path], g.trace, g.load, g.gpus, p.label, r.policy,
                             p.weight if p.weight is not None else "", p.knowledge, p.weighting,
                             r.attrs["placement"], r.seed, r.ranks,
                             r.attrs["version"], r.attrs["schema_version"], r.attrs["trace_path"],
                             r.attrs["trace_sha256"], r.attrs["wall_seconds"], r.engine_wall, r.events]
                            + [r.summary[k] for k in dikeio.SUMMARY_ATTRS])
    return csv_text(header, rows)


def scaling_rows(groups, display):
    rows = []
    for g in groups:
        for p in g.points:
            for r in p.all_runs:
                w = r.engine_wall
                rows.append([display[r.path], g.trace, g.load, p.label, r.seed, r.ranks, r.attrs["wall_seconds"], w,
                             r.events, r.events / w if w > 0 else float("nan"),
                             int(r.perf["windows"].max()) if "windows" in r.perf.dtype.names else "",
                             int(r.perf["messages"].sum()) if "messages" in r.perf.dtype.names else "",
                             int(r.perf["bytes_sent"].sum()) if "bytes_sent" in r.perf.dtype.names else ""])
    header = ["file", "trace", "load", "row", "seed", "ranks", "wall_seconds", "engine_wall_seconds", "events",
              "events_per_second", "windows", "messages", "bytes_sent"]
    return header, rows


def common_config(runs):
    """(INI text of the keys equal in every run, {path: [key=value differing]})."""
    items = [config_items(r) for r in runs]
    keys = []
    for it in items:
        for k in it:
            if k not in keys:
                keys.append(k)
    common = [k for k in keys if k != "run.out" and all(k in it for it in items)
              and len(set(it[k] for it in items)) == 1]
    lines, sec = [], None
    for k in common:
        s, kk = k.split(".", 1)
        if s != sec:
            lines.append("[%s]" % s)
            sec = s
        lines.append("%s = %s" % (kk, items[0][k]))
    diffs = {}
    for r, it in zip(runs, items):
        diffs[r.path] = ["%s=%s" % (k, it.get(k, "(unset)")) for k in keys
                         if k not in common and k != "run.out"]
    return "\n".join(lines), diffs


def md_escape(s):
    return s.replace("|", "\\|")


def build(args):
    runs, skipped = dikeio.load_results(args.inputs, strict=args.strict)
    for path, why in skipped:
        print("report: warning: %s" % why, file=sys.stderr)
    if not runs:
        raise dikeio.NotDikeOutput("no complete dike-emu outputs in %s" % " ".join(args.inputs))

    # Display names: relative to the folder given (so a report does not depend on where the
    # results folder was), or the path as given for single files.
    roots = [os.path.abspath(x if os.path.isdir(x) else os.path.dirname(x) or ".") for x in args.inputs]
    root = os.path.commonpath(roots) if roots else os.getcwd()
    display = {r.path: rel(os.path.abspath(r.path), root) for r in runs}

    groups_d = {}
    for r in runs:
        groups_d.setdefault(group_key(r), []).append(r)
    groups = [Group(k, groups_d[k], args.headline_weights) for k in sorted(groups_d)]
    dom = {g.key: dominance_checks(g) for g in groups}
    mono = {g.key: monotonicity_checks(g) for g in groups}
    for g in groups:
        for p in g.points:
            for w in p.warnings:
                print("report: warning: %s" % w, file=sys.stderr)
    pal = Palette([r.policy for r in runs])
    setup_matplotlib()

    report_path = args.report or os.path.join(args.out, "report.md")
    fig_dir = args.figures or os.path.join(args.out, "figures")
    table_dir = None if args.no_tables else (args.tables or os.path.join(args.out, "tables"))
    rdir = os.path.dirname(os.path.abspath(report_path))
    os.makedirs(rdir, exist_ok=True)
    fw = FigureWriter(fig_dir, args.formats, args.dpi)
    written = []

    def write(path, text):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        written.append(path)

    def img(paths, caption):
        png = next((p for p in paths if p.endswith(".png")), paths[0])
        others = [p for p in paths if p is not png]
        line = "![%s](%s)" % (caption, rel(png, rdir))
        if others:
            line += "  \n" + " · ".join("[%s](%s)" % (os.path.splitext(p)[1][1:].upper(), rel(p, rdir)) for p in others)
        return line

    any_ci = any(p.n > 1 for g in groups for p in g.points)
    md = ["# %s" % args.title, ""]
    if args.preamble:
        with open(args.preamble, encoding="utf-8") as f:
            md += [f.read().rstrip(), ""]
    md += ["Generated by `analysis/report.py` from %d run%s in %d (trace, load, cluster size) group%s%s." %
           (len(runs), "" if len(runs) == 1 else "s", len(groups), "" if len(groups) == 1 else "s",
            "; %d input%s skipped (listed at the end)" % (len(skipped), "" if len(skipped) == 1 else "s")
            if skipped else ""),
           "Metrics as in SPEC §6: JCT = finish − submit; queueing = first start − submit; makespan = last "
           "finish − first submit; ρ = JCT / T_ideal (finish-time fairness, ρ ≤ 1 is fair; *unfair* = "
           "fraction of jobs with ρ > 1); Jain's index over tenants; utilisation = allocated GPU-s / "
           "(GPUs × makespan); preemptions over all jobs.",
           ("Rows with several seeds show the mean ± the half-width of its 95% confidence interval "
            "(Student t with n − 1 degrees of freedom)." if any_ci else
            "Each row is one run (one seed), so there are no confidence intervals.")
           + " Bold: best in the column (lowest; highest for Jain and utilisation).", ""]
    if any(g.sliced for g in groups):
        md += ["Rows are named *policy · duration knowledge · tenant weighting* where a group holds several: "
               "knowledge is `scheduler.duration_knowledge` (oracle, noisy, none), shown for the policies that "
               "use durations (sjf, srtf, themis, dike); the weighting is `tenants.weights` (equal, demand, ...), "
               "shown for the policies that use tenant weights (gandiva-fair, drf). Rows without a tag stand "
               "for every mode or weighting (fifo and las use neither). Figures show one setting, the headline: "
               "oracle knowledge and the `%s` weighting (where a group has it); the other settings are in the "
               "tables and the checks." % args.headline_weights, ""]
    md += checks_summary(groups, dom, mono)
    if table_dir and (any(dom.values()) or any(mono.values())):
        md += ["Every comparison of the checks at full precision: %s." % ", ".join(
            "[%s](%s)" % (n, rel(os.path.join(table_dir, n), rdir))
            for n, have in (("dominance.csv", any(dom.values())), ("monotonicity.csv", any(mono.values()))) if have),
            ""]
    targets = [ln for g in groups for ln in target_lines(g)]
    if targets:
        md += ["**Target** of issue 12 (average JCT at most %g%% above the best baseline's, unfair fraction at "
               "most %g above the best baseline's, at most %g preemptions per job):" %
               (TARGET_JCT_PCT, TARGET_UNFAIR, TARGET_PPJ), ""] + ["- " + t for t in targets] + [""]

    def verdict(g):
        cs = dom[g.key]
        if not cs:
            return ""
        ks = sorted(set(c.knowledge for c in cs), key=knowledge_order)
        return "; dominance " + " ".join("%s %s" % ("✓" if all(c.passed for c in cs if c.knowledge == k) else "✗", k)
                                         for k in ks)
    md += ["Groups:", ""] + ["- [%s](#%s) — %s jobs, %d configurations%s" %
                             (g.title, anchor(g.title), "{:,}".format(g.jobs), len(g.points), verdict(g))
                             for g in groups]
    md += ["- [Scaling](#scaling)", "- [Inputs](#inputs)", ""]

    for g in groups:
        seeds = sorted(set(s for p in g.points for s in p.seeds))
        md += ["## %s" % g.title, "",
               "%s jobs on %s GPUs; %d configurations; seed%s %s." %
               ("{:,}".format(g.jobs), "{:,}".format(g.gpus), len(g.points), "" if len(seeds) == 1 else "s",
                ", ".join(str(s) for s in seeds)), ""]
        md += [md_table(g), ""]
        if table_dir:
            base = os.path.join(table_dir, g.slug)
            write(base + ".md", "# %s\n\n%s\n" % (g.title, md_table(g)))
            write(base + ".csv", group_csv(g))
            write(base + ".tex", tex_table(g))
            md += ["Table files: [Markdown](%s), [CSV](%s) (seconds, full precision), [LaTeX](%s) (booktabs)." %
                   (rel(base + ".md", rdir), rel(base + ".csv", rdir), rel(base + ".tex", rdir)), ""]
        ttable = tenant_table(g)
        if ttable:
            md += ["### Tenants", "",
                   "Weight = the run's resolved `[tenants] weights`; received = the tenant's share of all "
                   "allocated GPU-seconds; entitled = its share of the entitled GPU-seconds (weighted max-min "
                   "water-filling of the GPUs up over the active tenants' demand, recorded for every "
                   "policy). Lowest seed; the largest tenants by weight, the rest summed.", "", ttable, ""]
            if table_dir:
                base = os.path.join(table_dir, g.slug + "-tenants")
                write(base + ".md", "# Tenants, %s\n\n%s\n" % (g.title, ttable))
                write(base + ".csv", tenant_csv(g))
                md += ["Tenant files: [Markdown](%s), [CSV](%s) (every tenant, full precision)." %
                       (rel(base + ".md", rdir), rel(base + ".csv", rdir)), ""]
        dl, ml, tl = dominance_lines(g, dom[g.key]), monotonicity_lines(g, mono[g.key]), target_lines(g)
        if dl or ml or tl:
            md += ["### Checks", ""] + ["- " + x for x in dl + ml + tl] + [""]
        hk, hw = g.headline
        if g.sliced:
            sl = g.slice_points(hk, hw)
            table, text = compare(g, [p for p in sl if p.policy == "dike"], [p for p in sl if p.policy != "dike"],
                                  label=lambda p: p.base_label + (", " + p.variant if p.variant else ""))
        else:
            table, text = compare(g)
        if table:
            md += ["### Dike against the best baseline%s" % (" (%s)" % setting_text(hk, hw) if g.sliced else ""), "",
                   "Each Dike column shows its value, the difference from the best baseline of that row "
                   "and ✓ where Dike is better (= where equal)%s." %
                   (" — the headline setting only; the checks above cover the others" if g.sliced else ""),
                   "", table, ""]
            md += [" ".join(text), ""]
        if args.no_figures:
            continue
        v = g.figure_view()
        md += ["### Figures", ""]
        if g.sliced or v.left_out:
            md += ["The figures show %d of the %d rows%s%s." %
                   (len(v.points), len(g.points), ": the %s setting" % setting_text(hk, hw) if g.sliced else "",
                    "; not drawn (tables only): %s" % ", ".join(p.label for p in v.left_out) if v.left_out else
                    ""), ""]
        kinds = FIGURE_KINDS if args.full_figures and re.search(args.full_figures, g.slug) else args.figure_kinds
        draw = {"jct_cdf": lambda: (fig_cdf(v, pal, fw, "jct"), "JCT CDF"),
                "rho_cdf": lambda: (fig_cdf(v, pal, fw, "rho"), "rho CDF"),
                "frontier": lambda: (fig_frontier(v, pal, fw), "fairness-efficiency frontier"),
                "jct_by_size": lambda: (fig_jct_by_size(v, pal, fw), "JCT by job size"),
                "timeseries": lambda: (fig_timeseries(v, pal, fw), "busy GPUs and queue"),
                "tenant_share": lambda: (fig_tenant_share(v, fw), "tenant share"),
                "tenant_entitlement": lambda: (fig_tenant_entitlement(v, pal, fw),
                                               "received vs entitled share per tenant")}
        for kind in FIGURE_KINDS:
            if kind in kinds:
                paths, what = draw[kind]()
                if paths:
                    md += [img(paths, "%s, %s" % (what, v.title)), ""]
        for r in g.runs:
            r.release()   # the group's jobs and time series, read for its figures, are not needed again

    md += ["## Scaling", ""]
    multi = scaling_series(groups)
    if multi:
        md += ["Engine wall time (the slowest rank's `/perf` wall_seconds) and events per second (events "
               "of all ranks / that wall time) for %d configuration%s run with several rank counts "
               "(ranks %s). Wall-clock numbers change from run to run and machine to machine." %
               (len(multi), "" if len(multi) == 1 else "s",
                ", ".join(str(r) for r in sorted(set(r for _, s in multi for r, _ in s)))), ""]
    else:
        md += ["No configuration was run with several rank counts; the figure shows each run's engine "
               "wall time and events per second at the rank count it used.", ""]
    if not args.no_figures:
        md += [img(fig_scaling(groups, fw), "scaling"), ""]
    if table_dir:
        h, rows = scaling_rows(groups, display)
        write(os.path.join(table_dir, "scaling.csv"), csv_text(h, rows))
        mdrows = ["| " + " | ".join(h[:1] + h[3:10]) + " |", "|---|" + "---|" * 4 + "---:|" * 3]
        for r in rows:
            mdrows.append("| %s | %s | %d | %d | %.3f | %.3f | %d | %.0f |" % (r[0], md_escape(r[3]), r[4], r[5],
                                                                       r[6], r[7], r[8], r[9]))
        write(os.path.join(table_dir, "scaling.md"), "# Scaling (from /perf)\n\n" + "\n".join(mdrows) + "\n")
        write(os.path.join(table_dir, "runs.csv"), runs_csv(groups, display))
        if any(dom.values()):
            write(os.path.join(table_dir, "dominance.csv"), dominance_csv(groups, dom))
        if any(mono.values()):
            write(os.path.join(table_dir, "monotonicity.csv"), monotonicity_csv(groups, mono))
        md += ["Per-run wall times, events and messages: [scaling.csv](%s); every input's metadata and "
               "/summary: [runs.csv](%s)." % (rel(os.path.join(table_dir, "scaling.csv"), rdir),
                                              rel(os.path.join(table_dir, "runs.csv"), rdir)), ""]

    md += ["## Inputs", "",
           "Every input file with its metadata. The configuration shown for a group is the part its "
           "runs share (as stored in each file's `config` attribute; `run.out` left out), and each "
           "file's row lists the keys in which it differs.", ""]
    for g in groups:
        allr = [r for p in g.points for r in p.all_runs]
        text, diffs = common_config(allr)
        shas = sorted(set(r.attrs["trace_sha256"] for r in allr))
        paths = sorted(set(r.attrs["trace_path"] for r in allr))
        vers = sorted(set(r.attrs["version"] for r in allr))
        md += ["### Inputs: %s" % g.title, "",
               "Trace: %s; sha256 %s. dike-emu version%s %s." %
               (", ".join("`%s`" % t for t in paths),
                ", ".join("`%s`" % s if s else "(none: synthetic)" for s in shas),
                "" if len(vers) == 1 else "s", ", ".join(vers)), "",
               "| file | row | seed | ranks | version | placement | trace sha256 | differs from the shared configuration |",
               "|---|---|---:|---:|---|---|---|---|"]
        for p in g.points:
            for r in p.all_runs:
                md.append("| %s | %s | %d | %d | %s | %s | %s | %s |" %
                          (md_escape(display[r.path]), md_escape(p.label), r.seed, r.ranks, r.attrs["version"],
                           r.attrs["placement"], (r.attrs["trace_sha256"][:12] + "…") if r.attrs["trace_sha256"] else "–",
                           md_escape(", ".join("`%s`" % d for d in diffs[r.path])) or "–"))
        md += ["", "<details><summary>Shared configuration of %s (%d keys)</summary>" %
               (g.title, text.count(" = ")), "", "```ini", text, "```", "", "</details>", ""]
    if skipped:
        md += ["## Skipped inputs", ""] + ["- %s" % md_escape(w) for _, w in skipped] + [""]
    write(report_path, "\n".join(md).rstrip() + "\n")
    return written + fw.written, skipped


def anchor(title):
    a = title.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="report.py", description=__doc__.splitlines()[0],
                                 epilog="See the module docstring (head -60 analysis/report.py) for the layout.")
    ap.add_argument("inputs", nargs="+", metavar="RESULTS",
                    help="folder of .h5 files, folder with a campaign.json, a manifest, or .h5 files")
    ap.add_argument("-o", "--out", default="report", help="report folder (default: report)")
    ap.add_argument("--report", help="write the Markdown report here (default: OUT/report.md)")
    ap.add_argument("--figures", help="figure folder (default: OUT/figures)")
    ap.add_argument("--tables", help="table folder (default: OUT/tables)")
    ap.add_argument("--no-tables", action="store_true", help="write no table files (tables stay in the report)")
    ap.add_argument("--no-figures", action="store_true", help="draw no figures (quick tables)")
    ap.add_argument("--formats", default="png,pdf", help="figure formats, comma-separated (default: png,pdf)")
    ap.add_argument("--figure-kinds", default=",".join(FIGURE_KINDS), metavar="LIST",
                    help="per-group figures to draw, comma-separated (default: all of %s)" % ", ".join(FIGURE_KINDS))
    ap.add_argument("--full-figures", metavar="REGEX",
                    help="groups whose SLUG matches REGEX get every per-group figure whatever --figure-kinds says")
    ap.add_argument("--dpi", type=int, default=110, help="PNG resolution (default: 110)")
    ap.add_argument("--title", default="dike-emu report")
    ap.add_argument("--preamble", help="a Markdown file to put under the title")
    ap.add_argument("--headline-weights", default="demand", metavar="WEIGHTING",
                    help="tenant weighting of the setting the figures show when a group holds several "
                         "(default: demand; with oracle duration knowledge)")
    ap.add_argument("--strict", action="store_true", help="stop at the first input that is not a complete output")
    args = ap.parse_args(argv)
    args.formats = [f.strip().lower() for f in args.formats.split(",") if f.strip()]
    bad = [f for f in args.formats if f not in ("png", "pdf", "svg")]
    if bad:
        ap.error("unknown figure format %s (png, pdf, svg)" % ", ".join(bad))
    args.figure_kinds = [k.strip() for k in args.figure_kinds.split(",") if k.strip()]
    bad = [k for k in args.figure_kinds if k not in FIGURE_KINDS]
    if bad:
        ap.error("unknown figure kind %s (%s)" % (", ".join(bad), ", ".join(FIGURE_KINDS)))
    if args.full_figures:
        try:
            re.compile(args.full_figures)
        except re.error as e:
            ap.error("--full-figures: bad regular expression (%s)" % e)
    try:
        written, skipped = build(args)
    except dikeio.NotDikeOutput as e:
        print("report: %s" % e, file=sys.stderr)
        return 1
    print("report: wrote %d files; report: %s" % (len(written), args.report or os.path.join(args.out, "report.md")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
