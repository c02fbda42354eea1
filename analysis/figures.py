"""The report's figures: one function per kind, drawn at print size.

Every figure is drawn at the width it is printed at (--figsize column: 3.4 in, one column of a
two-column paper; page: 7 in, the full text width), so its fonts are their printed size; no
text is smaller than MIN_FONT_PT (7 pt), which FigureWriter checks before it saves.
"""
import math
import os

import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import cm  # noqa: E402
import matplotlib.ticker  # noqa: E402

import stats  # noqa: E402

BASE_COLORS = {"fifo": "#1f77b4", "sjf": "#17becf", "srtf": "#2ca02c", "las": "#9467bd",
               "themis": "#8c564b", "gandiva-fair": "#e377c2", "drf": "#7f7f7f"}
EXTRA_COLORS = ["#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#000000"]
MARKERS = {"fifo": "o", "sjf": "s", "srtf": "^", "las": "v", "themis": "D", "gandiva-fair": "P",
           "drf": "X"}
EXTRA_MARKERS = ["<", ">", "p", "h", "*", "8", "d"]
LINESTYLES = ["-", "--", ":", "-."]

PDF_META = {"CreationDate": None, "Producer": None, "Creator": None}
PNG_META = {"Software": None}


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
# Sizes and fonts

# --figsize: the printed width in inches (one column of a two-column paper; the full text width).
PRESETS = {"column": 3.4, "page": 7.0}
MIN_FONT_PT = 7.0


class Preset:
    def __init__(self, name):
        self.name = name
        self.width = PRESETS[name]
        self.column = name == "column"
        self.ncol = 2 if self.column else 4      # legend columns

    def size(self, aspect):
        """(width, height) for a plot area of this height/width ratio."""
        return (self.width, self.width * aspect)


def setup_matplotlib():
    """Fonts at their printed size (the figures are drawn at print width): 8 pt text, 7 pt ticks
    and legends."""
    plt.rcParams.update({
        "figure.dpi": 100, "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8,
        "legend.fontsize": 7, "legend.title_fontsize": 7, "xtick.labelsize": 7, "ytick.labelsize": 7,
        "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5, "lines.linewidth": 1.2,
        "lines.markersize": 4, "axes.linewidth": 0.6, "savefig.bbox": "tight", "savefig.pad_inches": 0.02,
        "pdf.fonttype": 42, "svg.hashsalt": "dike-emu", "path.simplify": True,
    })


class FigureTooSmallText(RuntimeError):
    pass


class FigureWriter:
    def __init__(self, folder, formats, dpi, preset):
        self.folder = folder
        self.formats = formats
        self.dpi = dpi
        self.preset = preset
        self.written = []

    def save(self, fig, name, layout=True):
        for ax in fig.axes:
            for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
                if scale == "log":
                    plain_log_labels(axis)
        if layout:
            fig.tight_layout(pad=0.3)
        os.makedirs(self.folder, exist_ok=True)
        paths = []
        for fmt in self.formats:
            p = os.path.join(self.folder, "%s.%s" % (name, fmt))
            meta = PDF_META if fmt == "pdf" else PNG_META if fmt == "png" else None
            fig.savefig(p, format=fmt, dpi=self.dpi, metadata=meta)
            paths.append(p)
        small = [t for t in fig.findobj(matplotlib.text.Text)
                 if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_FONT_PT - 1e-9]
        plt.close(fig)
        if small:   # a programming error: every text of a figure is set at 7 pt or more
            raise FigureTooSmallText("%s: text %r at %.1f pt, below %g pt at print size"
                                     % (name, small[0].get_text(), small[0].get_fontsize(), MIN_FONT_PT))
        self.written += paths
        return paths


def legend_below(fig, axes, ncol, title=None, handles=None, labels=None):
    """One legend for the figure, under its axes: the figure keeps its printed width."""
    if handles is None:
        handles, labels, seen = [], [], set()
        for ax in axes:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in seen:
                    seen.add(lab)
                    handles.append(h)
                    labels.append(lab)
    if handles:
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(ncol, len(handles)),
                   frameon=False, title=title, borderaxespad=0.0, columnspacing=1.0, handlelength=1.8)


def panels(preset, n, aspect):
    """n panels side by side on a page, stacked in a column."""
    if preset.column:
        return plt.subplots(n, 1, figsize=(preset.width, preset.width * aspect * n), squeeze=False)
    return plt.subplots(1, n, figsize=(preset.width, preset.width / n * aspect * 1.1), squeeze=False)


