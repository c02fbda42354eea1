#!/usr/bin/python3
"""Read dike-emu HDF5 output into numpy (Debian's /usr/bin/python3 with python3-h5py, python3-numpy).

    import dikeio
    run = dikeio.load("results/default.h5")      # raises dikeio.NotDikeOutput, one clear line
    run.jobs["jct"].mean(), run.summary["jain"], run.config["scheduler"]["policy"]
    runs, skipped = dikeio.load_results("results/")  # a folder, a campaign.json, or .h5 files

As a command, it checks files and prints one line per file (exit 1 if any is not a complete
dike-emu output, with the reason on stderr):

    /usr/bin/python3 analysis/dikeio.py FILE.h5 [FILE.h5 ...]

Layout and units: docs/output-schema.md. A file is a complete output when it opens as HDF5, has
the root attribute schema_version (written last, before the atomic rename) equal to
SCHEMA_VERSION, and holds every group, dataset, column and /summary attribute this module needs.
"""
import configparser
import json
import os
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # the pyenv/venv python3 of a developer machine often lacks them
    sys.exit("dikeio: %s; use Debian's /usr/bin/python3 with python3-h5py and python3-numpy "
             "(apt-get install python3-h5py python3-numpy)" % e)

SCHEMA_VERSION = 1

# dike.fairness_weight's default (`dike-emu config-reference`; 0.5 before Dike 1.1): the knob a Dike
# row without the key was run at, and the point the dominance check judges (report.py, held_out.py)
DEFAULT_KNOB = 1.0

# What this module relies on; docs/output-schema.md lists more, and newer writers may add more
# (readers ignore what they do not know).
ROOT_ATTRS = ("schema_version", "version", "policy", "placement", "seed", "ranks", "config",
              "trace_path", "trace_sha256", "wall_seconds")
DATASETS = ("jobs", "tenants", "nodes", "perf")
JOB_COLUMNS = ("job_id", "tenant", "num_gpus", "submit_time", "start_time", "finish_time",
               "duration", "jct", "queue_delay", "t_ideal", "rho", "preemptions")
TENANT_COLUMNS = ("tenant", "name")
PERF_COLUMNS = ("rank", "events", "wall_seconds")
TIMESERIES = ("time", "busy_gpus", "queued", "running", "tenant_gpus")
SUMMARY_ATTRS = ("jobs", "finished", "avg_jct", "p50_jct", "p95_jct", "p99_jct", "makespan",
                 "avg_queue_delay", "mean_rho", "p99_rho", "max_rho", "unfair_fraction", "jain",
                 "utilization", "preemptions")

MANIFEST = "campaign.json"


class NotDikeOutput(Exception):
    """The file is not a complete dike-emu output of a schema this module reads."""


