"""Statistics of the report: means over seeds with 95% confidence intervals, and paired
differences between two rows that ran the same seeds.

Student's t quantiles come from scipy (python3-scipy), not a hand-copied table.
"""
import math

try:
    from scipy import stats as _sp
except ImportError as e:  # pragma: no cover - the message is the point
    raise SystemExit("report: %s; use Debian's /usr/bin/python3 with python3-scipy (apt-get install python3-scipy)" % e)

LEVEL = 0.95


def t_quantile(df):
    """Student's t two-sided 95% quantile (the 0.975 quantile) for df degrees of freedom."""
    return float(_sp.t.ppf(0.5 + LEVEL / 2, df))


def mean_ci(values):
    """(mean, 95% CI half-width or None, n) of a list of numbers: t(0.975, n-1) * s / sqrt(n),
    s the sample standard deviation. One value has no interval."""
    n = len(values)
    if n == 0:
        return (float("nan"), None, 0)
    if n == 1:
        return (values[0], None, 1)
    m = math.fsum(values) / n
    s = math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1))
    return (m, t_quantile(n - 1) * s / math.sqrt(n), n)


class Paired:
    """The difference row - reference over the seeds both ran: mean, 95% half-width, n, and
    whether the interval excludes zero. The policies of a group replay the same seeded
    workloads, so the per-seed difference removes the workload's own variation: this interval is
    what tells two rows apart, not the overlap of their separate intervals."""

    def __init__(self, diffs):
        self.diffs = list(diffs)
        self.mean, self.half, self.n = mean_ci(self.diffs)

    @property
    def lo(self):
        return self.mean - self.half if self.half is not None else float("nan")

    @property
    def hi(self):
        return self.mean + self.half if self.half is not None else float("nan")

    @property
    def significant(self):
        """The 95% interval excludes zero (needs at least two seeds)."""
        return self.half is not None and math.isfinite(self.mean) and abs(self.mean) > self.half


def paired(row_by_seed, ref_by_seed):
    """Paired over the seeds both dicts (seed -> value) hold; None with fewer than two seeds in common."""
    common = sorted(set(row_by_seed) & set(ref_by_seed))
    if len(common) < 2:
        return None
    return Paired(row_by_seed[s] - ref_by_seed[s] for s in common)