# ---------------------------------------------------------------------------------------------
# Figures. Each takes a FigureView (report.py): the rows to draw (v.points: the baselines and one
# Dike knob by default), Dike's every knob value of the setting (v.dike, the frontier's line), the
# report's units (v.units), and returns the paths written (None: nothing worth drawing).

def fig_cdf(v, pal, fw, what):
    """JCT CDF (one panel), or rho CDF and its tail 1 - CDF on log-log axes (two panels)."""
    pr = fw.preset
    if what == "jct":
        fig, ax = plt.subplots(figsize=pr.size(0.62))
        axes = [ax]
    else:
        fig, axs = panels(pr, 2, 0.62)
        axes = list(axs.flat)
    div = v.units.div("avg_jct")
    un = v.units.name("avg_jct")
    nmax = 1
    for p in v.points:
        vals = np.concatenate([finished(r)[what] for r in p.seed_runs]).astype(float)
        vals = vals[np.isfinite(vals) & (vals > 0)]
        if not len(vals):
            continue
        if what == "jct":
            vals = vals / div
        nmax = max(nmax, len(vals))
        x, y = subsample_cdf(vals)
        kw = dict(color=pal.color(p), ls=pal.linestyle(p), lw=pal.linewidth(p), label=v.label(p))
        axes[0].step(x, y, where="post", **kw)
        if what != "jct":
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
    axes[0].set_ylabel("fraction of jobs")
    if what == "jct":
        axes[0].set_xlabel("job completion time (%s, log scale)" % un)
        legend_below(fig, axes, pr.ncol)
        return fw.save(fig, "%s-jct_cdf" % v.slug)
    for ax in axes:
        ax.axvline(1.0, color="black", lw=0.8, ls="--", zorder=0)
    axes[0].set_xlabel("ρ = JCT / T_ideal (log scale; ρ ≤ 1 is fair)")
    axes[1].set_yscale("log")
    axes[1].set_ylim(1.0 / nmax, 1.0)
    axes[1].set_xlabel("ρ (log scale)")
    axes[1].set_ylabel("jobs with ρ > x (log)")
    legend_below(fig, axes, pr.ncol)
    return fw.save(fig, "%s-rho_cdf" % v.slug)


def fig_timeseries(v, pal, fw):
    pr = fw.preset
    fig, (a1, a2) = plt.subplots(2, 1, figsize=pr.size(0.9 if pr.column else 0.5), sharex=True)
    tmax = max((float(p.first.timeseries["time"][-1]) for p in v.points if len(p.first.timeseries["time"])),
               default=1.0)
    unit, div = time_axis(tmax)
    for p in v.points:
        ts = p.first.timeseries
        if not len(ts["time"]):
            continue
        t, (busy, queued) = binned(ts["time"].astype(float), [ts["busy_gpus"], ts["queued"]])
        kw = dict(color=pal.color(p), ls=pal.linestyle(p), lw=pal.linewidth(p) * 0.7, label=v.label(p))
        a1.plot(t / div, busy, **kw)
        a2.plot(t / div, queued, **kw)
    if v.gpus:
        a1.axhline(v.gpus, color="black", lw=0.7, ls=":", zorder=0)
        a1.set_ylim(0, v.gpus * 1.08)
    a1.set_ylabel("busy GPUs (of %d)" % v.gpus)
    a2.set_ylabel("jobs queued")
    a2.set_xlabel("simulated time (%s)" % unit)
    a2.set_ylim(bottom=0)
    a1.set_xlim(left=0)
    fig.align_ylabels([a1, a2])
    legend_below(fig, [a1], pr.ncol)
    return fw.save(fig, "%s-timeseries" % v.slug)


def fig_node_heatmap(v, fw):
    """Node-by-time heat map (analysis/node_heatmap.py) of one run of the group with
    /node_timeseries: Dike at its default knob if it has one, else the first row that has."""
    import node_heatmap
    order = ([v.default_dike] if v.default_dike else []) + list(v.points)
    for p in order:
        data = node_heatmap.read(p.first.path)
        if data is None:
            continue
        dt, busy, factor, up = data
        pr = fw.preset
        fig, axes = plt.subplots(3, 1, figsize=pr.size(1.1 if pr.column else 0.6), sharex=True)
        per = node_heatmap.draw(axes, fig, dt, busy, factor, up)
        axes[0].set_title("%s: %s per row, samples every %g s" % (v.label(p), "%d nodes" % per if per > 1
                                                                   else "one node", dt))
        return fw.save(fig, "%s-node_heatmap" % v.slug)
    return None


