"""The report's summary tables: which metrics, in which unit, printed how, and which cell is best.

One unit per metric for a whole report (Units): the tables, the generated sentences, the checks'
lines and the figures all print a metric in the same unit. A cell is printed at a fixed
precision (fnum: 4 significant digits, thousands grouped); two values that print the same are a
tie. Bold marks the best printed value of a column when one row has it alone: a tied best (and so
a column where every row ties) has no bold, and neither has a column the caller names as not
comparable (Jain's index of a one-tenant trace).
Columns whose cells all print the same are left out and named in a note instead.
"""
import math
import re

try:
    from tabulate import tabulate
except ImportError as e:  # pragma: no cover
    raise SystemExit("report: %s; use Debian's /usr/bin/python3 with python3-tabulate "
                     "(apt-get install python3-tabulate)" % e)

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
METRIC = {m[0]: m for m in METRICS}
# The LaTeX table's columns unless --columns says otherwise: 8 metrics and the row name fit a
# two-column page's \textwidth (about 7 in) in \small.
PAPER_COLUMNS = ("avg_jct", "p99_jct", "makespan", "max_rho", "unfair_fraction", "jain", "utilization",
                 "preemptions_per_job")
METRIC_NAMES = {
    "avg_jct": "average JCT", "p50_jct": "median JCT", "p99_jct": "p99 JCT", "makespan": "makespan",
    "avg_queue_delay": "average queueing delay", "mean_rho": "mean ρ", "p99_rho": "p99 ρ",
    "max_rho": "max ρ", "unfair_fraction": "unfair fraction (ρ > 1)", "jain": "Jain's index",
    "utilization": "GPU utilisation", "preemptions": "preemptions",
    "preemptions_per_job": "preemptions per job",
}

TEX_HEADERS = {"avg_queue_delay": ("avg", "queueing"), "preemptions": ("preempt.", ""),
               "preemptions_per_job": ("preempt.", "per job"), "utilization": ("util.", "")}
TIME_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
# auto: hours when the median average JCT of the report's rows is an hour or more, else seconds.
AUTO_HOURS_FROM = 3600.0


class UnitsError(ValueError):
    pass


