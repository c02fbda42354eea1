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
    figures/SLUG-jct_by_size.*      mean JCT by job size (GPU count): markers on a log axis
    figures/TRACE-G-gpus-against_load.*  avg JCT and unfair fraction vs offered load, one line per
                                    row (only for a trace and cluster size run at several loads)
    figures/scaling.*               engine wall time and events/s vs MPI ranks (only with several)
    tables/paired.csv               with seeds: each row minus the reference row, per metric

For papers (analysis/README.md): one unit per metric for the whole report (--units), --columns,
LaTeX table* tables, ties at the printed precision, --figsize column|page, --policies, --window.

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
or missing is equal). Rows are named "dike w=1 · noisy · demand": the knowledge tag for the
policies that use durations (sjf, srtf, themis, dike), the weighting tag for the tenant-aware ones
(gandiva-fair, drf), each only when the group holds several; other keys that vary
among one policy's rows follow as key=value. fifo, las, gandiva-fair and drf use no durations:
their rows stand for every knowledge mode; all but gandiva-fair and drf ignore tenant weights:
their rows stand for every weighting. Runs of one row that differ in run.seed are seeds: tables show
their mean with a 95% confidence interval, mean +- t * s / sqrt(n), s the sample standard
deviation, t Student's 0.975 quantile with n - 1 degrees of freedom (scipy, stats.py); with
seeds, each group also gets paired differences from a reference row (--reference). Runs of one row
and one seed on different rank counts give the same results (SPEC section 3): the first is used for the
metrics, all of them for the scaling figure. CDFs pool the jobs of every seed; the time-series
and tenant-share figures show the lowest seed.