def tenant_matrix(run, top, G):
    """Shares of the cluster over time: columns = the tenants in @p top, then the rest summed."""
    ts = run.timeseries
    tg = np.asarray(ts["tenant_gpus"], dtype=float)
    if tg.ndim != 2 or not len(ts["time"]):
        return None, None
    cols = np.zeros((tg.shape[0], len(top) + 1))
    for j, nm in enumerate(run.tenant_names()[:tg.shape[1]]):
        k = top.index(nm) if nm in top else len(top)
        cols[:, k] += tg[:, j]
    return ts["time"].astype(float), cols / G


def share_distance(a, b):
    """Mean over the common time samples of the total-variation distance between two runs' tenant
    shares of the cluster (half the sum of absolute differences): 0 = the same split."""
    n = min(len(a), len(b))
    if n == 0:
        return 0.0
    return float(np.mean(0.5 * np.abs(a[:n] - b[:n]).sum(axis=1)))


def fig_tenant_share(v, fw, max_panels=4):
    """Stacked tenant shares over time, in at most 4 panels: Dike at the default knob and the
    baselines whose split of the cluster differs most from it (the rest are named with their
    distance in the report, which is what a reader compares anyway)."""
    pr = fw.preset
    pts = [p for p in v.points if p.first.timeseries["tenant_gpus"].ndim == 2]
    first = pts[0].first if pts else None
    if first is None or len(first.tenant_names()) < 2:
        return None, []
    names = first.tenant_names()
    t0 = first.tenants
    order = np.argsort(-t0["gpu_seconds"], kind="stable") if "gpu_seconds" in t0.dtype.names else np.arange(len(names))
    top = [names[i] for i in order[:7]] if len(names) > 8 else [names[i] for i in order]
    G = v.gpus or 1
    mats = {}
    for p in pts:
        t, m = tenant_matrix(p.first, top, G)
        if m is not None:
            mats[id(p)] = (t, m)
    ref = v.default_dike if v.default_dike is not None and id(v.default_dike) in mats else pts[0]
    others = [p for p in pts if p is not ref and id(p) in mats]
    dist = sorted(((share_distance(mats[id(ref)][1], mats[id(p)][1]), i, p) for i, p in enumerate(others)),
                  key=lambda x: (-x[0], x[1]))
    shown = [ref] + [p for _, _, p in dist[:max_panels - 1]]
    has_other = len(names) > len(top)
    colours = [plt.get_cmap("tab10")(i % 10) for i in range(len(top))] + ["#cccccc"]
    n = len(shown)
    ncols = 2 if n > 1 else 1
    nrows = int(math.ceil(n / ncols))
    h = pr.width * (0.42 if pr.column else 0.22) * nrows + 0.2
    fig, axes = plt.subplots(nrows, ncols, figsize=(pr.width, h), sharex=True, sharey=True, squeeze=False)
    tmax = max(float(mats[id(p)][0][-1]) for p in shown)
    unit, div = time_axis(tmax)
    for ax, p in zip(axes.flat, shown):
        t, m = mats[id(p)]
        t, (m,) = binned(t, [m], nbins=200)
        series = [m[:, k] for k in range(len(top) + (1 if has_other else 0))]
        ax.stackplot(t / div, *series, colors=colours[:len(series)], lw=0, rasterized=True)
        ax.set_title(v.label(p), pad=2)
        ax.set_ylim(0, 1.0)
        ax.set_xlim(0, tmax / div)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("share of GPUs")
    for ax in axes[-1, :]:
        ax.set_xlabel("time (%s)" % unit)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[i]) for i in range(len(top))]
    labels = list(top)
    if has_other:
        handles.append(plt.Rectangle((0, 0), 1, 1, color=colours[-1]))
        labels.append("%d others" % (len(names) - len(top)))
    fig.tight_layout(pad=0.3, h_pad=0.4, w_pad=0.3)
    legend_below(fig, [], pr.ncol + 1, title="tenant (largest by GPU-seconds)", handles=handles, labels=labels)
    return fw.save(fig, "%s-tenant_share" % v.slug, layout=False), [(d, p) for d, _, p in dist]


