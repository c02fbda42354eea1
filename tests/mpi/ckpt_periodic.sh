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
# Checkpoints by the wall clock (run.checkpoint_wall_s): one after every millisecond of wall time
# falls at window boundaries the test cannot predict; the output is the same, and the last
# checkpoint written (some boundary before the end) resumes to the same output.
# (dike with both kinds of periodic checkpoint at once)
for p in fifo dike; do
    both=()
    [ "$p" = dike ] && both=(--checkpoint-every 7000)
    emu run "${W[@]}" -p "$p" --out plain.h5
    emu run "${W[@]}" -p "$p" --checkpoint-wall 0.001 "${both[@]}" --out ck.h5
    [ -f ck.h5.ckpt.h5 ] || fail "$p: no wall-clock checkpoint was written"
    same_objects plain.h5 ck.h5 "$p with and without a checkpoint after every 1 ms of wall time${both[*]:+ (and every 7,000 simulated s)}" \
        /jobs /tenants /timeseries /summary /nodes /job_nodes
    emu resume ck.h5.ckpt.h5 --quiet --out re.h5 --checkpoint re.ckpt.h5 || fail "$p: resume failed"
    same_objects plain.h5 re.h5 "$p: the last wall-clock checkpoint resumes to the same output" \
        /jobs /tenants /timeseries /summary /nodes /job_nodes
    rm -f plain.h5 ck.h5 ck.h5.ckpt.h5 re.h5 re.ckpt.h5
done