Checks (issue 12), per group and printed in report.md, at full precision (the means, never the
printed rounding): the dominance check (a baseline of the same knowledge mode and weighting
dominates Dike at its default knob, w = 1 or not recorded, when its average JCT is lower, its
unfair fraction lower and its Jain's index higher, all three strictly), with a summary of the
groups that pass per mode at the top; knob monotonicity (unfair_fraction(w=1) <=
unfair_fraction(w=0) and avg_jct(w=0) <= avg_jct(w=1) per setting; a failing check's line ends
with the job width and length classes that carry most of each failing side's difference,
knobcause.py), followed by where the knob values between the ends lie (the median share of the change from w = 0 to w = 1 each already
makes); and on the full TitanSched Philly trace (philly.csv, 82,247 jobs) at load 1 on 512 GPUs
the target line: Dike's avg JCT in % above the best baseline's, its unfair fraction minus the best
baseline's, preemptions per job.

Figures. When a group holds several settings, the figures show one, the headline: oracle
knowledge and the weighting of --headline-weights (default demand); the other settings are in the
tables and checks, and so is the "Dike against the best baseline" comparison (generated sentences:
where Dike wins and where it loses). The per-row figures draw the baselines and Dike at its
default knob (--policies picks others), at most MAX_FIGURE_LINES; the frontier joins every knob value.
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
import statistics
import sys

try:
    import numpy as np
    import matplotlib  # noqa: F401  (figures.py draws; a missing package is named here first)
except ImportError as e:
    sys.exit("report: %s; use Debian's /usr/bin/python3 with python3-numpy and python3-matplotlib "
             "(apt-get install python3-h5py python3-numpy python3-matplotlib python3-scipy python3-tabulate)" % e)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dikeio  # noqa: E402
import knobcause  # noqa: E402
import figures  # noqa: E402
import stats  # noqa: E402
import tables  # noqa: E402
import window  # noqa: E402
from stats import mean_ci  # noqa: E402,F401  (tests and older callers use report.mean_ci)
from tables import METRICS, METRIC_NAMES, fnum, md_escape, Units  # noqa: E402,F401

# Metrics computed from /summary rather than read from it: key -> function of the summary.
DERIVED = {
    "preemptions_per_job": lambda s: s["preemptions"] / s["jobs"] if s["jobs"] else float("nan"),
}
# Left out of the generated "Dike against the best baseline" comparison (it repeats preemptions:
# every row of a group has the same jobs).
NOT_COMPARED = ("preemptions_per_job",)


# Config keys that do not change results: [run] (seed, the replicate axis; output file;
# checkpointing) except a label, [output] (sampling and progress knobs) and [engine] (the
# parallel decomposition: SPEC section 3 makes results bit-identical for any rank count).
IGNORED_SECTIONS = ("engine", "output", "run")
POLICY_ORDER = ["fifo", "sjf", "srtf", "las", "themis", "gandiva-fair", "drf", "dike"]
KEPT_KEYS = ("run.label",)

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
DEFAULT_KNOB = dikeio.DEFAULT_KNOB  # dike.fairness_weight's default
MAX_FIGURE_LINES = 10         # lines (rows) per axis in the per-row figures
FIGURE_TITLES = {"jct_cdf": "JCT CDF", "rho_cdf": "ρ CDF and tail", "frontier": "Fairness-efficiency frontier",
                 "jct_by_size": "Mean JCT by job size", "timeseries": "Busy GPUs and queued jobs",
                 "tenant_share": "Share of the cluster by tenant over time",
                 "tenant_entitlement": "Received vs entitled share per tenant",
                 "node_heatmap": "Nodes over time (busy GPUs, speed factor, up)"}
FIGURE_KINDS = ("jct_cdf", "rho_cdf", "frontier", "jct_by_size", "timeseries", "tenant_share",
                "tenant_entitlement", "node_heatmap")
# Not per group: one figure per (trace, cluster size) run at several offered loads.
LOAD_KIND = "against_load"
ALL_KINDS = FIGURE_KINDS + (LOAD_KIND,)


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
        """Dike at its default knob: fairness_weight 1, or not recorded."""
        return self.policy == "dike" and (self.weight != self.weight or self.weight == DEFAULT_KNOB)

    def by_seed(self, key):
        """{seed: the metric of that seed's run} (for paired differences)."""
        return {r.seed: metric_value(r.summary, key) for r in self.seed_runs}

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

    def figure_view(self, policies=None, units=None):
        """What the per-row figures draw: of the headline slice's rows, the baselines and Dike at
        its default knob (w = 1), or the rows @p policies names (a policy name: all its rows;
        a row name as the figures print it, e.g. "dike w=1"); beyond MAX_FIGURE_LINES rows, the
        first in table order. The frontier's Dike line keeps every knob value of the slice."""
        k, w = self.headline
        pts = self.slice_points(k, w) if self.sliced else list(self.points)
        dike_all = [p for p in pts if p.policy == "dike"]
        view_label = (lambda p: p.base_label + (", " + p.variant if p.variant else "")) if self.sliced \
            else (lambda p: p.label)
        unmatched = []
        if policies:
            names = [n.strip() for n in policies if n.strip()]
            chosen = [p for p in pts if any(n in (p.policy, p.label, p.base_label, view_label(p)) for n in names)]
            unmatched = [n for n in names
                         if not any(n in (p.policy, p.label, p.base_label, view_label(p)) for p in pts)]
        else:
            defaults = [p for p in dike_all if p.is_default_knob]
            chosen = [p for p in pts if p.policy != "dike"] + (defaults or dike_all)
            chosen.sort(key=pts.index)
        left = [p for p in pts if p not in chosen]
        if len(chosen) > MAX_FIGURE_LINES:
            left += chosen[MAX_FIGURE_LINES:]
            chosen = chosen[:MAX_FIGURE_LINES]
        by_pol = {}
        for p in self.points:
            p.style_index = 0
        for p in chosen:
            if p.policy != "dike":
                p.style_index = by_pol.get(p.policy, 0)
                by_pol[p.policy] = p.style_index + 1
        suffix = " (%s, %s)" % (k, weighting_tag(w)) if self.sliced else ""
        v = FigureView(self, chosen, [p for p in chosen if p.policy != "dike"], dike_all, suffix, left,
                       units or Units.choose(self.points))
        v.unmatched = unmatched
        return v

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

    def __init__(self, group, points, baselines, dike, suffix, left_out, units):
        self.group = group
        self.units = units
        self.unmatched = []
        self.default_dike = next((p for p in points if p.is_default_knob), None)
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
# Against load: one (trace, cluster size) at several offered loads

def load_families(groups):
    """[(trace, gpus, [(load, group), ...] by load)] for every (trace, cluster size) whose groups
    are named by two or more offered loads ("load X": workload.trace_load of a trace,
    workload.load of a synthetic workload). Groups named by a [run] label, a time_scale or "as
    recorded" have no load to put on an axis and are left out."""
    fam = {}
    for g in groups:
        x = g.load_value
        if not math.isfinite(x):
            continue
        loads = fam.setdefault((g.trace, g.gpus), {})
        if x in loads:   # "load 1" and "load 1.0": two groups, one point on the axis
            print("report: warning: %s and %s: the same load on the axis; the figure against load shows the "
                  "first" % (loads[x].title, g.title), file=sys.stderr)
            continue
        loads[x] = g
    return [(t, G, sorted(d.items())) for (t, G), d in sorted(fam.items()) if len(d) >= 2]


def load_series(loads, policies, units):
    """The lines of a figure against load: per row the figures draw at each load (the baselines
    and Dike's default knob of the headline setting, or --policies), matched across loads by
    their name in the figures; [(label, [(load, Point), ...])] in the order rows first appear,
    and the setting's caption suffix (e.g. " (oracle, demand)") of each load, in order."""
    order, by_label, suffixes = [], {}, []
    for x, g in loads:
        v = g.figure_view(policies, units)
        suffixes.append(v.title[len(g.title):])
        for p in v.points:
            lab = v.label(p)
            if lab not in by_label:
                by_label[lab] = []
                order.append(lab)
            by_label[lab].append((x, p))
    return [(lab, by_label[lab]) for lab in order], suffixes


def load_slug(trace, gpus):
    """TRACE-G-gpus-against_load, e.g. philly-512-gpus-against_load (slug() without the load)."""
    return slug((trace, "", gpus)) + "-against_load"


def load_table(series, loads, units):
    """Markdown: one row per line of the figure, avg JCT and unfair fraction at each load (the
    printed mean, as in the group tables; – where the row was not run at that load)."""
    xs = [x for x, _ in loads]
    head = ["row"] + ["%s at %g" % (units.header("avg_jct"), x) for x in xs] + \
        ["%s at %g" % (units.header("unfair_fraction"), x) for x in xs]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (2 * len(xs))]
    for lab, pts in series:
        at = dict(pts)
        cells = [tables.shown(at[x], k, units) if x in at else "–" for k in ("avg_jct", "unfair_fraction")
                 for x in xs]
        lines.append("| " + " | ".join([md_escape(lab)] + cells) + " |")
    return "\n".join(lines)


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

def paired_of(row, ref, key):
    """The paired difference row - ref of a metric over their common seeds (None below two)."""
    return stats.paired(row.by_seed(key), ref.by_seed(key))


def verdict(key, a, b, units):
    """(+1 a better than b, -1 worse, 0 a tie; the Paired difference or None). A tie: the two
    print the same at the table's precision, or, with two seeds or more in common, the paired
    95% interval of the difference contains zero."""
    c = tables.compare_printed(key, a.value(key), b.value(key), units)
    pr = paired_of(a, b, key)
    if c != 0 and pr is not None and not pr.significant:
        c = 0
    return c, pr