def fig_tenant_entitlement(v, pal, fw, has_shares):
    """Received share of GPU-seconds against entitled share, one marker per (row, tenant): on the
    diagonal a tenant got what weighted max-min fairness entitled it to."""
    pts = [p for p in v.points if has_shares(p.first)]
    if not pts or len(pts[0].first.tenant_names()) < 2:
        return None
    pr = fw.preset
    fig, ax = plt.subplots(figsize=pr.size(0.85 if pr.column else 0.45))
    lo = 1.0
    for p in pts:
        t = p.first.tenants
        x = np.asarray(t["entitled_share"], dtype=float)
        y = np.asarray(t["gpu_share"], dtype=float)
        keep = (x > 0) & (y > 0)
        if keep.any():
            lo = min(lo, float(x[keep].min()), float(y[keep].min()))
        ax.scatter(x[keep], y[keep], s=12, marker=pal.marker(p), facecolors="none" if p.policy != "dike" else pal.color(p),
                   edgecolors=pal.color(p), linewidths=0.8, alpha=0.85, label=v.label(p))
    log = lo < 0.02
    lim_lo = 10 ** math.floor(math.log10(lo)) if log else 0.0
    ax.plot([lim_lo or 1e-9, 1], [lim_lo or 1e-9, 1], color="#888888", lw=0.7, ls="--", zorder=0,
            label="received = entitled")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlim(lim_lo, 1)
    ax.set_ylim(lim_lo, 1)
    ax.set_xlabel("entitled share%s" % (" (log scale)" if log else ""))
    ax.set_ylabel("received share of GPU-s%s" % (" (log)" if log else ""))
    if not pr.column:
        ax.set_aspect("equal")
    legend_below(fig, [ax], pr.ncol, title="one marker per tenant")
    return fw.save(fig, "%s-tenant_entitlement" % v.slug)


def fig_frontier(v, pal, fw):
    """Average JCT against max rho and against the unfair fraction: Dike's points joined in knob
    order, baselines as markers (named in the legend). Each axis starts at zero unless its values
    span more than a decade; then it is logarithmic and says so (span_scale): on the real traces
    the slowest baselines' average JCTs reach 45-105 times Dike's, and a linear axis flattens
    Dike's knob line and the best baselines onto its floor. With several seeds: each seed a small
    dot, the mean a marker with its 95% CI as thin bars."""
    pr = fw.preset
    fig, axs = panels(pr, 2, 0.6)
    axes = list(axs.flat)
    units = v.units
    div, un = units.div("avg_jct"), units.name("avg_jct")
    ys_all = []

    def draw(ax, p, xkey, marker, ms, z, xs_seen, label=None):
        x, y = p.stats[xkey][0], p.stats["avg_jct"][0] / div
        xe, ye = p.stats[xkey][1], p.stats["avg_jct"][1]
        if p.n > 1:
            sx = [r.summary[xkey] for r in p.seed_runs]
            sy = [r.summary["avg_jct"] / div for r in p.seed_runs]
            ax.plot(sx, sy, ".", ms=2, color=pal.color(p), alpha=0.6, zorder=z - 1)
            ax.errorbar([x], [y], xerr=None if xe is None else [xe], yerr=None if ye is None else [ye / div],
                        fmt="none", ecolor=pal.color(p), alpha=0.5, elinewidth=0.6, capsize=1.5, zorder=z - 1)
            xs_seen.extend(sx)
            ys_all.extend(sy)
        ax.plot([x], [y], marker, ms=ms, color=pal.color(p), mec="black", mew=0.4, zorder=z, ls="none", label=label)
        xs_seen.append(x)
        ys_all.append(y)
        return x, y

    for ax, xkey, xlabel in ((axes[0], "max_rho", "max ρ"), (axes[1], "unfair_fraction", "unfair fraction (ρ > 1)")):
        xs_seen = []
        variants = {}
        for p in v.dike:
            variants.setdefault(p.variant, []).append(p)
        for vi, (var, plist) in enumerate(sorted(variants.items())):
            plist = sorted(plist, key=lambda p: p.weight)
            ax.plot([p.stats[xkey][0] for p in plist], [p.stats["avg_jct"][0] / div for p in plist],
                    color="#b2182b", lw=1.0, ls=LINESTYLES[vi % 4], zorder=1,
                    label="dike, w = " + ", ".join(fmt_w(p.weight) for p in plist) + (" (%s)" % var if var else ""))
            for i, p in enumerate(plist):
                x, y = draw(ax, p, xkey, "o", 4, 4, xs_seen)
                if i in (0, len(plist) - 1):   # the ends of the knob line; the legend lists the rest
                    # the two ends on opposite sides of their markers, so that they do not overlap
                    ax.annotate("w=%s" % fmt_w(p.weight), (x, y), textcoords="offset points",
                                xytext=(3, -9) if i == 0 else (-3, 4), ha="left" if i == 0 else "right",
                                fontsize=7, color="#67000d")
        for p in v.baselines:
            draw(ax, p, xkey, pal.marker(p), 5, 3, xs_seen, label=v.label(p))
        scale, lo, hi = span_scale(xs_seen, 1.1)
        if scale == "log":
            ax.set_xscale("log")
            xlabel += " (log scale)"
        if any(math.isfinite(x) for x in xs_seen):
            ax.set_xlim(lo, hi)
        ax.set_xlabel(xlabel + ", lower is fairer")
    scale, lo, hi = span_scale(ys_all, 1.12)
    for ax in axes:
        if scale == "log":
            ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        ax.set_ylabel("average JCT (%s%s)" % (un, ", log scale" if scale == "log" else ""))
    legend_below(fig, axes, pr.ncol)
    return fw.save(fig, "%s-frontier" % v.slug)


