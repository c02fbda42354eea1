#!/bin/bash
# /node_timeseries is chunked and deflated, each chunk written by the one rank that owns its nodes
# (src/io/h5out.c). One 4-GPU job of 1,000 s alone on 6 nodes of 8 GPUs (racks of 2 nodes),
# interference on (so the emulating mode runs; alone, the job keeps speed 1), samples every 100 s,
# on 1, 2 and 3 ranks. Worked by hand: samples 0..9 (t = 0..900 s) show 4 busy GPUs on one node and
# 0 on the other five, factor 1 and up 1 everywhere; every run gives the same arrays; the chunks'
# rows divide every boundary between two ranks' blocks (no chunk has two writers).
#
#   node_timeseries.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_node_timeseries
cd "$T"

cat >one.csv <<'CSV'
job_id,tenant,submit_time,num_gpus,duration
0,a,0,4,1000
CSV
for np in 1 2 3; do
    emu_mpi "$np" run --trace one.csv --set cluster.nodes=6 --set cluster.nodes_per_rack=2 \
        --set node_model.interference=0.1 --set output.node_timeseries_s=100 --out "n$np.h5" \
        >"stdout$np" 2>"stderr$np" || { show_file stderr "stderr$np"; fail "$np-rank run failed"; }
    /usr/bin/python3 - "n$np.h5" "$np" <<'PY' || fail "$np ranks: /node_timeseries is not as worked out"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
g = f["node_timeseries"]
busy, fac, up = g["busy_gpus"], g["factor"], g["up"]
for d in (busy, fac, up):
    assert d.shape[0] == 6 and d.shape[1] >= 10, d.shape
    assert d.compression == "gzip", (d.name, d.compression)
    assert d.chunks is not None
    rows = d.chunks[0]
    owned = [int(x) for x in f["perf"]["nodes_owned"]]
    # rank 0 owns the last block in the emulating mode: boundaries are the partial sums from rank 1
    order = owned[1:] + owned[:1]
    bounds = np.cumsum(order)[:-1]
    assert all(b % rows == 0 for b in bounds if 0 < b < 6), (rows, owned)
b = busy[:, :10]
hosts = [k for k in range(6) if b[k].any()]
assert len(hosts) == 1, hosts
assert (b[hosts[0]] == 4).all(), b[hosts[0]]
assert (fac[hosts[0], :10] == 1).all() and (up[:, :10] == 1).all()
print("ok: %s ranks: job on node %d, chunks %s" % (sys.argv[2], hosts[0], busy.chunks))
PY
    ok "$np ranks: samples 0..9 show 4 busy GPUs on one node, factor 1, all up; chunked, deflated, chunk rows divide the blocks"
    if [ "$np" != 1 ]; then
        h5_same n1.h5 "n$np.h5" /node_timeseries ||
            fail "$np ranks: /node_timeseries differs from 1 rank"
        ok "$np ranks: /node_timeseries identical to 1 rank"
    fi
done