def compare(group, dike=None, baselines=None, label=None, units=None, one_tenant=False):
    """(Markdown table, list of sentences) comparing Dike's rows with the best baseline per metric
    (by default every row of the group; the report passes the headline slice's rows). A win needs
    a value that prints better (and, with seeds, a paired interval that excludes zero): equal at
    the printed precision is a tie, and ties are not wins."""
    lab = label or (lambda p: p.label)
    dike = group.dike if dike is None else dike
    baselines = group.baselines if baselines is None else baselines
    if not dike or not baselines:
        return None, []
    units = units or Units.choose(group.points)
    show = units.show
    head = "| metric | better | best baseline | " + " | ".join(lab(p) for p in dike) + " |"
    lines = [head, "|---|---|---|" + "---:|" * len(dike)]
    wins, losses, ties = [], [], []
    default = next((p for p in dike if p.is_default_knob and not p.variant), None)
    dwin, dlose = [], []
    seeded = False
    for key, _, _, _, hl in METRICS:
        if key in NOT_COMPARED or (key == "jain" and one_tenant):
            continue
        base = [p for p in baselines if math.isfinite(p.value(key))]
        if not base:
            continue
        sign = 1 if hl == "high" else -1
        bb = max(base, key=lambda p: (sign * p.value(key), -group.points.index(p)))
        bv = bb.value(key)
        ties_b = [lab(p) for p in base if tables.compare_printed(key, p.value(key), bv, units) == 0]
        cells = []
        verdicts = []
        for d in dike:
            c, pr = verdict(key, d, bb, units)
            verdicts.append(c)
            seeded = seeded or pr is not None
            v = d.value(key)
            rel = "" if bv == 0 else " (%+.1f%%)" % (100.0 * (v - bv) / abs(bv))
            mark = {1: " ✓", -1: "", 0: " ="}[c]
            if pr is not None:
                mark += " [%s, %s]" % (tables.fnum(units.scaled(key, pr.lo)), tables.fnum(units.scaled(key, pr.hi)))
            cells.append(show(key, v) + rel + mark)
        lines.append("| %s | %s | %s: %s | %s |" % (METRIC_NAMES[key], "higher" if hl == "high" else "lower",
                                                    " = ".join(ties_b), show(key, bv), " | ".join(cells)))
        bd = max(dike, key=lambda p: (sign * p.value(key), -group.points.index(p)))
        winners = [lab(d) for d, c in zip(dike, verdicts) if c > 0]
        if winners:
            wins.append("%s (%s: %s vs %s's %s)" % (METRIC_NAMES[key], ", ".join(winners), show(key, bd.value(key)),
                                                   lab(bb), show(key, bv)))
        elif all(c < 0 for c in verdicts):
            losses.append("%s (best Dike, %s: %s vs %s's %s)" % (METRIC_NAMES[key], lab(bd), show(key, bd.value(key)),
                                                                lab(bb), show(key, bv)))
        else:
            ties.append("%s (best Dike %s vs %s's %s)" % (METRIC_NAMES[key], show(key, bd.value(key)), lab(bb),
                                                          show(key, bv)))
        if default is not None:
            c0 = verdicts[dike.index(default)]
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
        text.append("Ties (no Dike knob value better, at least one not worse): %s." % "; ".join(ties))
    if default is not None:
        text.append("At the default knob (w = %g) Dike is better than the best baseline on %s, and worse on %s."
                    % (DEFAULT_KNOB, ", ".join(dwin) if dwin else "no metric",
                       ", ".join(dlose) if dlose else "no metric"))
    text.append("Tolerance: values that print the same (4 significant digits, in the table's units) are a tie, "
                "and ties are not wins%s." % (
                    "; with seeds, a difference whose paired 95% interval over the common seeds (shown in "
                    "brackets, Dike minus the baseline) contains zero is a tie too" if seeded else ""))
    if one_tenant:
        text.append("Jain's index is not compared: the trace has one tenant.")
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


def dike_by_setting(group):
    """The group's Dike rows per setting (knowledge, weighting, other Dike keys): a list of
    {knob value: row}, one per setting, in the order the settings first appear."""
    by = {}
    for d in group.dike:
        by.setdefault((d.knowledge, d.weighting, d.variant), {})[d.weight] = d
    return list(by.values())


def monotonicity_checks(group):
    """A MonotonicityCheck per setting (knowledge, weighting, other Dike keys) with rows at w = 0
    and w = 1."""
    return [MonotonicityCheck(ws[0.0], ws[1.0]) for ws in dike_by_setting(group) if 0.0 in ws and 1.0 in ws]


def jct_unit(group, units=None):
    """(unit name, divisor) of the average JCT: the report's units, or chosen from this group."""
    units = units or Units.choose(group.points)
    return units.name("avg_jct"), units.div("avg_jct")


def setting_text(knowledge, weighting, variant=""):
    return "%s, %s%s" % (knowledge, weighting_tag(weighting), ", " + variant if variant else "")


def dominance_lines(group, checks, units=None):
    u, div = jct_unit(group, units)
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


def monotonicity_lines(group, checks, units=None):
    u, div = jct_unit(group, units)
    out = []
    for c in checks:
        a, b = c.w0, c.w1
        u1, u0 = tables.fpair(b.value("unfair_fraction"), a.value("unfair_fraction"))
        j0, j1 = tables.fpair(a.value("avg_jct") / div, b.value("avg_jct") / div)
        out.append("%s knob %s (%s): unfair fraction %s at w=1 %s %s at w=0; avg JCT %s %s at w=0 %s %s %s at w=1%s" %
                   ("✓" if c.passed else "✗", "monotone" if c.passed else "NOT monotone",
                    setting_text(c.knowledge, c.weighting, a.variant),
                    u1, "≤" if c.fair_ok else ">", u0, j0, u, "≤" if c.jct_ok else ">", j1, u,
                    "" if c.passed else knob_carriers(c)))
    return out