class Run:
    """One run: root attributes, tables as numpy structured arrays, summary as a dict.

    attrs       root attributes (str / int / float)
    jobs, tenants, nodes, perf   numpy structured arrays, one field per column
    timeseries  dict name -> numpy array (tenant_gpus has shape (samples, tenants))

    jobs, nodes and timeseries, the large parts, are checked when the file is loaded (columns,
    row count) but read on first use, and release() drops them again: a report over hundreds of
    runs of a 100,000-job trace keeps only the summaries in memory.
    summary     dict of /summary attributes (units and description left out)
    units       dict "summary.avg_jct" -> "s", "jobs.jct" -> "s", ...
    config      configparser of the resolved configuration stored in the file
    """

    def __init__(self, path):
        self.path = path
        if not os.path.isfile(path):
            raise NotDikeOutput("%s: no such file" % path)
        try:
            f = h5py.File(path, "r")
        except OSError as e:
            raise NotDikeOutput("%s: %s" % (path, _open_error(path, e)))
        try:
            with f:
                self._read(f)
        except NotDikeOutput:
            raise
        except (OSError, KeyError, ValueError, TypeError, RuntimeError) as e:
            # A file cut short after its superblock, or damaged, fails here instead of at open.
            raise NotDikeOutput("%s: unreadable (%s): not a complete dike-emu output"
                                % (path, str(e).splitlines()[0] if str(e) else type(e).__name__))
        self.config = configparser.ConfigParser(interpolation=None)
        try:
            self.config.read_string(self.attrs.get("config", ""))
        except configparser.Error as e:
            raise NotDikeOutput("%s: stored config is not INI text (%s)" % (path, str(e).splitlines()[0]))

    def _read(self, f):
        path = self.path
        if "schema_version" not in f.attrs:
            raise NotDikeOutput("%s: no schema_version attribute: not a complete dike-emu output "
                                "(a run still in progress, a crashed run's .tmp file, or another program's HDF5)"
                                % path)
        v = int(f.attrs["schema_version"])
        if v != SCHEMA_VERSION:
            raise NotDikeOutput("%s: schema_version %d, this reader knows %d" % (path, v, SCHEMA_VERSION))
        for a in ROOT_ATTRS:
            if a not in f.attrs:
                raise NotDikeOutput("%s: missing root attribute %s: not a complete dike-emu output" % (path, a))
        for name in DATASETS + ("summary", "timeseries"):
            if name not in f:
                raise NotDikeOutput("%s: missing /%s: not a complete dike-emu output" % (path, name))
        self.attrs = {k: _s(v) for k, v in f.attrs.items()}
        njobs = _table(f, "jobs", JOB_COLUMNS, path, read=False)
        self.tenants = _table(f, "tenants", TENANT_COLUMNS, path)
        _table(f, "nodes", (), path, read=False)
        self.perf = _table(f, "perf", PERF_COLUMNS, path)
        sattrs = f["summary"].attrs
        for a in SUMMARY_ATTRS:
            if a not in sattrs:
                raise NotDikeOutput("%s: missing /summary attribute %s: not a complete dike-emu output" % (path, a))
        self.summary = {k: _s(v) for k, v in sattrs.items()
                        if k not in ("units", "description") and not k.startswith("units_")}
        ts = f["timeseries"]
        for name in TIMESERIES:
            if name not in ts:
                raise NotDikeOutput("%s: missing /timeseries/%s: not a complete dike-emu output" % (path, name))
        self._ts_names = [k for k in ts if isinstance(ts[k], h5py.Dataset)]
        self._cache = {}
        self.units = {}
        for where, obj in (("", f), ("summary.", f["summary"]), ("jobs.", f["jobs"]),
                           ("tenants.", f["tenants"]), ("perf.", f["perf"]), ("nodes.", f["nodes"])):
            self.units.update({where + k: u for k, u in _units(obj).items()})
        if njobs != int(self.summary["jobs"]):
            raise NotDikeOutput("%s: /jobs has %d rows, /summary says %d jobs" % (path, njobs, self.summary["jobs"]))

    def _lazy(self, name):
        if name not in self._cache:
            try:
                with h5py.File(self.path, "r") as f:
                    if name == "timeseries":
                        self._cache[name] = {k: f["timeseries"][k][:] for k in self._ts_names}
                    else:
                        self._cache[name] = f[name][:]
            except (OSError, KeyError, ValueError, TypeError, RuntimeError) as e:
                raise NotDikeOutput("%s: cannot read /%s any more (%s)" % (self.path, name, str(e).splitlines()[0]
                                                                          if str(e) else type(e).__name__))
        return self._cache[name]

    @property
    def jobs(self):
        return self._lazy("jobs")

    @property
    def nodes(self):
        return self._lazy("nodes")

    @property
    def timeseries(self):
        return self._lazy("timeseries")

    def release(self):
        """Drop /jobs, /nodes and /timeseries from memory (they are read again when used)."""
        self._cache.clear()

    def get(self, section, key, default=None):
        return self.config.get(section, key, fallback=default)

    @property
    def policy(self):
        return self.attrs["policy"]

    @property
    def seed(self):
        return int(self.attrs["seed"])

    @property
    def ranks(self):
        return int(self.attrs["ranks"])

    @property
    def trace(self):
        """Name of the trace: the trace file's (or folder's) base name, or 'synthetic'."""
        tp = self.attrs.get("trace_path", "synthetic") or "synthetic"
        if tp == "synthetic":
            return tp
        first = tp.split(",")[0].rstrip("/")
        return os.path.basename(first) + ("+%d" % tp.count(",") if "," in tp else "")

    @property
    def gpus(self):
        """GPUs in the cluster (G of SPEC section 6)."""
        s = self.summary
        if s.get("utilization", 0) > 0 and s.get("makespan", 0) > 0 and "allocated_gpu_seconds" in s:
            return int(round(s["allocated_gpu_seconds"] / (s["utilization"] * s["makespan"])))
        try:
            return int(self.get("cluster", "nodes")) * int(self.get("cluster", "gpus_per_node"))
        except (TypeError, ValueError):
            return 0

    @property
    def engine_wall(self):
        """Engine wall time of the run: the slowest rank's /perf wall_seconds."""
        return float(self.perf["wall_seconds"].max()) if len(self.perf) else float("nan")

    @property
    def events(self):
        """Events processed, all ranks (coordinator events plus node actions)."""
        return int(self.perf["events"].sum()) if len(self.perf) else 0

    def tenant_names(self):
        return [n.decode(errors="replace") if isinstance(n, bytes) else str(n) for n in self.tenants["name"]]

    def describe(self):
        """One line for the command line."""
        s = self.summary
        pol = self.policy
        if pol == "dike":
            pol += " (w=%s)" % self.get("dike", "fairness_weight", "?")
        return ("%s: dike-emu %s, schema %d, policy %s, placement %s, seed %d, %d rank(s), trace %s, "
                "%d jobs (%d finished), avg JCT %.2f s, max rho %.4g, Jain %.4f"
                % (self.path, self.attrs["version"], self.attrs["schema_version"], pol,
                   self.attrs["placement"], self.seed, self.ranks, self.trace, s["jobs"], s["finished"],
                   s["avg_jct"], s["max_rho"], s["jain"]))