class Units:
    """One unit per time metric for a whole report. Ratios and counts have no unit."""

    def __init__(self, per_metric):
        self.per_metric = dict(per_metric)

    @classmethod
    def choose(cls, points, spec=None):
        """From --units (None or "auto": chosen from the data) and the report's rows. spec is
        "UNIT" (every time metric), "METRIC=UNIT,..." or both ("h,p50_jct=s")."""
        default = None
        over = {}
        for part in (spec or "").split(","):
            part = part.strip()
            if not part or part == "auto":
                continue
            if "=" in part:
                k, u = (x.strip() for x in part.split("=", 1))
                if k not in METRIC or METRIC[k][3] != "time":
                    raise UnitsError("--units: %s is not a time metric (%s)" % (
                        k, ", ".join(m[0] for m in METRICS if m[3] == "time")))
                if u not in TIME_UNITS:
                    raise UnitsError("--units: unknown unit %s for %s (%s)" % (u, k, ", ".join(TIME_UNITS)))
                over[k] = u
            elif part in TIME_UNITS:
                default = part
            else:
                raise UnitsError("--units: unknown unit %s (%s, or METRIC=UNIT)" % (part, ", ".join(TIME_UNITS)))
        if default is None:
            vals = sorted(p.value("avg_jct") for p in points if math.isfinite(p.value("avg_jct")))
            med = vals[len(vals) // 2] if vals else 0.0
            default = "h" if med >= AUTO_HOURS_FROM else "s"
        return cls({m[0]: over.get(m[0], default) for m in METRICS if m[3] == "time"})

    def name(self, key):
        return self.per_metric.get(key)

    def div(self, key):
        u = self.per_metric.get(key)
        return TIME_UNITS[u] if u else 1.0

    def scaled(self, key, v):
        return v / self.div(key)

    def show(self, key, v):
        """A value with its unit: "12.30 h", "0.0104", "2,547"."""
        u = self.per_metric.get(key)
        if u:
            return "%s %s" % (fnum(v / TIME_UNITS[u]), u)
        if METRIC.get(key, (0, 0, 0, ""))[3] == "count":
            return count_text(v)
        return fnum(v)

    def tex_header(self, key):
        """(first, second) header line of a LaTeX column: the name, then its unit (or the rest of
        a long name), so that a header is no wider than its numbers."""
        first, second = TEX_HEADERS.get(key, (METRIC[key][2], ""))
        u = self.per_metric.get(key)
        return first, ("(%s)" % u if u else second)

    def header(self, key, tex=False):
        m = METRIC[key]
        h = m[2] if tex else m[1]
        u = self.per_metric.get(key)
        return "%s (%s)" % (h, u) if u else h

    def describe(self):
        """"avg JCT, ... in h" for a note."""
        by = {}
        for k, u in self.per_metric.items():
            by.setdefault(u, []).append(METRIC[k][1])
        return "; ".join("%s in %s" % (", ".join(ks), u) for u, ks in sorted(by.items()))


# ---------------------------------------------------------------------------------------------
# Numbers

def fnum(v):
    """4 significant digits (at least), thousands grouped, never an exponent."""
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
    if a >= 0.01:
        return "%.4f" % v
    return "%.*f" % (3 - int(math.floor(math.log10(a))), v)


def fpair(a, b):
    """fnum of both, with more decimals when they differ but fnum prints them the same (a check
    that compares them, e.g. the knob's, then shows why it failed)."""
    sa, sb = fnum(a), fnum(b)
    if sa != sb or a == b or any(v is None or not math.isfinite(v) for v in (a, b)):
        return sa, sb
    d = len(sa.split(".")[1]) if "." in sa else 0
    for d in range(d + 1, d + 10):
        fa, fb = "{:,.{p}f}".format(a, p=d), "{:,.{p}f}".format(b, p=d)
        if fa != fb:
            return fa, fb
    return sa, sb


def sig2(x):
    """x with 2 significant digits, no exponent."""
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    d = 1 - int(math.floor(math.log10(abs(x))))
    r = round(x, d)
    return "{:,.{p}f}".format(r, p=max(d, 0))


def plus_minus(mean, half):
    """A signed difference and its half-width: the half-width with 2 significant digits, the mean
    to the same decimal place (no digits beyond what the interval resolves): "+0.035 ± 0.45"."""
    if not (math.isfinite(mean) and half is not None and math.isfinite(half)):
        return "–"
    if half == 0:
        t = fnum(mean)
    else:
        d = max(1 - int(math.floor(math.log10(abs(half)))), 0)
        t = "{:,.{p}f}".format(mean, p=d)
        if float(t.replace(",", "")) == 0:
            t = "0"
    if not t.startswith("-") and t != "0":
        t = "+" + t
    return "%s ± %s" % (t, sig2(half))


def count_text(v):
    if not math.isfinite(v):
        return "–"
    return "{:,}".format(int(v)) if v == int(v) else "{:,.1f}".format(v)


def shown(point, key, units):
    """The printed mean of a metric (no interval): what ties are decided on."""
    m = point.value(key)
    if METRIC[key][3] == "count":
        return count_text(m)
    return fnum(units.scaled(key, m))


def cell(point, key, units, tex=False):
    text = shown(point, key, units)
    ci = point.stats[key][1]
    if ci is not None:
        text += (r" $\pm$ " if tex else " ± ") + sig2(units.scaled(key, ci))
    return text


def compare_printed(key, a, b, units):
    """+1 if value a is better than b, -1 if worse, 0 if they print the same (a tie)."""
    f = (lambda v: count_text(v)) if METRIC[key][3] == "count" else (lambda v: fnum(units.scaled(key, v)))
    if f(a) == f(b) or not (math.isfinite(a) and math.isfinite(b)):
        return 0
    hi = METRIC[key][4] == "high"
    return (1 if a > b else -1) if hi else (1 if a < b else -1)


def best_rows(points, key, units):
    """{the row} whose printed value is the column's best, alone; empty when two or more rows
    share the best printed value (a tie is no win), and so when every row prints the same, or
    fewer than two rows have a value."""
    have = [p for p in points if math.isfinite(p.value(key))]
    if len(have) < 2:
        return set()
    hi = METRIC[key][4] == "high"
    best = (max if hi else min)(have, key=lambda p: p.value(key))
    top = set(p for p in have if shown(p, key, units) == shown(best, key, units))
    return top if len(top) == 1 else set()


def constant_columns(points, keys, units):
    """{key: a row} of the columns whose cells all print the same."""
    out = {}
    for k in keys:
        texts = set(cell(p, k, units) for p in points)
        if len(points) > 1 and len(texts) == 1:
            out[k] = points[0]
    return out


class Layout:
    """What a summary table shows: its columns (constant ones left out), the seeds column only
    when the rows' seed counts differ, and the bold cells."""

    def __init__(self, points, keys, units, not_bold=()):
        self.points = points
        self.units = units
        self.constant = constant_columns(points, keys, units)
        self.keys = [k for k in keys if k not in self.constant]
        ns = set(p.n for p in points)
        self.seeds_col = len(ns) > 1
        self.seeds = ns.pop() if len(ns) == 1 else None
        self.bold = {k: (set() if k in not_bold else best_rows(points, k, units)) for k in self.keys}
        self.not_bold = [k for k in not_bold if k in self.keys]

    def notes(self, tex=False, with_ci=True):
        """Sentences under the table (LaTeX-safe with tex): seeds, left-out columns, bold."""
        out = []
        pct = "\\%" if tex else "%"
        if self.seeds is not None and self.seeds > 1:
            out.append("%d seeds per row: %s." % (self.seeds, (
                "mean %s half-width of the 95%s confidence interval (Student %s)" %
                (r"$\pm$" if tex else "±", pct, "$t$" if tex else "t")) if with_ci else "the mean"))
        if self.constant:
            items = ["%s %s" % (self.units.header(k, tex), tex_number(cell(p, k, self.units, tex)) if tex
                                else cell(p, k, self.units)) for k, p in self.constant.items()]
            out.append("The same in every row (column left out): %s." % "; ".join(items))
        bolded = [k for k in self.keys if self.bold[k]]
        txt = ("Bold: the best value of a column at the printed precision, where one row has it alone (values "
               "that print the same are a tie, and a tied best is not bold)")
        if self.not_bold:
            txt += "; %s not compared (one tenant)" % ", ".join(self.units.header(k, tex) for k in self.not_bold)
        out.append(txt + "." if bolded or self.not_bold else "No column has a single best value at the printed precision.")
        return out


def md_table(points, keys, units, label, not_bold=()):
    """(Markdown table, notes) of the rows `points` and metric columns `keys`."""
    lay = Layout(points, keys, units, not_bold)
    head = ["policy"] + (["seeds"] if lay.seeds_col else []) + [units.header(k) for k in lay.keys]
    rows = []
    for p in points:
        r = [md_escape(label(p))] + ([str(p.n)] if lay.seeds_col else [])
        for k in lay.keys:
            t = cell(p, k, units)
            r.append("**%s**" % t if p in lay.bold[k] else t)
        rows.append(r)
    text = tabulate(rows, head, tablefmt="pipe", disable_numparse=True,
                    colalign=["left"] + ["right"] * (len(head) - 1))
    return text, lay.notes()


def md_escape(s):
    return s.replace("|", "\\|")


# ---------------------------------------------------------------------------------------------
# LaTeX

_TEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}
# Characters of row names and titles that pdflatex's default input encoding lacks.
_TEX_UNICODE = {"·": r"$\cdot$", "ρ": r"$\rho$", "≤": r"$\le$", "≥": r"$\ge$", "±": r"$\pm$", "–": "--",
                "—": "---", "…": r"\dots{}", "×": r"$\times$", "−": "-"}