def knob_carriers(check):
    """For a failing knob check, which jobs carry each failing side (knobcause.py), from the seeds
    run at both ends: "; JCT side: largest parts ..." and the same for the unfair side ('' for
    runs without /jobs)."""
    w0 = {r.seed: r for r in check.w0.seed_runs}
    runs = [(w0[r.seed], r) for r in check.w1.seed_runs if r.seed in w0]
    out = []
    try:
        for side, ok in (("jct", check.jct_ok), ("unfair", check.fair_ok)):
            if ok or not runs or any(getattr(x, "jobs", None) is None for pair in runs for x in pair):
                continue
            text = knobcause.phrase(knobcause.mean_parts([(a.jobs, b.jobs) for a, b in runs], side), side)
            if text:
                out.append("%s side: %s" % ("JCT" if side == "jct" else "unfair", text))
    finally:
        for pair in runs:
            for x in pair:
                if hasattr(x, "release"):
                    x.release()
    return "".join("; " + t for t in out)


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


def target_lines(group, units=None):
    u, div = jct_unit(group, units)
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
        kmodes = sorted(set(c.knowledge for g in mgs for c in mono[g.key]), key=knowledge_order)
        if len(kmodes) > 1:   # by knowledge mode, as the dominance check
            for k in kmodes:
                gs = [g for g in mgs if any(c.knowledge == k for c in mono[g.key])]
                ok = [g for g in gs if all(c.passed for c in mono[g.key] if c.knowledge == k)]
                bad = [g.title for g in gs if g not in ok]
                lines.append("- %s: **%d of %d** groups pass%s" %
                             (k, len(ok), len(gs), "; failing: %s" % "; ".join(bad) if bad else ""))
            lines.append("")
    return lines


def knob_shares(groups):
    """For each knob value strictly between 0 and 1: over the settings (knowledge, weighting, other
    Dike keys) of every group with rows at w = 0, at that value and at w = 1, the share of the change
    from w = 0 to w = 1 that the value already makes, (m(w) - m(0)) / (m(1) - m(0)), for the
    average JCT and the unfair fraction. A setting whose two ends are equal has no share. Returns
    {w: ([JCT shares], [unfair shares])}."""
    out = {}
    for g in groups:
        for ws in dike_by_setting(g):
            if 0.0 not in ws or 1.0 not in ws:
                continue
            a, b = ws[0.0], ws[1.0]
            for w, d in sorted(ws.items()):
                if not 0 < w < 1:
                    continue
                sh = out.setdefault(w, ([], []))
                for i, m in enumerate(("avg_jct", "unfair_fraction")):
                    span = b.value(m) - a.value(m)
                    if span != 0:
                        sh[i].append((d.value(m) - a.value(m)) / span)
    return out


def knob_share_lines(groups):
    """Markdown lines saying where the knob values between 0 and 1 lie (knob_shares), if any."""
    shares = knob_shares(groups)
    if not shares:
        return []

    def med(v):
        if not v:
            return "no setting"
        return "%.0f %% (%d setting%s)" % (100 * statistics.median(v), len(v), "" if len(v) == 1 else "s")
    parts = ["w = %s: average JCT %s, unfair fraction %s" % (fmt_w(w), med(j), med(u))
             for w, (j, u) in sorted(shares.items())]
    return ["**Where the knob values between the ends lie.** For each value, the median share of the "
            "change from w = 0 to w = 1 that it already makes: 0 %% is w = 0's value, 100 %% is w = 1's. "
            "%s." % "; ".join(parts), ""]


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


def tenant_table(group, points=None, label=None, limit=10):
    """(Markdown, note): one row per tenant (the @p limit largest by weight, the rest summed), its
    weight share, and per row of @p points (the figures' rows by default) the tenant's received
    share of GPU-seconds divided by its entitled share (lowest seed): 1.00 = what weighted max-min
    fairness entitled it to. Narrow on purpose: every number of every tenant is in the CSV."""
    points = group.points if points is None else points
    lab = label or (lambda p: p.label)
    pts = [p for p in points if has_tenant_shares(p.first)]
    if not pts or len(pts[0].first.tenant_names()) < 2:
        return "", ""
    rows = tenant_rows(group, limit)
    first = pts[0].first
    shared = all(p.first.tenant_names() == first.tenant_names() and
                 np.array_equal(p.first.tenants["weight"], first.tenants["weight"]) for p in pts)
    head = ["tenant"] + (["weight share"] if shared else []) + [lab(p) for p in pts]
    body = []
    for name, members in rows:
        cells = [md_escape(name)]
        if shared:
            cells.append("%.1f%%" % (100 * tenant_sums(first, members)["weight_share"]))
        for p in pts:
            t = tenant_sums(p.first, members)
            cells.append("%.2f" % (t["gpu_share"] / t["entitled_share"]) if t["entitled_share"] > 0 else "–")
        body.append(cells)
    text = tables.tabulate(body, [md_escape(h) for h in head], tablefmt="pipe", disable_numparse=True,
                           colalign=["left"] + ["right"] * (len(head) - 1))
    note = ("Each cell: the tenant's received share of all allocated GPU-seconds divided by its entitled share "
            "(weighted max-min water-filling of the GPUs over the active tenants' demand): 1.00 = received "
            "its entitlement, below 1 = less. %s; lowest seed; the %d largest tenants by weight, the rest "
            "summed." % ("Weight share = the tenant's share of the resolved `[tenants] weights`" if shared else
                         "The rows' tenant weights differ (e.g. equal vs demand): see the CSV for each row's",
                         min(limit, len(rows))))
    return text, note


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


def shown_items(run):
    """config_items with workload.trace as the run was given it (its trace_path attribute), not as
    resolved: the resolved path is absolute and names the checkout, so a report regenerated in
    another one would differ in that line."""
    it = config_items(run)
    given = run.attrs.get("trace_path", "")
    if it.get("workload.trace") and given:
        it["workload.trace"] = given
    return it


