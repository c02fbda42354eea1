#!/bin/bash
# SPEC section 3, determinism: for one config and seed, the results do not depend on the number of
# MPI ranks nor on the run. For each policy this runs the same synthetic workload with 1, 2, 3 and
# 4 ranks, twice with 2 ranks, and with 3 ranks and a coordinator that owns no nodes, and checks
# with h5diff that /jobs, /tenants, /timeseries, /summary and /nodes are identical to the 1-rank
# output (/nodes too: per-node busy GPU-seconds must not depend on which rank owns the node).
#
#   equivalence.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
#
# The workload is small (3,000 jobs, ~0.4 s a run) but has contention (load 2: about half of the
# FIFO jobs queue; SRTF preempts ~1,700 times) and a small engine.window_actions, so each run has
# dozens of synchronisation windows. Two more cases run the emulating mode (node ranks track
# progress) with every node model on and gangs spanning ranks. On 3 ranks, engine.coordinator_owns_nodes
# = auto gives rank 0 a block in the emulating mode and none in the predicting mode (checked from
# /perf). Registered by tests/mpi/CMakeLists.txt.
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_equivalence

JOBS=3000
CONFIG=(--set workload.jobs=$JOBS --set cluster.nodes=96 --set cluster.nodes_per_rack=8
        --set workload.load=2.0 --set engine.window_actions=200 --seed 7)
COMPARED=(/jobs /tenants /timeseries /summary /nodes /job_nodes)
MIN_WINDOWS=20

# run_np DIR NP ARGS...: run dike-emu with NP ranks in $T/DIR (output DIR/out.h5, summary on
# DIR/stdout). The output path is the same relative name in every run so that the resolved config
# stored in the file is comparable.
run_np()
{
    local dir="$T/$1" np="$2" rc=0
    shift 2
    mkdir -p "$dir"
    echo "run: mpiexec -n $np dike-emu run $* --out out.h5   (in $dir)"
    (cd "$dir" && emu_mpi "$np" run "$@" --out out.h5 >stdout 2>stderr) || rc=$?
    if [ "$rc" -ne 0 ]; then
        show_file stdout "$dir/stdout"
        show_file stderr "$dir/stderr"
        fail "$np ranks: exit status $rc"
    fi
    [ -f "$dir/out.h5" ] || fail "$np ranks: no output file"
}

# perf_rows FILE: the number of rows of /perf.
perf_rows()
{
    h5dump -H -d /perf "$1" | awk '/DATASPACE/ { gsub(/[()]/, " "); print $4; exit }'
}

# windows_of DIR: the window count of the run's summary on stdout.
windows_of()
{
    awk '$1 == "windows" { print $2 }' "$1/stdout"
}

# check_same_as_ref REF DIR LABEL: DIR/out.h5 equals REF/out.h5 on every compared object.
check_same_as_ref()
{
    # shellcheck disable=SC2086 # EXTRA_COMPARED is a list of names
    same_objects "$T/$1/out.h5" "$T/$2/out.h5" "$3 = 1 rank" "${COMPARED[@]}" ${EXTRA_COMPARED:-}
}

check_ranks_attr()
{
    local got
    got=$(h5_attr "$T/$1/out.h5" /ranks)
    [ "$got" = "$2" ] || fail "$1: /ranks attribute is $got, expected $2"
    local rows
    rows=$(perf_rows "$T/$1/out.h5")
    [ "$rows" = "$2" ] || fail "$1: /perf has $rows rows, expected $2"
    ok "$1: /ranks = $2 and /perf has $2 rows"
}

check_config_same()
{
    h5_config "$T/$1/out.h5" >"$T/$1/config.ini"
    h5_config "$T/$2/out.h5" >"$T/$2/config.ini"
    [ "$(wc -l <"$T/$1/config.ini")" -gt 20 ] || fail "$1: could not read the stored config"
    cmp -s "$T/$1/config.ini" "$T/$2/config.ini" ||
        fail "$2: the stored config differs from the 1-rank run's"
    ok "$2: stored config identical to 1 rank"
}