def tex_escape(s):
    """Text for LaTeX: the ten special characters escaped, and the few non-ASCII characters the
    report uses spelled as commands (pdflatex without inputenc tricks)."""
    out = []
    for ch in s:
        if ch in _TEX_SPECIAL:
            out.append(_TEX_SPECIAL[ch])
        elif ch in _TEX_UNICODE:
            out.append(_TEX_UNICODE[ch])
        elif ord(ch) > 127:
            out.append("?")
        else:
            out.append(ch)
    return "".join(out)


def tex_number(text):
    """A printed number for a tabular cell: thousands commas braced ({,}) so they do not add space,
    the en dash of a missing value as --."""
    return text.replace(",", "{,}").replace("–", "--")


# Width estimate of a tabular in \small (9 pt): digits and most letters are about 0.5 em wide.
TEX_CHAR_PT = 4.6
TEX_TABCOLSEP_PT = 4.0
TEXTWIDTH_TWO_COLUMN_PT = 505.0    # \textwidth of the usual two-column layouts (ACM, IEEE): ~7 in


def tex_plain_len(s):
    """Printed characters of a LaTeX cell, roughly: commands and braces take no room."""
    s = re.sub(r"\$\\pm\$", "±", s)
    s = re.sub(r"\$\\[a-z]+\$", "x", s)
    s = re.sub(r"\\text[a-z]+\{([^}]*)\}", r"\1", s)
    s = re.sub(r"\\[a-zA-Z]+(\{\})?", "", s)
    s = s.replace("\\", "").replace("{", "").replace("}", "").replace("$", "")
    return len(s)