def common_config(runs):
    """(INI text of the keys equal in every run, {path: [key=value differing]})."""
    items = [shown_items(r) for r in runs]
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


def find_row(points, name, label):
    """The row of @p points called @p name (its row name, its name in the figures, or e.g. "dike
    w=1"); None if none or several."""
    hits = [p for p in points if name in (p.label, p.base_label, label(p))]
    return hits[0] if len(hits) == 1 else None


def paired_rows(points, ref, keys):
    """[(row, {key: Paired})] of every other row with at least two seeds in common with @p ref."""
    out = []
    for p in points:
        if p is ref:
            continue
        d = {k: paired_of(p, ref, k) for k in keys}
        if any(v is not None for v in d.values()):
            out.append((p, d))
    return out


def paired_table(rows, ref, keys, units, label):
    """Markdown: per row, its difference from the reference row per metric, mean over the common
    seeds ± the 95% half-width (Student t); bold where the interval excludes zero."""
    head = ["row − %s" % label(ref), "seeds"] + [units.header(k) for k in keys]
    body = []
    for p, d in rows:
        cells = [md_escape(label(p)), str(max((x.n for x in d.values() if x is not None), default=0))]
        for k in keys:
            x = d[k]
            if x is None:
                cells.append("–")
                continue
            t = tables.plus_minus(units.scaled(k, x.mean), units.scaled(k, x.half))
            cells.append("**%s**" % t if x.significant else t)
        body.append(cells)
    return tables.tabulate(body, [md_escape(h) for h in head], tablefmt="pipe", disable_numparse=True,
                           colalign=["left"] + ["right"] * (len(head) - 1))


def paired_csv(entries):
    header = ["trace", "load", "gpus", "row", "reference", "metric", "seeds", "mean_difference", "ci95",
              "low", "high", "excludes_zero"]
    rows = []
    for g, ref, prs in entries:
        for p, d in prs:
            for k, x in d.items():
                if x is not None:
                    rows.append([g.trace, g.load, g.gpus, p.label, ref.label, k, x.n, x.mean, x.half, x.lo, x.hi,
                                 int(x.significant)])
    return csv_text(header, rows)


def apply_window(runs, mode):
    """Use /summary/window in place of /summary (mode "on": every run must have it; "auto": when
    every run has it; "off": never). Returns {path: Window} of the runs switched, empty if none."""
    if mode == "off":
        return {}
    wins = {r.path: window.read(r.path) for r in runs}
    missing = [r.path for r in runs if wins[r.path] is None]
    if missing:
        if mode == "on":
            raise dikeio.NotDikeOutput("--window on: %s has no /summary/window (run it with metrics.window set)%s"
                                       % (missing[0], " (and %d more)" % (len(missing) - 1) if len(missing) > 1 else ""))
        if len(missing) < len(runs):
            print("report: warning: %d of %d runs have a /summary/window, %s does not: whole-run metrics for all"
                  % (len(runs) - len(missing), len(runs), missing[0]), file=sys.stderr)
        return {}
    for r in runs:
        r.summary_whole = r.summary
        r.summary = dict(r.summary, **wins[r.path].metrics)
    return wins


def code_versions(runs):
    """The emulator sources behind the runs: [(source_sha256, runs, builds)] for the runs whose
    output records one, most runs first. More than one entry: the results mix versions of the
    emulator's code (docs/reliability.md, "A checkpoint and the build that wrote it")."""
    by = {}
    for r in runs:
        src = r.attrs.get("source_sha256", "")
        if src:
            n, builds = by.get(src, (0, set()))
            builds.add(r.attrs.get("build") or "?")
            by[src] = (n + 1, builds)
    return sorted(((s, n, sorted(b)) for s, (n, b) in by.items()), key=lambda x: (-x[1], x[0]))


