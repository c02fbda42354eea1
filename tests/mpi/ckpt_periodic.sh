#!/bin/bash
# Periodic checkpoints change nothing (issue 17, item 5; docs/reliability.md): for every policy, a
# run with --checkpoint-every gives the same /jobs, /tenants, /timeseries, /summary and /nodes as
# the run without. The workload is overloaded (load 1.5) with node failures, so preemptive
# policies leave completions of preempted runs in the heap after the last job finishes: the time
# series must end at the last real event, not at whichever of those a window boundary reaches.
#
#   ckpt_periodic.sh DIKE_EMU
set -eu
DIKE_EMU="$1"
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init mpi_ckpt_periodic
cd "$T"
W=(--set workload.jobs=3000 --set cluster.nodes=16 --set cluster.nodes_per_rack=4 --set workload.load=1.5
   --set faults.mtbf_s=200000 --set workload.tenants=5 --quiet)
for p in $(dike_policies); do
    emu run "${W[@]}" -p "$p" --out plain.h5
    emu run "${W[@]}" -p "$p" --checkpoint-every 7000 --out ck.h5
    [ -f ck.h5.ckpt.h5 ] || fail "$p: no periodic checkpoint was written"
    same_objects plain.h5 ck.h5 "$p with and without periodic checkpoints" \
        /jobs /tenants /timeseries /summary /nodes /job_nodes
    n=$(h5dump -H -d /timeseries/time plain.h5 | grep -m1 DATASPACE | sed 's/[^0-9]*\([0-9]*\).*/\1/')
    ok "$p: periodic checkpoints change nothing ($n samples in /timeseries)"
    rm -f plain.h5 ck.h5 ck.h5.ckpt.h5
done