def fig_jct_by_size(v, pal, fw):
    """Mean JCT per job-size bucket: one marker per row and bucket, joined per row (no bars: the
    y axis is logarithmic, where a bar's length depends on where the axis starts)."""
    pr = fw.preset
    present = []
    for lo, hi in SIZE_BUCKETS:
        if any(((r.jobs["num_gpus"] >= lo) & (r.jobs["num_gpus"] <= hi)).any() for p in v.points for r in p.seed_runs):
            present.append((lo, hi))
    if len(present) < 2:
        return None
    div, un = v.units.div("avg_jct"), v.units.name("avg_jct")
    fig, ax = plt.subplots(figsize=pr.size(0.62 if pr.column else 0.33))
    xs = np.arange(len(present))
    counts = [int(((v.points[0].first.jobs["num_gpus"] >= lo) & (v.points[0].first.jobs["num_gpus"] <= hi)).sum())
              for lo, hi in present]
    npts = len(v.points)
    for i, p in enumerate(v.points):
        means, errs = [], []
        for lo, hi in present:
            per_seed = []
            for r in p.seed_runs:
                f = finished(r)
                sel = f[(f["num_gpus"] >= lo) & (f["num_gpus"] <= hi)]["jct"]
                if len(sel):
                    per_seed.append(float(sel.mean()))
            m, ci, _ = stats.mean_ci(per_seed)
            means.append(m / div)
            errs.append(0.0 if ci is None else ci / div)
        dx = (i - (npts - 1) / 2) * min(0.06, 0.6 / max(npts, 1))    # side by side, not on top of each other
        ax.errorbar(xs + dx, means, yerr=[errs, errs] if any(errs) else None, marker=pal.marker(p), ms=3.5,
                    color=pal.color(p), lw=0.8, ls=pal.linestyle(p), elinewidth=0.6, capsize=1.5,
                    label=v.label(p))
    ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels(["%s\n%d" % (bucket_label(lo, hi), c) for (lo, hi), c in zip(present, counts)])
    ax.set_xlabel("job size (GPUs) and jobs of that size")
    ax.set_ylabel("mean JCT (%s, log scale)" % un)
    ax.grid(True, axis="y", alpha=0.3)
    ax.grid(False, axis="x")
    legend_below(fig, [ax], pr.ncol)
    return fw.save(fig, "%s-jct_by_size" % v.slug)