def code_lines(versions):
    """The report's paragraph on mixed emulator sources (none for one version)."""
    if len(versions) < 2:
        return []
    parts = ["%s... (%d run%s; build%s %s)" % (s[:12], n, "" if n == 1 else "s", "" if len(b) == 1 else "s",
                                              ", ".join(b)) for s, n, b in versions]
    return ["**Emulator code.** These runs were computed by %d versions of the emulator's sources "
            "(the outputs' `source_sha256`): %s. Differences between rows may come from the code as well as "
            "from the policies; rerun the campaign with one build for results of one version." %
            (len(versions), "; ".join(parts)), ""]


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

    wins = apply_window(runs, args.window)
    groups_d = {}
    for r in runs:
        groups_d.setdefault(group_key(r), []).append(r)
    groups = [Group(k, groups_d[k], args.headline_weights) for k in sorted(groups_d)]
    try:
        units = Units.choose([p for g in groups for p in g.points], args.units)
    except tables.UnitsError as e:
        raise dikeio.NotDikeOutput(str(e))
    md_keys = args.columns or [m[0] for m in METRICS]
    tex_keys = args.columns or list(tables.PAPER_COLUMNS)
    dom = {g.key: dominance_checks(g) for g in groups}
    mono = {g.key: monotonicity_checks(g) for g in groups}
    for g in groups:
        for p in g.points:
            for w in p.warnings:
                print("report: warning: %s" % w, file=sys.stderr)
    versions = code_versions(runs)
    if len(versions) > 1:
        print("report: warning: the runs were computed by %d versions of the emulator's sources (%s)" %
              (len(versions), ", ".join("%s...: %d" % (v[0][:12], v[1]) for v in versions)), file=sys.stderr)
    pal = figures.Palette([r.policy for r in runs])
    figures.setup_matplotlib()

    report_path = args.report or os.path.join(args.out, "report.md")
    fig_dir = args.figures or os.path.join(args.out, "figures")
    table_dir = None if args.no_tables else (args.tables or os.path.join(args.out, "tables"))
    rdir = os.path.dirname(os.path.abspath(report_path))
    os.makedirs(rdir, exist_ok=True)
    fw = figures.FigureWriter(fig_dir, args.formats, args.dpi, figures.Preset(args.figsize))
    written = []

    def write(path, text):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        written.append(path)

    def img(paths, caption):
        png = next((p for p in paths if p.endswith(".png")), paths[0])
        others = [p for p in paths if p is not png]
        line = "![%s](%s)  \n*%s*" % (caption, rel(png, rdir), caption)
        if others:
            line += " " + " · ".join("[%s](%s)" % (os.path.splitext(p)[1][1:].upper(), rel(p, rdir)) for p in others)
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
            "(Student t with n − 1 degrees of freedom); the policies of a group replay the same seeded "
            "workloads, so each group also gives the paired difference from a reference row." if any_ci else
            "Each row is one run (one seed), so there are no confidence intervals.")
           + " Units, the same in every table and sentence of this report: %s%s. Bold: the best value of a "
           "column at the printed precision (lowest; highest for Jain and utilisation), where one row has it "
           "alone; values that print the same are a tie, and a tied best is not bold." % (
               units.describe(), " (`--units`)" if args.units else " (chosen from the median average JCT; "
               "`--units` sets them)"), ""]
    if wins:
        abouts = sorted(set(w.text() for w in wins.values()))
        md += ["**Steady-state window.** Every metric of the tables, sentences and checks is computed over "
               "each run's steady-state window (`/summary/window`, dike-emu's `metrics.window`), not over the "
               "whole run: %s. The figures (CDFs, time series, tenants) show whole runs. `--window off` gives "
               "the whole-run metrics." % ("; ".join(abouts[:3]) + ("; ..." if len(abouts) > 3 else "")), ""]
    if any(g.sliced for g in groups):
        md += ["Rows are named *policy · duration knowledge · tenant weighting* where a group holds several: "
               "knowledge is `scheduler.duration_knowledge` (oracle, noisy, none), shown for the policies that "
               "use durations (sjf, srtf, themis, dike); the weighting is `tenants.weights` (equal, demand, ...), "
               "shown for the policies that use tenant weights (gandiva-fair, drf). Rows without a tag stand "
               "for every mode or weighting (fifo and las use neither). Figures show one setting, the headline: "
               "oracle knowledge and the `%s` weighting (where a group has it); the other settings are in the "
               "tables and the checks." % args.headline_weights, ""]
    md += code_lines(versions)
    md += checks_summary(groups, dom, mono)
    md += knob_share_lines(groups)
    if table_dir and (any(dom.values()) or any(mono.values())):
        md += ["Every comparison of the checks at full precision: %s." % ", ".join(
            "[%s](%s)" % (n, rel(os.path.join(table_dir, n), rdir))
            for n, have in (("dominance.csv", any(dom.values())), ("monotonicity.csv", any(mono.values()))) if have),
            ""]
    targets = [ln for g in groups for ln in target_lines(g, units)]
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
    families = load_families(groups)
    md += (["- [Against load](#against-load)"] if families else []) + \
        ["- [Scaling](#scaling)", "- [Inputs](#inputs)", ""]

    paired_entries = []
    for g in groups:
        seeds = sorted(set(s for p in g.points for s in p.seeds))
        one_tenant = len(g.points[0].first.tenant_names()) < 2
        not_bold = ("jain",) if one_tenant else ()
        md += ["## %s" % g.title, "",
               "%s jobs on %s GPUs; %d configurations; seed%s %s." %
               ("{:,}".format(g.jobs), "{:,}".format(g.gpus), len(g.points), "" if len(seeds) == 1 else "s",
                ", ".join(str(s) for s in seeds)), ""]
        table, notes = tables.md_table(g.points, md_keys, units, lambda p: p.label, not_bold)
        md += [table, "", " ".join(notes), ""]
        if table_dir:
            base = os.path.join(table_dir, g.slug)
            write(base + ".md", "# %s\n\n%s\n\n%s\n" % (g.title, table, " ".join(notes)))
            write(base + ".csv", group_csv(g))
            cap = "%s: %s jobs on %s GPUs." % (g.title, "{:,}".format(g.jobs), "{:,}".format(g.gpus))
            if wins:
                cap += " Metrics over the steady-state window."
            write(base + ".tex", tables.tex_table(g.points, tex_keys, units, lambda p: p.label, cap, g.slug,
                                                  not_bold))
            md += ["Table files: [Markdown](%s), [CSV](%s) (seconds, full precision, every metric), [LaTeX](%s) "
                   "(a `table*` with a booktabs tabular; columns: %s)." %
                   (rel(base + ".md", rdir), rel(base + ".csv", rdir), rel(base + ".tex", rdir),
                    ", ".join(METRIC_NAMES[k] for k in tex_keys)), ""]
        v = g.figure_view(args.policies, units)
        for n in v.unmatched:
            print("report: warning: %s: --policies %s names no row of the figures' setting" % (g.title, n),
                  file=sys.stderr)
        ttable, tnote = tenant_table(g, v.points, v.label)
        if ttable:
            md += ["### Tenants", "", tnote, "", ttable, ""]
            if table_dir:
                base = os.path.join(table_dir, g.slug + "-tenants")
                write(base + ".md", "# Tenants, %s\n\n%s\n\n%s\n" % (v.title, tnote, ttable))
                write(base + ".csv", tenant_csv(g))
                md += ["Tenant files: [Markdown](%s), [CSV](%s) (every tenant of every row, full precision)." %
                       (rel(base + ".md", rdir), rel(base + ".csv", rdir)), ""]
        dl = dominance_lines(g, dom[g.key], units)
        ml, tl = monotonicity_lines(g, mono[g.key], units), target_lines(g, units)
        if dl or ml or tl:
            md += ["### Checks", ""] + ["- " + x for x in dl + ml + tl] + [""]
        hk, hw = g.headline
        sl = g.slice_points(hk, hw) if g.sliced else list(g.points)
        ref = find_row(sl, args.reference, v.label) if args.reference else None
        if ref is None:   # Dike at its default knob, else its first row, else the first row
            ref = next((p for p in sl if p.is_default_knob), None) or next(
                (p for p in sl if p.policy == "dike"), sl[0] if sl else None)
        prs = paired_rows(sl, ref, md_keys) if ref is not None else []
        if prs:
            shown = [k for k in md_keys if any(d[k] is not None and d[k].half for _, d in prs)] or md_keys
            paired_entries.append((g, ref, prs))
            md += ["### Paired differences from %s%s" % (v.label(ref), " (%s)" % setting_text(hk, hw) if g.sliced
                                                          else ""), "",
                   "Per row, the difference from %s of each metric, seed by seed over the seeds both ran (the "
                   "policies replay the same seeded workloads), as its mean ± the half-width of the 95%% "
                   "interval (Student t, n − 1 degrees of freedom). **Bold**: the interval excludes zero, a "
                   "difference at 95%%; the others are within the seeds' noise. `--reference ROW` picks the "
                   "reference." % v.label(ref), "", paired_table(prs, ref, shown, units, v.label), ""]
        if g.sliced:
            table, text = compare(g, [p for p in sl if p.policy == "dike"], [p for p in sl if p.policy != "dike"],
                                  label=v.label, units=units, one_tenant=one_tenant)
        else:
            table, text = compare(g, units=units, one_tenant=one_tenant)
        if table:
            md += ["### Dike against the best baseline%s" % (" (%s)" % setting_text(hk, hw) if g.sliced else ""), "",
                   "Each Dike column shows its value, the difference from the best baseline of that row "
                   "and ✓ where Dike is better (= a tie)%s." %
                   (" — the headline setting only; the checks above cover the others" if g.sliced else ""),
                   "", table, ""]
            md += [" ".join(text), ""]
        if args.no_figures:
            continue
        md += ["### Figures", ""]
        md += ["The figures show %d of the %d rows%s (%s%s); the frontier joins Dike's every knob value.%s" %
               (len(v.points), len(g.points), ", the %s setting" % setting_text(hk, hw) if g.sliced else "",
                "`--policies`" if args.policies else "the baselines and Dike at its default knob; `--policies` "
                "picks others", "; not drawn: %s" % ", ".join(p.label for p in v.left_out) if v.left_out else "",
                " Axes: JCT axes start at zero unless marked *log scale*; CDFs and tails are on log axes."), ""]
        kinds = FIGURE_KINDS if args.full_figures and re.search(args.full_figures, g.slug) else args.figure_kinds
        for kind in FIGURE_KINDS:
            if kind not in kinds:
                continue
            what, note = FIGURE_TITLES[kind], ""
            if kind == "jct_cdf":
                paths = figures.fig_cdf(v, pal, fw, "jct")
            elif kind == "rho_cdf":
                paths = figures.fig_cdf(v, pal, fw, "rho")
            elif kind == "frontier":
                paths = figures.fig_frontier(v, pal, fw)
                if any(p.n > 1 for p in v.points + v.dike):
                    note = ("Small dots: each seed; large markers: the mean over seeds, with the 95% confidence "
                            "interval of the mean as thin bars (cut at the axes; with 2 seeds t = 12.7 makes them "
                            "wide: the paired differences above are the sharper comparison).")
            elif kind == "jct_by_size":
                paths = figures.fig_jct_by_size(v, pal, fw)
                if any(p.n > 1 for p in v.points):
                    note = "Mean over seeds of each seed's mean JCT per size; bars: 95% confidence intervals."
            elif kind == "timeseries":
                paths = figures.fig_timeseries(v, pal, fw)
            elif kind == "tenant_share":
                paths, dist = figures.fig_tenant_share(v, fw)
                if paths:
                    note = ("Panels: %s and the %d rows whose split of the cluster differs most from it; mean "
                            "total-variation distance of the tenants' shares over time from it: %s." %
                            (v.label(v.default_dike or v.points[0]), min(3, len(dist)),
                             ", ".join("%s %.3f" % (v.label(p), d) for d, p in dist)))
            elif kind == "node_heatmap":   # only where a run has /node_timeseries (issue 14)
                paths = figures.fig_node_heatmap(v, fw)
            else:
                paths = figures.fig_tenant_entitlement(v, pal, fw, has_tenant_shares)
            if paths:
                md += [img(paths, "%s — %s" % (what, v.title)), ""] + ([note, ""] if note else [])
        for r in g.runs:
            r.release()   # the group's jobs and time series, read for its figures, are not needed again

    if families:
        md += ["## Against load", "",
               "Average JCT and unfair fraction against the offered load (`workload.trace_load`; `workload.load` "
               "of a synthetic workload), for each trace and cluster size run at two or more loads. One line per "
               "row the figures draw (%s), matched across loads by name; the values are the tables' (means over "
               "seeds%s), with 95%% bars where there are seeds. Both y axes start at zero." %
               ("`--policies`" if args.policies else "the baselines and Dike at its default knob, of the headline "
                "setting where a group holds several",
                ", over the steady-state window" if wins else ""), ""]
        for trace, gpus, loads in families:
            series, suffixes = load_series(loads, args.policies, units)
            title = "%s, %s GPUs" % (trace, "{:,}".format(gpus))
            setting = suffixes[0] if len(set(suffixes)) == 1 else " (%s)" % "; ".join(
                "load %g%s" % (x, sfx) for (x, _), sfx in zip(loads, suffixes))
            md += ["### Against load: %s" % title, "", load_table(series, loads, units), ""]
            name = load_slug(trace, gpus)
            draw = LOAD_KIND in args.figure_kinds or (args.full_figures and re.search(args.full_figures, name))
            if not args.no_figures and draw and series:
                xl = "offered load (%s)" % ("workload.load" if trace == "synthetic" else "workload.trace_load")
                paths = figures.fig_against_load(name, series, pal, fw, units, xl)
                md += [img(paths, "Average JCT and unfair fraction against load — %s%s" % (title, setting)), ""]

    md += ["## Scaling", ""]
    multi = figures.scaling_series(groups)
    if multi:
        md += ["Engine wall time (the slowest rank's `/perf` wall_seconds) and events per second (events "
               "of all ranks / that wall time) for %d configuration%s run with several rank counts "
               "(ranks %s). Wall-clock numbers change from run to run and machine to machine." %
               (len(multi), "" if len(multi) == 1 else "s",
                ", ".join(str(r) for r in sorted(set(r for _, s in multi for r, _ in s)))), ""]
        if not args.no_figures:
            md += [img(figures.fig_scaling(groups, fw), "Scaling over MPI ranks"), ""]
    else:
        md += ["No configuration was run with several rank counts, so there is no scaling figure; the "
               "table files list each run's wall time and events per second.", ""]
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
        if paired_entries:
            write(os.path.join(table_dir, "paired.csv"), paired_csv(paired_entries))
        md += ["Per-run wall times, events and messages: [scaling.csv](%s); every input's metadata and "
               "/summary: [runs.csv](%s)." % (rel(os.path.join(table_dir, "scaling.csv"), rdir),
                                              rel(os.path.join(table_dir, "runs.csv"), rdir)), ""]

    md += ["## Inputs", "",
           "Every input file with its metadata. The configuration shown for a group is the part its "
           "runs share (as stored in each file's `config` attribute; `run.out` left out, and "
           "`workload.trace` shown as given to the run, as in the Trace line), and each "
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
    ap.add_argument("--figure-kinds", default=",".join(ALL_KINDS), metavar="LIST",
                    help="figures to draw, comma-separated (default: all of %s; %s: one per trace and cluster "
                         "size run at several loads)" % (", ".join(ALL_KINDS), LOAD_KIND))
    ap.add_argument("--full-figures", metavar="REGEX",
                    help="groups whose SLUG matches REGEX get every per-group figure whatever --figure-kinds says "
                         "(and figures against load whose name matches are drawn)")
    ap.add_argument("--dpi", type=int, default=110, help="PNG resolution (default: 110)")
    ap.add_argument("--title", default="dike-emu report")
    ap.add_argument("--preamble", help="a Markdown file to put under the title")
    ap.add_argument("--headline-weights", default="demand", metavar="WEIGHTING",
                    help="tenant weighting of the setting the figures show when a group holds several "
                         "(default: demand; with oracle duration knowledge)")
    ap.add_argument("--strict", action="store_true", help="stop at the first input that is not a complete output")
    ap.add_argument("--units", metavar="SPEC",
                    help="time unit of the tables, sentences and figures: s, min, h or d for every time metric, "
                         "METRIC=UNIT for one (e.g. h,p50_jct=min); default: h when the median average JCT of "
                         "the report's rows is an hour or more, else s")
    ap.add_argument("--columns", metavar="LIST",
                    help="metrics of the summary tables, comma-separated (%s); default: all in Markdown, "
                         "%s in LaTeX" % (", ".join(m[0] for m in METRICS), ", ".join(tables.PAPER_COLUMNS)))
    ap.add_argument("--figsize", choices=sorted(figures.PRESETS), default="column",
                    help="figure width: column (3.4 in, one column of a two-column paper) or page (7 in); "
                         "fonts are 7-8 pt at that size (default: column)")
    ap.add_argument("--policies", metavar="LIST",
                    help="rows the per-row figures draw, comma-separated: policy names (all their rows) or row "
                         "names as the figures print them (e.g. 'fifo,srtf,dike w=0,dike w=1'); default: every "
                         "baseline and Dike at its default knob")
    ap.add_argument("--reference", metavar="ROW",
                    help="the row paired differences are taken from (default: Dike at its default knob, "
                         "'dike w=1')")
    ap.add_argument("--window", choices=("auto", "on", "off"), default="auto",
                    help="metrics over the steady-state window (/summary/window, metrics.window) instead of the "
                         "whole run: auto = when every run has one (default), on = required, off = whole run")
    args = ap.parse_args(argv)
    if args.columns:
        args.columns = [c.strip() for c in args.columns.split(",") if c.strip()]
        bad = [c for c in args.columns if c not in tables.METRIC]
        if bad or not args.columns:
            ap.error("--columns: unknown metric %s (%s)" % (", ".join(bad) or "(none given)",
                                                           ", ".join(m[0] for m in METRICS)))
    if args.units:
        try:
            Units.choose([], args.units)
        except tables.UnitsError as e:
            ap.error(str(e))
    if args.policies:
        args.policies = [x.strip() for x in args.policies.split(",") if x.strip()]
    args.formats = [f.strip().lower() for f in args.formats.split(",") if f.strip()]
    bad = [f for f in args.formats if f not in ("png", "pdf", "svg")]
    if bad:
        ap.error("unknown figure format %s (png, pdf, svg)" % ", ".join(bad))
    args.figure_kinds = [k.strip() for k in args.figure_kinds.split(",") if k.strip()]
    bad = [k for k in args.figure_kinds if k not in ALL_KINDS]
    if bad:
        ap.error("unknown figure kind %s (%s)" % (", ".join(bad), ", ".join(ALL_KINDS)))
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

