#!/bin/bash
# The coordinator's run-ahead over its own events that emit no action (engine.run_ahead,
# docs/architecture.md). alice's 1-GPU job of 10,000 s from 0 s and bob's of 50 s from 5,000 s, on
# two nodes of one GPU, themis with a round every 10 s, the emulating mode at decision latency 0
# (interference 0.1 switches it on; each job is alone on its node, so both keep speed 1). Worked by
# hand: alice runs 0 -> 10,000 s on one node, bob 5,000 -> 5,050 s on the other; no round changes
# anything. Without the run-ahead every round is a window of its own: rounds fall on the multiples
# of 10 s while a job is active, 999 of them before alice's end at 10,000 s, so at least 999
# windows. With it only the times that emit actions or bring node reports open windows (the two
# arrivals, the two ends): at most 10. /jobs, /timeseries, /nodes and /tenants are the same in
# all four runs (1 and 2 ranks, with and without).
#
#   run_ahead.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_run_ahead
cd "$T"

cat >two.csv <<'CSV'
job_id,tenant,submit_time,num_gpus,duration
0,alice,0,1,10000
1,bob,5000,1,50
CSV
RUN=(run --trace two.csv --cluster 2x1 --set cluster.nodes_per_rack=1 -p themis --set scheduler.round_s=10
     --set scheduler.decision_latency_s=0 --set node_model.interference=0.1)
for np in 1 2; do
    for ra in true false; do
        emu_mpi "$np" "${RUN[@]}" --set engine.run_ahead=$ra --out "r$np-$ra.h5" >"out$np-$ra" 2>"err$np-$ra" ||
            { show_file stderr "err$np-$ra"; fail "$np ranks, run_ahead=$ra: the run failed"; }
    done
done
for f in r1-false r2-true r2-false; do
    for d in /jobs /timeseries /nodes /tenants; do
        h5_same r1-true.h5 "$f.h5" "$d" || fail "$d of $f.h5 differs from r1-true.h5"
    done
done
ok "/jobs, /timeseries, /nodes and /tenants identical on 1 and 2 ranks, with and without the run-ahead"
/usr/bin/python3 - <<'PY' || fail "the runs are not as worked out"
import h5py
j = h5py.File("r1-true.h5", "r")["jobs"][:]
got = sorted((int(x["job_id"]), float(x["start_time"]), float(x["finish_time"])) for x in j)
assert got == [(0, 0.0, 10000.0), (1, 5000.0, 5050.0)], got
for np in (1, 2):
    on = int(h5py.File("r%d-true.h5" % np, "r")["perf"]["windows"][0])
    off = int(h5py.File("r%d-false.h5" % np, "r")["perf"]["windows"][0])
    print("%d rank(s): %d windows with the run-ahead, %d without" % (np, on, off))
    assert off >= 999 and on <= 10, (np, on, off)
PY
ok "alice 0 -> 10,000 s, bob 5,000 -> 5,050 s; at most 10 windows with the run-ahead, at least 999 without"
echo "PASS"