def _open_error(path, e):
    msg = str(e)
    m = re.search(r"truncated file: eof = (\d+).*stored_eof = (\d+)", msg)
    if m:
        return ("truncated HDF5 file (%s of %s bytes): not a complete dike-emu output"
                % (m.group(1), m.group(2)))
    if "signature not found" in msg:
        return "not an HDF5 file: not a dike-emu output"
    return "cannot open as HDF5 (%s): not a complete dike-emu output" % msg


def _table(f, name, columns, path, read=True):
    """The table /name as a numpy structured array after checking its columns; with read=False
    only the checks, and its row count."""
    d = f[name]
    if not isinstance(d, h5py.Dataset) or d.dtype.names is None:
        raise NotDikeOutput("%s: /%s is not a table: not a dike-emu output" % (path, name))
    for c in columns:
        if c not in d.dtype.names:
            raise NotDikeOutput("%s: /%s has no column %s: not a dike-emu output of schema %d"
                                % (path, name, c, SCHEMA_VERSION))
    if read:
        return d[:]
    if d.shape[0]:
        d[:1], d[-1:]   # touch both ends: a file cut short or damaged fails here, not later
    return d.shape[0]


def _units(obj):
    # One `units_<column>` attribute per column (files since provenance was added); older files
    # have only the packed "column=unit,..." string.
    per = {k[len("units_"):]: _s(v) for k, v in obj.attrs.items() if k.startswith("units_")}
    if per:
        return per
    u = obj.attrs.get("units")
    if u is None:
        return {}
    u = _s(u)
    out = {}
    for kv in u.split(","):
        if "=" in kv:
            k, v = kv.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _s(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.generic):
        return v.item()
    return v


def load(path):
    """One run; raises NotDikeOutput with a one-line message if the file is not a complete output."""
    return Run(path)


def _h5_files(folder):
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".h5") and ".tmp-" not in name and ".probe-" not in name:
                out.append(os.path.join(root, name))
    return sorted(out)


def load_dir(folder):
    """Every complete output under folder (recursively), sorted by path; raises on a bad file."""
    return [load(p) for p in _h5_files(folder)]


# Campaign manifests: the campaign runner writes campaign.json into its output folder. Its exact
# fields are not fixed here, so the reader is tolerant: a list of points (the top-level list, or
# the first list of objects under one of POINT_LISTS), each with an output path under one of
# PATH_KEYS (relative to the manifest's folder) and a status under one of STATUS_KEYS.
POINT_LISTS = ("points", "runs", "jobs", "items", "results", "outputs")
PATH_KEYS = ("output", "out", "output_path", "output_file", "path", "file", "h5", "run.out")
STATUS_KEYS = ("status", "state", "result")
STATUS_OK = {"ok", "done", "complete", "completed", "success", "succeeded", "finished", "skipped",
             "exists", "cached", "reused", "0"}