def fig_against_load(name, series, pal, fw, units, xlabel="offered load"):
    """Average JCT and unfair fraction against offered load, one line per row (@p series: a list
    of (label, [(load, Point), ...]) in load order), the markers at the loads run. Each y axis
    starts at zero (a JCT that doubles looks doubled) unless its values span more than a decade,
    as on the real traces, where the slowest baselines sit 45-105 times above Dike and SRTF and
    a linear axis draws those on one line: then it is logarithmic and says so (span_scale). With
    several seeds, 95% bars of the mean (cut at zero)."""
    pr = fw.preset
    fig, axs = panels(pr, 2, 0.6)
    axes = list(axs.flat)
    loads = sorted(set(x for _, pts in series for x, _ in pts))
    div, un = units.div("avg_jct"), units.name("avg_jct")
    for ax, key, ylabel, scale in ((axes[0], "avg_jct", "average JCT (%s)" % un, div),
                                   (axes[1], "unfair_fraction", "unfair fraction (ρ > 1)", 1.0)):
        seen = []
        for label, pts in series:
            p0 = pts[0][1]
            xs = [x for x, _ in pts]
            ys = [p.stats[key][0] / scale for _, p in pts]
            es = [(p.stats[key][1] or 0.0) / scale for _, p in pts]
            ax.errorbar(xs, ys, yerr=es if any(es) else None, marker=pal.marker(p0), ms=3.5, color=pal.color(p0),
                        ls=pal.linestyle(p0), lw=0.7 * pal.linewidth(p0), elinewidth=0.6, capsize=1.5, label=label)
            seen += ys + [y + e for y, e in zip(ys, es)]
        yscale, lo, hi = span_scale(seen, 1.12)
        if yscale == "log":
            ax.set_yscale("log")
            ylabel = ylabel[:-1] + ", log scale)" if ylabel.endswith(")") else ylabel + " (log scale)"
        ax.set_ylim(lo, hi)
        ax.set_xticks(loads)
        ax.set_xticklabels(["%g" % x for x in loads])
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    legend_below(fig, axes, pr.ncol)
    return fw.save(fig, name)


def fig_scaling(groups, fw):
    """Engine wall time and events/s against MPI ranks, for the configurations run with several
    rank counts; None when there are none (one rank count says nothing about scaling)."""
    multi = scaling_series(groups)
    if not multi:
        return None
    pr = fw.preset
    fig, axs = panels(pr, 2, 0.6)
    a1, a2 = axs.flat
    allranks = set()
    colours = plt.get_cmap("tab10")
    for i, (lab, series) in enumerate(multi[:10]):
        rs = [r for r, _ in series]
        wall = [float(np.mean([x.engine_wall for x in runs])) for _, runs in series]
        eps = [float(np.mean([x.events / x.engine_wall if x.engine_wall > 0 else np.nan for x in runs]))
               for _, runs in series]
        allranks.update(rs)
        a1.plot(rs, wall, "o-", color=colours(i % 10), label=lab)
        a1.plot(rs, [wall[0] * rs[0] / r for r in rs], ":", color=colours(i % 10), lw=0.8)
        a2.plot(rs, eps, "o-", color=colours(i % 10), label=lab)
    for ax in (a1, a2):
        ys = [y for line in ax.get_lines() for y in line.get_ydata() if np.isfinite(y)]
        if ys:
            ax.set_ylim(0, max(ys) * 1.12 or 1.0)
        ax.set_xlabel("MPI ranks")
        rs = sorted(allranks)
        if rs[-1] / max(rs[0], 1) > 8:
            ax.set_xscale("log", base=2)
        ax.set_xticks(rs)
        ax.set_xticklabels([str(r) for r in rs])
    a1.set_ylabel("engine wall time (s)")
    a2.set_ylabel("events per second")
    a2.yaxis.set_major_formatter(matplotlib.ticker.EngFormatter(sep=""))
    legend_below(fig, [a1], 1, title="dotted: ideal (wall time ∝ 1/ranks)")
    return fw.save(fig, "scaling")


def span_scale(vals, pad):
    """(scale, low, high) of an axis for @p vals (non-finite ones ignored): ("log", min / f,
    max × f) with f = (max / min)^0.08 when they are all positive and span more than a decade,
    else ("linear", 0, max × @p pad), or ("linear", 0, 1) when there is nothing to show."""
    vals = [x for x in vals if math.isfinite(x)]
    if vals and min(vals) > 0 and max(vals) / min(vals) > 10:
        f = (max(vals) / min(vals)) ** 0.08
        return "log", min(vals) / f, max(vals) * f
    return "linear", 0.0, (max(vals) * pad if vals else 0.0) or 1.0


def fmt_w(w):
    return ("%g" % w) if w == w else "?"


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


SIZE_BUCKETS = [(1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 128), (129, 256),
                (257, 512), (513, 1 << 30)]


def bucket_label(lo, hi):
    if lo == hi:
        return "%d" % lo
    if hi >= 1 << 30:
        return "≥%d" % lo
    return "%d–%d" % (lo, hi)


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
