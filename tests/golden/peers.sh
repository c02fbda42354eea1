#!/bin/bash
# Known correct answers of ../shared/notes/peers.md: the first 10,000 jobs of TitanSched's Philly
# trace on 512 GPUs (64 nodes x 8) with locality factors 1 (a pooled model, placement irrelevant).
# Independent implementations agree on these average JCTs to the last printed digit:
#
#   policy                          avg JCT (s)
#   fifo, head-of-line blocking     284327.18
#   sjf, blocking                    35525.8307
#   fifo, backfill (fill-in)        134967.1665
#   sjf, backfill                    37145.6263
#
#   peers.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
#
# dike-emu reads philly.csv itself (philly-vc reader: rows sorted by submit, jobs numbered by
# position), so workload.last_job=9999 keeps the first 10,000 jobs. Needs
# $DIKE_SHARED_DIR/traces/TitanSched/philly.csv; without it the test is skipped (exit 77).
# Registered by tests/golden/CMakeLists.txt.
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"

PHILLY="${DIKE_SHARED_DIR:-}/traces/TitanSched/philly.csv"
if [ -z "${DIKE_SHARED_DIR:-}" ] || [ ! -f "$PHILLY" ]; then
    echo "SKIP: needs ../shared/traces/TitanSched/philly.csv (looked for '$PHILLY'; set -DDIKE_SHARED_DIR=...)"
    exit 77
fi
dike_tmp_init golden_peers

JOBS=10000
TOLERANCE=0.01   # s
CLUSTER=(--trace "$PHILLY" --set workload.last_job=$((JOBS - 1)) --set cluster.nodes=64
         --set cluster.gpus_per_node=8 --set cluster.locality_rack=1 --set cluster.locality_cross_rack=1)

# golden NAME NP WANT ARGS...: run with NP ranks (1 = no mpiexec) and compare /summary avg_jct.
golden()
{
    local name="$1" np="$2" want="$3" rc=0
    shift 3
    local out="$T/$name.h5"
    echo "run: dike-emu run ${CLUSTER[*]} $* --out $name.h5 ($np rank(s))"
    if [ "$np" = 1 ]; then
        emu run "${CLUSTER[@]}" "$@" --out "$out" -q >"$T/$name.log" 2>&1 || rc=$?
    else
        emu_mpi "$np" run "${CLUSTER[@]}" "$@" --out "$out" -q >"$T/$name.log" 2>&1 || rc=$?
    fi
    [ "$rc" -eq 0 ] || { show_file log "$T/$name.log"; fail "$name: exit status $rc"; }
    local jobs finished got
    jobs=$(h5_attr "$out" /summary/jobs)
    finished=$(h5_attr "$out" /summary/finished)
    [ "$jobs" = "$JOBS" ] && [ "$finished" = "$JOBS" ] ||
        fail "$name: /summary jobs=$jobs finished=$finished, expected $JOBS and $JOBS"
    ok "$name: $JOBS jobs, all finished"
    got=$(h5_attr "$out" /summary/avg_jct)
    awk -v got="$got" -v want="$want" -v tol="$TOLERANCE" \
        'BEGIN { d = got - want; if (d < 0) d = -d; exit !(d <= tol) }' ||
        fail "$name: avg JCT $got s, known answer $want s (tolerance $TOLERANCE s)"
    ok "$name: avg JCT $got s = $want s within $TOLERANCE s"
}

golden fifo_blocking        1 284327.18   --policy fifo
golden fifo_blocking_np2    2 284327.18   --policy fifo
golden sjf_blocking         1 35525.8307  --policy sjf
golden fifo_backfill        1 134967.1665 --policy fifo --set scheduler.backfill=true
golden fifo_backfill_np2    2 134967.1665 --policy fifo --set scheduler.backfill=true
golden sjf_backfill         1 37145.6263  --policy sjf --set scheduler.backfill=true

# The 2-rank runs are not only close: their job tables are the same bits.
for v in fifo_blocking fifo_backfill; do
    h5_same "$T/$v.h5" "$T/${v}_np2.h5" /jobs || fail "$v: /jobs differs between 1 and 2 ranks"
    ok "$v: /jobs identical with 1 and 2 ranks"
done
