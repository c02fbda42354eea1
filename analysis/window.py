"""The steady-state window of a run: /summary/window, when the run has one.

`metrics.window` (dike-emu) stores, beside the whole-run /summary, a group /summary/window with
the same metric attributes computed over a window of job ids or of time, plus attributes that
describe the window (its bounds, how many jobs it holds). This module reads it; the report uses
it in place of /summary when asked to (report.py --window).
"""
import h5py

import dikeio

# Attributes of /summary/window that are not metrics and not a description.
_SKIP = ("units", "description")


class Window:
    def __init__(self, metrics, about):
        self.metrics = metrics      # the /summary attributes over the window
        self.about = about          # {name: value} of the other attributes (the window's bounds ...)

    def text(self):
        """"first_job=100, last_job=900" for the report."""
        return ", ".join("%s=%s" % (k, self.about[k]) for k in sorted(self.about)) or "(no description stored)"


def read(path):
    """The run's Window, or None when it has no /summary/window (or not every metric in it)."""
    with h5py.File(path, "r") as f:
        if "summary" not in f or "window" not in f["summary"]:
            return None
        attrs = {k: dikeio._s(v) for k, v in f["summary"]["window"].attrs.items() if k not in _SKIP}
        whole = set(f["summary"].attrs)
    if not all(a in attrs for a in dikeio.SUMMARY_ATTRS):
        return None
    # the metrics are the attributes /summary has too; the rest describe the window
    metrics = {k: v for k, v in attrs.items() if k in whole}
    about = {k: v for k, v in attrs.items() if k not in whole}
    return Window(metrics, about)