def tex_width_pt(header_cells, rows):
    """Estimated width in pt of a tabular with these header and body cells (LaTeX source)."""
    ncol = len(header_cells)
    widths = [tex_plain_len(h) for h in header_cells]
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], tex_plain_len(c))
    return sum(widths) * TEX_CHAR_PT + 2 * TEX_TABCOLSEP_PT * ncol


def tex_table(points, keys, units, label, caption, tex_label, not_bold=()):
    """A table* environment (two-column papers: the full \\textwidth) holding a booktabs tabular;
    \\input it, or copy the tabular into your own float. Cells carry their 95% intervals when the
    table still fits a two-column page's \\textwidth with them (by tex_width_pt), else the means
    only, and the caption says where the intervals are."""
    lay = Layout(points, keys, units, not_bold)
    head = ["policy"] + (["seeds"] if lay.seeds_col else []) + [units.tex_header(k)[0] for k in lay.keys]
    head2 = [""] + ([""] if lay.seeds_col else []) + [units.tex_header(k)[1] for k in lay.keys]

    def body(with_ci):
        out = []
        for p in points:
            r = [tex_escape(label(p))] + ([str(p.n)] if lay.seeds_col else [])
            for k in lay.keys:
                t = tex_number(cell(p, k, units, tex=True) if with_ci else shown(p, k, units))
                r.append("\\textbf{%s}" % t if p in lay.bold[k] else t)
            out.append(r)
        return out

    rows = body(True)
    width = tex_width_pt(head, rows + [head2])
    notes = lay.notes(tex=True)
    if any(p.stats[k][1] is not None for p in points for k in lay.keys) and width > TEXTWIDTH_TWO_COLUMN_PT:
        rows = body(False)
        width = tex_width_pt(head, rows + [head2])
        notes = lay.notes(tex=True, with_ci=False)
        notes.append("95\\% confidence intervals: in the CSV table and the paired differences of the report "
                     "(with them this table would be too wide).")
    cap = tex_escape(caption) + " " + " ".join(notes)
    out = ["% dike-emu summary table (generated by analysis/report.py); needs \\usepackage{booktabs}.",
           "%% %d columns, about %.0f pt wide in \\small (a two-column page's \\textwidth is about %.0f pt)."
           % (len(head), width, TEXTWIDTH_TWO_COLUMN_PT),
           "\\begin{table*}[t]",
           "\\centering",
           "\\small",
           "\\setlength{\\tabcolsep}{%gpt}" % TEX_TABCOLSEP_PT,
           "\\begin{tabular}{@{}l" + "r" * (len(head) - 1) + "@{}}",
           "\\toprule",
           " & ".join(head) + " \\\\"] + ([" & ".join(head2) + " \\\\"] if any(head2) else []) + [
           "\\midrule"]
    out += [" & ".join(r) + " \\\\" for r in rows]
    out += ["\\bottomrule", "\\end{tabular}", "\\caption{%s}" % cap, "\\label{tab:%s}" % tex_label,
            "\\end{table*}", ""]
    return "\n".join(out)
