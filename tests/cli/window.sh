#!/bin/bash
# metrics.window end to end: without it the output has no /summary/window and the rest of the file
# is what it was; with it every other object is unchanged and /summary/window holds the /summary
# attribute names; a run stopped at a checkpoint and resumed writes the same /summary/window.
#
#   window.sh DIKE_EMU
set -eu
DIKE_EMU="$1"
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init cli_window
cd "$T"
# srtf at load 1.3 preempts, so some window jobs have several runs
W=(--set workload.jobs=400 --set cluster.nodes=8 --set workload.load=1.3 -p srtf --quiet)
WIN=jobs:100-299

emu run "${W[@]}" --out plain.h5
emu run "${W[@]}" --set metrics.window=$WIN --out win.h5
same_objects plain.h5 win.h5 "with and without a window" /jobs /tenants /timeseries /nodes

/usr/bin/python3 - plain.h5 win.h5 "$WIN" <<'PY' || fail "/summary or /summary/window is not as documented"
import sys, h5py
names = ["jobs", "finished", "avg_jct", "p50_jct", "p95_jct", "p99_jct", "makespan",
         "avg_queue_delay", "mean_rho", "p99_rho", "max_rho", "unfair_fraction", "jain",
         "utilization", "effective_utilization", "preemptions", "migrations",
         "allocated_gpu_seconds", "restarts", "lost_work", "goodput"]
with h5py.File(sys.argv[1], "r") as p, h5py.File(sys.argv[2], "r") as w:
    ps, ws = p["summary"], w["summary"]
    # no window: /summary is a group of attributes only, the documented ones
    assert len(ps) == 0, list(ps)
    units_of = ["units_" + n for n in names]
    assert sorted(ps.attrs) == sorted(names + units_of + ["units", "description"]), sorted(ps.attrs)
    # a window changes none of the whole-run attributes
    for k in ps.attrs:
        assert ps.attrs[k] == ws.attrs[k], (k, ps.attrs[k], ws.attrs[k])
    assert list(ws) == ["window"], list(ws)
    win = ws["window"]
    numeric = ["first", "last", "span_start", "span_end", "apportioned_gpu_seconds"]
    extra = ["kind", "spec"] + numeric + ["units_" + n for n in numeric]
    assert sorted(win.attrs) == sorted(names + units_of + extra + ["units", "description"]), sorted(win.attrs)
    for k in names:
        assert win.attrs[k].dtype == ps.attrs[k].dtype, k
        assert win.attrs["units_" + k] == ps.attrs["units_" + k], k
    assert [win.attrs["units_" + n] for n in numeric] == ["1", "1", "s", "s", "GPU*s"]
    assert win.attrs["kind"] == "jobs" and win.attrs["spec"] == sys.argv[3]
    assert win.attrs["first"] == 100 and win.attrs["last"] == 299
    ids = w["jobs"]["job_id"][:]
    assert win.attrs["jobs"] == ((ids >= 100) & (ids <= 299)).sum() == 200
    assert win.attrs["preemptions"] > 0, "expected preempted jobs in the window"
    assert "window = " + sys.argv[3] in w.attrs["config"]
    units = dict(kv.split("=") for kv in win.attrs["units"].split(","))
    assert units["avg_jct"] == "s" and units["first"] == "1" and units["span_start"] == "s"
    t = win["tenants"][:]
    assert t["jobs"].sum() == 200 and len(t) == len(w["tenants"])
PY
ok "no window: /summary as before; with one: /summary unchanged, /summary/window documented"

# A run stopped at a checkpoint and resumed writes the same /summary/window.
rc=0
emu run "${W[@]}" --set metrics.window=$WIN --set engine.inject_stop_s=20000 --out stop.h5 2>/dev/null || rc=$?
[ "$rc" = 4 ] || fail "the stopped run exited with $rc, expected 4"
emu resume stop.h5.ckpt.h5 --quiet --out resumed.h5 --checkpoint resumed.ckpt.h5
same_objects win.h5 resumed.h5 "after resume" /summary/window /summary/window/tenants /jobs
/usr/bin/python3 - win.h5 resumed.h5 <<'PY' || fail "/summary/window attributes differ after resume"
import sys, h5py
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    x, y = a["summary/window"].attrs, b["summary/window"].attrs
    assert sorted(x) == sorted(y)
    for k in x:
        assert x[k] == y[k], (k, x[k], y[k])
PY
ok "resume: /summary/window identical to the uninterrupted run"
