#!/bin/bash
# Two MPI behaviours of the partitioned engine:
#  1. A gang spanning nodes owned by two ranks is started and finished consistently on both: one
#     16-GPU job on two 8-GPU nodes in two one-node racks, 2 ranks (each owns one rack). Both nodes
#     must report the whole run in /nodes (8 GPUs x 100 s = 800 GPU-s, 1 job hosted each).
#  2. A fatal error on one rank ends the whole job: engine.inject_fatal_rank = 2 with 3 ranks must
#     exit non-zero within seconds, print the rank and location once, and leave no output file.
#
#   span_abort.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_span_abort
cd "$T"

cat >span.csv <<'CSV'
job_id,tenant,submit_time,num_gpus,duration
0,a,0,16,100
CSV
emu_mpi 2 run --trace span.csv --set cluster.nodes=2 --set cluster.nodes_per_rack=1 --out span.h5 >stdout 2>stderr ||
    { show_file stderr stderr; fail "2-rank spanning run failed"; }
owned0=$(h5_column span.h5 /perf nodes_owned 0)
owned1=$(h5_column span.h5 /perf nodes_owned 1)
[ "$owned0" = 1 ] && [ "$owned1" = 1 ] || fail "ranks own $owned0 and $owned1 nodes, expected 1 and 1"
ok "each of the 2 ranks owns one node"
for n in 0 1; do
    busy=$(h5_column span.h5 /nodes busy_gpu_seconds "$n")
    hosted=$(h5_column span.h5 /nodes jobs_hosted "$n")
    awk -v b="$busy" 'BEGIN { exit !(b == 800) }' || fail "node $n: busy_gpu_seconds $busy, expected 800"
    [ "$hosted" = 1 ] || fail "node $n: jobs_hosted $hosted, expected 1"
    ok "node $n: 800 GPU-s busy, 1 job hosted"
done
finish=$(h5_column span.h5 /jobs finish_time 0)
awk -v f="$finish" 'BEGIN { exit !(f == 100) }' || fail "finish_time $finish, expected 100"
ok "the spanning job finishes at 100 s"

start=$(date +%s)
rc=0
emu_mpi 3 run --set engine.inject_fatal_rank=2 --out abort.h5 >stdout 2>stderr || rc=$?
elapsed=$(( $(date +%s) - start ))
[ "$rc" -ne 0 ] || fail "injected fatal error: exit status 0"
ok "injected fatal error: exit status $rc"
[ "$elapsed" -le 20 ] || fail "injected fatal error: took $elapsed s"
ok "ended within $elapsed s"
n=$(grep -c 'dike-emu: fatal error on rank 2 at .*window.c:[0-9]*: injected failure' stderr || true)
[ "$n" = 1 ] || { show_file stderr stderr; fail "expected the rank-2 message once, found $n"; }
ok "one message naming rank 2 and the source location"
ls abort.h5* >/dev/null 2>&1 && fail "an output file was left: $(ls abort.h5*)"
ok "no output file left"