# The emulating mode (node ranks track progress, docs/architecture.md#two-modes) with every node
# model on and a decision latency of 1 s. Racks of 2 nodes and gangs of up to 32 GPUs (4 nodes) make
# many gangs cross racks, and so cross the boundaries of the ranks' blocks: their homes get factor
# records from other ranks (checked through /perf remote_records below).
MODELS=(--set node_model.interference=0.2 --set node_model.network=rack --set cluster.rack_uplink_gbps=100
        --set node_model.slowdown_mtbf_s=30000 --set scheduler.decision_latency_s=1
        --set cluster.nodes_per_rack=2 --set workload.gpu_mix=1:0.5,4:0.2,8:0.1,16:0.1,32:0.1
        --set output.node_timeseries_s=7200)

for policy in fifo sjf-backfill srtf dike-faults srtf-noisy themis-none fifo-models dike-models dike-none-models; do
    case "$policy" in
    fifo) pargs=(--policy fifo) ;;
    sjf-backfill) pargs=(--policy sjf --set scheduler.backfill=true) ;;
    srtf) pargs=(--policy srtf) ;;
    # Node failures are drawn by the rank that owns the node: the per-node streams and the
    # reports at each horizon must give the same schedule whoever owns what.
    dike-faults) pargs=(--policy dike --set faults.mtbf_s=500000 --set faults.mttr_s=3600) ;;
    # Noisy estimates are drawn per job from its own stream by the coordinator; the `none`
    # history follows the completions. Neither may depend on the rank count.
    srtf-noisy) pargs=(--policy srtf --set scheduler.duration_knowledge=noisy) ;;
    themis-none) pargs=(--policy themis --set scheduler.duration_knowledge=none) ;;
    fifo-models) pargs=(--policy fifo "${MODELS[@]}") ;;
    dike-models) pargs=(--policy dike "${MODELS[@]}" --set faults.mtbf_s=500000 --set faults.mttr_s=3600) ;;
    # Under `none` Dike's probe reads each job's work done from the coordinator's accounting,
    # which in the emulating mode follows the node ranks' reports.
    dike-none-models) pargs=(--policy dike --set scheduler.duration_knowledge=none "${MODELS[@]}") ;;
    esac
    EXTRA_COMPARED=
    case "$policy" in *-models) EXTRA_COMPARED=/node_timeseries ;; esac
    echo "== $policy: ${pargs[*]}"
    ref="$policy/np1"
    run_np "$ref" 1 "${CONFIG[@]}" "${pargs[@]}"
    check_ranks_attr "$ref" 1

    # The reference run must be worth comparing: all jobs done, many windows, contention.
    finished=$(h5_attr "$T/$ref/out.h5" /summary/finished)
    [ "$finished" = "$JOBS" ] || fail "$ref: $finished of $JOBS jobs finished"
    ok "$ref: all $JOBS jobs finished"
    windows=$(windows_of "$T/$ref")
    [ -n "$windows" ] && [ "$windows" -ge "$MIN_WINDOWS" ] ||
        fail "$ref: ${windows:-?} windows, the test needs >= $MIN_WINDOWS (lower engine.window_actions)"
    ok "$ref: $windows windows (>= $MIN_WINDOWS)"
    qdelay=$(h5_attr "$T/$ref/out.h5" /summary/avg_queue_delay)
    awk -v q="$qdelay" 'BEGIN { exit !(q > 0) }' || fail "$ref: no queueing (avg_queue_delay $qdelay)"
    ok "$ref: jobs queue (avg_queue_delay $qdelay s)"
    if [ "$policy" != fifo ] && [ "$policy" != sjf-backfill ] && [ "$policy" != fifo-models ]; then
        pre=$(h5_attr "$T/$ref/out.h5" /summary/preemptions)
        [ "$pre" -gt 0 ] || fail "$ref: $policy preempted nothing"
        ok "$ref: $pre preemptions"
    fi
    if [ "$policy" = dike-faults ] || [ "$policy" = dike-models ]; then
        restarts=$(h5_attr "$T/$ref/out.h5" /summary/restarts)
        [ "$restarts" -gt 0 ] || fail "$ref: no job was restarted after a node failure"
        ok "$ref: $restarts restarts after node failures"
    fi

    for run in np2 np2-again np3 np4; do
        np=${run#np}
        np=${np%-again}
        run_np "$policy/$run" "$np" "${CONFIG[@]}" "${pargs[@]}"
        check_same_as_ref "$ref" "$policy/$run" "$policy/$run"
        check_ranks_attr "$policy/$run" "$np"
        check_config_same "$ref" "$policy/$run"
        w=$(windows_of "$T/$policy/$run")
        [ -n "$w" ] && [ "$w" -gt 1 ] || fail "$policy/$run: ${w:-?} windows"
        ok "$policy/$run: $w windows"
    done
    case "$policy" in
    *-models)
        # gangs span ranks: some home got slice factors from another rank's nodes
        remote=0
        for r in 0 1 2 3; do
            v=$(h5_column "$T/$policy/np4/out.h5" /perf remote_records $r) || fail "cannot read /perf remote_records"
            remote=$((remote + v))
        done
        [ "$remote" -gt 0 ] || fail "$policy/np4: no slice factor crossed ranks (no gang spans ranks)"
        ok "$policy/np4: $remote slice factors sent to another rank's home (gangs span ranks)"
        ;;
    esac
    # Repeated runs give the same file contents, not only the same as np1 (a direct check).
    h5_same "$T/$policy/np2/out.h5" "$T/$policy/np2-again/out.h5" /jobs || fail "$policy: two 2-rank runs differ"
    ok "$policy: the two 2-rank runs have identical /jobs"

    # Rank 0 as a pure coordinator, 2 node ranks.
    run_np "$policy/np3-coord" 3 "${CONFIG[@]}" "${pargs[@]}" --set engine.coordinator_owns_nodes=false
    check_same_as_ref "$ref" "$policy/np3-coord" "$policy/np3 coordinator_owns_nodes=false"
    check_ranks_attr "$policy/np3-coord" 3
    owned=$(h5_column "$T/$policy/np3-coord/out.h5" /perf nodes_owned 0) || fail "cannot read /perf nodes_owned"
    [ "$owned" = 0 ] || fail "$policy/np3-coord: rank 0 owns $owned nodes with coordinator_owns_nodes=false"
    ok "$policy/np3-coord: rank 0 owns no nodes (/perf nodes_owned = 0)"
    n1=$(h5_column "$T/$policy/np3-coord/out.h5" /perf nodes_owned 1)
    n2=$(h5_column "$T/$policy/np3-coord/out.h5" /perf nodes_owned 2)
    [ $((n1 + n2)) -eq 96 ] && [ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] ||
        fail "$policy/np3-coord: ranks 1 and 2 own $n1 + $n2 nodes, expected 96 in two non-empty blocks"
    ok "$policy/np3-coord: ranks 1 and 2 own $n1 + $n2 = 96 nodes"
    # engine.coordinator_owns_nodes = auto on 3 ranks: rank 0 keeps a block in the emulating mode
    # (it would only wait during the node steps), none in the predicting mode (it runs ahead alone)
    o0=$(h5_column "$T/$policy/np3/out.h5" /perf nodes_owned 0)
    o1=$(h5_column "$T/$policy/np3/out.h5" /perf nodes_owned 1)
    o2=$(h5_column "$T/$policy/np3/out.h5" /perf nodes_owned 2)
    [ $((o0 + o1 + o2)) -eq 96 ] || fail "$policy/np3: ranks own $o0 + $o1 + $o2 nodes, expected 96"
    case "$policy" in
    *-models)
        [ "$o0" -gt 0 ] && [ "$o1" -gt 0 ] && [ "$o2" -gt 0 ] ||
            fail "$policy/np3: ranks own $o0 + $o1 + $o2 nodes, expected three non-empty blocks (auto, emulating)"
        ok "$policy/np3 (auto, emulating): ranks 0, 1 and 2 own $o0 + $o1 + $o2 = 96 nodes"
        ;;
    *)
        [ "$o0" = 0 ] || fail "$policy/np3: rank 0 owns $o0 nodes (auto, predicting: expected none)"
        ok "$policy/np3 (auto, predicting): rank 0 owns no nodes, ranks 1 and 2 own $o1 + $o2 = 96"
        ;;
    esac
done

# The emulating mode with every model off and no latency computes the same progress as the
# coordinator's predictions, so it must give the same schedule (one rank; a fast check that the
# node-side integration and the window protocol add nothing of their own).
for policy in fifo srtf; do
    run_np "same-$policy/predict" 1 "${CONFIG[@]}" --policy $policy
    run_np "same-$policy/nodes" 1 "${CONFIG[@]}" --policy $policy --set node_model.progress=nodes
    h5_same "$T/same-$policy/predict/out.h5" "$T/same-$policy/nodes/out.h5" /jobs ||
        fail "$policy: node_model.progress=nodes changes /jobs with every model off"
    ok "$policy: node_model.progress=nodes (models off, latency 0) gives the same /jobs"
done