def read_manifest(path):
    """(paths of completed points, warnings) from a campaign manifest."""
    warnings = []
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise NotDikeOutput("%s: cannot read campaign manifest (%s)" % (path, e))
    points = None
    if isinstance(doc, list):
        points = doc
    elif isinstance(doc, dict):
        for k in POINT_LISTS:
            if isinstance(doc.get(k), list):
                points = doc[k]
                break
        if points is None:
            for v in doc.values():
                if isinstance(v, list) and v and all(isinstance(p, dict) for p in v):
                    points = v
                    break
    if points is None:
        raise NotDikeOutput("%s: campaign manifest has no list of points (looked for %s)"
                            % (path, ", ".join(POINT_LISTS)))
    base = os.path.dirname(os.path.abspath(path))
    out = []
    pending = []
    for i, p in enumerate(points):
        if isinstance(p, str):
            p = {"output": p}
        if not isinstance(p, dict):
            warnings.append("%s: point %d is not an object; skipped" % (path, i))
            continue
        out_path = next((p[k] for k in PATH_KEYS if isinstance(p.get(k), str) and p[k]), None)
        if out_path is None:
            warnings.append("%s: point %d has no output path (%s); skipped" % (path, i, "/".join(PATH_KEYS[:3])))
            continue
        status = next((p[k] for k in STATUS_KEYS if k in p), None)
        failed = False
        if isinstance(status, bool):
            failed = not status
        elif status is not None and str(status).strip().lower() not in STATUS_OK:
            failed = True
        for k in ("exit_code", "exit_status", "rc", "returncode"):
            if isinstance(p.get(k), int) and p[k] != 0:
                failed = True
        if failed and str(status).strip().lower() in ("pending", "running", "queued", "todo", "not run"):
            pending.append(i)   # not run (yet): one summary line below, not one per point
            continue
        if failed:
            err = p.get("error")
            warnings.append("%s: point %d (%s) has status %r%s; skipped"
                            % (path, i, out_path, status, ": %s" % err if isinstance(err, str) and err else ""))
            continue
        full = out_path if os.path.isabs(out_path) else os.path.join(base, out_path)
        if not os.path.exists(full) and not os.path.isabs(out_path) and os.path.exists(out_path):
            full = out_path  # a path relative to where the campaign ran
        out.append(full)
    if pending:
        warnings.append("%s: %d point%s not run yet (status pending), e.g. point %d; skipped"
                        % (path, len(pending), "" if len(pending) == 1 else "s", pending[0]))
    return out, warnings


def find_outputs(inputs):
    """(paths, warnings) for a list of .h5 files, folders and campaign manifests.

    A folder with a campaign.json is read through its manifest; any other folder through every
    *.h5 under it (temporary .tmp-* files of unfinished runs are left out)."""
    paths, warnings = [], []
    for x in inputs:
        if os.path.isdir(x):
            m = os.path.join(x, MANIFEST)
            if os.path.isfile(m):
                p, w = read_manifest(m)
            else:
                p, w = _h5_files(x), []
        elif x.endswith(".json"):
            p, w = read_manifest(x)
        elif os.path.exists(x):
            p, w = [x], []
        else:
            raise NotDikeOutput("%s: no such file or folder" % x)
        paths += p
        warnings += w
    seen, uniq = set(), []
    for p in paths:
        k = os.path.realpath(p)
        if k not in seen:
            seen.add(k)
            uniq.append(p)
    return uniq, warnings


def load_results(inputs, strict=False):
    """(runs, skipped) for folders / manifests / files; skipped = list of (path, reason).

    With strict=True the first file that is not a complete output raises NotDikeOutput."""
    if isinstance(inputs, str):
        inputs = [inputs]
    paths, warnings = find_outputs(inputs)
    runs, skipped = [], [(None, w) for w in warnings]
    for p in paths:
        try:
            runs.append(load(p))
        except NotDikeOutput as e:
            if strict:
                raise
            skipped.append((p, str(e)))
    return runs, skipped


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    rc = 0
    for path in argv[1:]:
        try:
            print(load(path).describe())
        except NotDikeOutput as e:
            print("dikeio: %s" % e, file=sys.stderr)
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
