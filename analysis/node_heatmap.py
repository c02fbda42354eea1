#!/usr/bin/python3
"""Node-by-time heat maps of a run's /node_timeseries (output.node_timeseries_s > 0).

    /usr/bin/python3 analysis/node_heatmap.py RUN.h5 [-o OUT.png] [--nodes A:B]

Three panels share the time axis: busy GPUs per node, the speed factor of each node's jobs
(interference x slowdown episode x up; 1 = nothing slows them, 0 = the node is down) and up/down.
Rows are nodes in index order (racks are contiguous node ranges), columns are samples. With more
nodes than the figure has pixel rows, nodes are averaged in equal groups (the title says how many
per row), so a 12,500-node cluster still fits one page. Exit 1 with one line on stderr when the
file has no /node_timeseries.
"""
import argparse
import sys

try:
    import h5py
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:
    sys.exit("node_heatmap: %s; use Debian's /usr/bin/python3 with python3-h5py, python3-numpy "
             "and python3-matplotlib" % e)

MAX_ROWS = 600  # pixel rows of one panel, about


def group_rows(a, per):
    """Mean over consecutive groups of `per` rows (the last group may be short)."""
    if per <= 1:
        return a.astype(float)
    n = a.shape[0]
    out = np.empty(((n + per - 1) // per, a.shape[1]))
    for i, s in enumerate(range(0, n, per)):
        out[i] = a[s:s + per].mean(axis=0)
    return out


def read(path):
    """(interval_s, busy, factor, up) of a run's /node_timeseries, or None when it has none."""
    with h5py.File(path, "r") as f:
        if "node_timeseries" not in f:
            return None
        g = f["node_timeseries"]
        return float(g.attrs["interval_s"]), g["busy_gpus"][:], g["factor"][:], g["up"][:]


def draw(axes, fig, dt, busy, factor, up, first=0):
    """The three panels on @p axes (top to bottom): busy GPUs, speed factor, up/down, for nodes
    first .. first + rows - 1, at most MAX_ROWS pixel rows. Returns the nodes per row."""
    per = max(1, -(-busy.shape[0] // MAX_ROWS))
    hours = busy.shape[1] * dt / 3600.0
    extent = [0, hours, first + busy.shape[0], first]
    panels = [(busy, "busy GPUs", "viridis", None), (factor, "speed factor", "magma", (0, 1)),
              (up, "up (1) / down (0)", "gray", (0, 1))]
    for ax, (data, label, cmap, lim) in zip(axes, panels):
        im = ax.imshow(group_rows(data, per), aspect="auto", interpolation="nearest", cmap=cmap,
                       extent=extent, vmin=lim[0] if lim else None, vmax=lim[1] if lim else None)
        ax.set_ylabel("node")
        fig.colorbar(im, ax=ax, label=label)
    axes[-1].set_xlabel("simulated time (h)")
    return per


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="dike-emu output (.h5) with /node_timeseries")
    ap.add_argument("-o", "--out", default=None, help="PNG to write (default: RUN.nodes.png)")
    ap.add_argument("--nodes", default=None, help="node range A:B (default: all)")
    args = ap.parse_args()
    out = args.out or (args.run.rsplit(".h5", 1)[0] + ".nodes.png")
    try:
        data = read(args.run)
    except OSError as e:
        sys.exit("node_heatmap: %s: %s" % (args.run, e))
    if data is None:
        sys.exit("node_heatmap: %s: no /node_timeseries (run with --set output.node_timeseries_s=S "
                 "and a node model on)" % args.run)
    dt, busy, factor, up = data
    a, b = 0, busy.shape[0]
    if args.nodes:
        try:
            a, b = (int(x) for x in args.nodes.split(":"))
        except ValueError:
            sys.exit("node_heatmap: --nodes: expected A:B, got %r" % args.nodes)
        if not 0 <= a < b <= busy.shape[0]:
            sys.exit("node_heatmap: --nodes %d:%d outside 0:%d" % (a, b, busy.shape[0]))
    busy, factor, up = busy[a:b], factor[a:b], up[a:b]
    fig, axes = plt.subplots(3, 1, figsize=(11, 9), sharex=True)
    per = draw(axes, fig, dt, busy, factor, up, a)
    axes[0].set_title("%s: nodes %d-%d, %s per row, samples every %g s"
                      % (args.run, a, b - 1, "%d nodes" % per if per > 1 else "one node", dt))
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
