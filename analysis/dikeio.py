"""Read dike-emu HDF5 output into numpy (Debian's /usr/bin/python3 with python3-h5py, python3-numpy).

    import dikeio
    run = dikeio.load("results/default.h5")
    run.jobs["jct"].mean(), run.summary["jain"], run.config["scheduler"]["policy"]
"""
import configparser
import os

import h5py
import numpy as np

SCHEMA_VERSION = 1


class NotDikeOutput(Exception):
    """The file is not a complete dike-emu output of a schema this module reads."""


class Run:
    """One run: root attributes, tables as numpy structured arrays, summary as a dict."""

    def __init__(self, path):
        self.path = path
        try:
            f = h5py.File(path, "r")
        except OSError as e:
            raise NotDikeOutput("%s: not an HDF5 file (%s)" % (path, e))
        with f:
            if "schema_version" not in f.attrs:
                raise NotDikeOutput("%s: no schema_version attribute: not a complete dike-emu output" % path)
            v = int(f.attrs["schema_version"])
            if v != SCHEMA_VERSION:
                raise NotDikeOutput("%s: schema_version %d, this reader knows %d" % (path, v, SCHEMA_VERSION))
            for name in ("jobs", "tenants", "summary", "timeseries", "nodes", "perf"):
                if name not in f:
                    raise NotDikeOutput("%s: missing /%s" % (path, name))
            self.attrs = {k: _s(v) for k, v in f.attrs.items()}
            self.jobs = f["jobs"][:]
            self.tenants = f["tenants"][:]
            self.nodes = f["nodes"][:]
            self.perf = f["perf"][:]
            self.summary = {k: _s(v) for k, v in f["summary"].attrs.items() if k not in ("units", "description")}
            self.timeseries = {k: f["timeseries"][k][:] for k in f["timeseries"]}
        self.config = configparser.ConfigParser(interpolation=None)
        self.config.read_string(self.attrs.get("config", ""))

    def get(self, section, key, default=None):
        return self.config.get(section, key, fallback=default)

    @property
    def policy(self):
        return self.attrs["policy"]

    @property
    def trace(self):
        return os.path.basename(self.attrs.get("trace_path", "synthetic"))


def _s(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.generic):
        return v.item()
    return v


def load(path):
    return Run(path)


def load_dir(folder):
    """Every complete output under folder (recursively), sorted by path."""
    runs = []
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith(".h5") and ".tmp-" not in name:
                runs.append(load(os.path.join(root, name)))
    return sorted(runs, key=lambda r: r.path)
