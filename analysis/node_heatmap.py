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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="dike-emu output (.h5) with /node_timeseries")
    ap.add_argument("-o", "--out", default=None, help="PNG to write (default: RUN.nodes.png)")
    ap.add_argument("--nodes", default=None, help="node range A:B (default: all)")
    args = ap.parse_args()
    out = args.out or (args.run.rsplit(".h5", 1)[0] + ".nodes.png")
    try:
        f = h5py.File(args.run, "r")
    except OSError as e:
        sys.exit("node_heatmap: %s: %s" % (args.run, e))
    with f:
        if "node_timeseries" not in f:
            sys.exit("node_heatmap: %s: no /node_timeseries (run with --set output.node_timeseries_s=S "
                     "and a node model on)" % args.run)
        g = f["node_timeseries"]
        dt = float(g.attrs["interval_s"])
        busy, factor, up = g["busy_gpus"][:], g["factor"][:], g["up"][:]
    a, b = 0, busy.shape[0]
    if args.nodes:
        try:
            a, b = (int(x) for x in args.nodes.split(":"))
        except ValueError:
            sys.exit("node_heatmap: --nodes: expected A:B, got %r" % args.nodes)
        if not 0 <= a < b <= busy.shape[0]:
            sys.exit("node_heatmap: --nodes %d:%d outside 0:%d" % (a, b, busy.shape[0]))
    busy, factor, up = busy[a:b], factor[a:b], up[a:b]
    per = max(1, -(-busy.shape[0] // MAX_ROWS))
    hours = busy.shape[1] * dt / 3600.0
    extent = [0, hours, b, a]
    fig, axes = plt.subplots(3, 1, figsize=(11, 9), sharex=True)
    panels = [(busy, "busy GPUs", "viridis", None), (factor, "speed factor", "magma", (0, 1)),
              (up, "up (1) / down (0)", "gray", (0, 1))]
    for ax, (data, label, cmap, lim) in zip(axes, panels):
        im = ax.imshow(group_rows(data, per), aspect="auto", interpolation="nearest", cmap=cmap,
                       extent=extent, vmin=lim[0] if lim else None, vmax=lim[1] if lim else None)
        ax.set_ylabel("node")
        fig.colorbar(im, ax=ax, label=label)
    axes[-1].set_xlabel("simulated time (h)")
    axes[0].set_title("%s: nodes %d-%d, %s per row, samples every %g s"
                      % (args.run, a, b - 1, "%d nodes" % per if per > 1 else "one node", dt))
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
