#!/bin/bash
# Checkpoint and resume give the output of an uninterrupted run (/jobs /tenants /timeseries
# /summary /nodes /job_nodes identical with h5diff), for every policy, with node failures on, when the rank
# count changes across the restart (1 -> 2 -> 1, and 3 with a coordinator that owns no nodes);
# periodic checkpoints change nothing; SIGTERM during a run leaves a valid checkpoint (exit 4).
#
#   checkpoint.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_checkpoint
cd "$T"
W=(--set workload.jobs=4000 --set cluster.nodes=48 --set cluster.nodes_per_rack=8 --set workload.load=1.3
   --set faults.mtbf_s=300000 --set workload.tenants=5 --quiet)
COMPARED=(/jobs /tenants /timeseries /summary /nodes /job_nodes)

# same_as_full FILE LABEL: FILE equals the uninterrupted run full.h5.
same_as_full() { same_objects full.h5 "$1" "$2 = the uninterrupted run" "${COMPARED[@]}"; }

for p in $(dike_policies); do
    rm -f ./*.h5
    emu run "${W[@]}" -p "$p" --out full.h5
    # stop at 20,000 s on 1 rank, resume on 2 ranks and stop again at 60,000 s, finish on 1 rank
    rc=0
    emu run "${W[@]}" -p "$p" --set engine.inject_stop_s=20000 --out a.h5 2>err || rc=$?
    [ "$rc" = 4 ] || { show_file stderr err; fail "$p: a stopped run exits with $rc, expected 4"; }
    [ ! -e a.h5 ] || fail "$p: a stopped run left an output file"
    [ -f a.h5.ckpt.h5 ] || fail "$p: no checkpoint"
    grep -q "checkpoint written to a.h5.ckpt.h5 (continue with: dike-emu resume a.h5.ckpt.h5)" err ||
        { show_file stderr err; fail "$p: no message naming the checkpoint"; }
    ok "$p: stopped at 20,000 s with status 4 and a checkpoint"
    rc=0
    emu_mpi 2 resume a.h5.ckpt.h5 --quiet --out b.h5 --checkpoint b.ckpt.h5 2>/dev/null || rc=$?
    [ "$rc" = 0 ] || fail "$p: resume on 2 ranks exited with $rc"
    same_as_full b.h5 "$p: 1 rank -> 2 ranks"
    emu run "${W[@]}" -p "$p" --set engine.inject_stop_s=60000 --out c.h5 2>/dev/null || true
    emu_mpi 3 resume c.h5.ckpt.h5 --quiet --out d.h5 --checkpoint d.ckpt.h5 2>/dev/null ||
        fail "$p: resume on 3 ranks failed"
    same_as_full d.h5 "$p: 1 rank -> 3 ranks"
done

# Duration knowledge `none`: the tenant history is rebuilt from the finished jobs on resume.
for p in sjf srtf themis dike; do
    rm -f ./*.h5
    K=(--set scheduler.duration_knowledge=none)
    emu run "${W[@]}" "${K[@]}" -p "$p" --out full.h5
    emu run "${W[@]}" "${K[@]}" -p "$p" --set engine.inject_stop_s=30000 --out a.h5 2>/dev/null || true
    [ -f a.h5.ckpt.h5 ] || fail "$p none: no checkpoint"
    emu_mpi 2 resume a.h5.ckpt.h5 --quiet --out b.h5 --checkpoint b.ckpt.h5 2>/dev/null ||
        fail "$p none: resume on 2 ranks failed"
    same_as_full b.h5 "$p duration_knowledge=none: 1 rank -> 2 ranks"
done
# Noisy durations: dike's learned swap margin (the estimate errors of finished jobs) is restored.
rm -f ./*.h5
K=(--set scheduler.duration_knowledge=noisy --set dike.fairness_weight=0)
emu run "${W[@]}" "${K[@]}" -p dike --out full.h5
emu run "${W[@]}" "${K[@]}" -p dike --set engine.inject_stop_s=30000 --out a.h5 2>/dev/null || true
[ -f a.h5.ckpt.h5 ] || fail "dike noisy: no checkpoint"
emu_mpi 2 resume a.h5.ckpt.h5 --quiet --out b.h5 --checkpoint b.ckpt.h5 2>/dev/null ||
    fail "dike noisy: resume on 2 ranks failed"
same_as_full b.h5 "dike duration_knowledge=noisy: 1 rank -> 2 ranks"

# 2 ranks -> 1 rank, a coordinator that owns no nodes -> 1 rank, and periodic checkpoints.
rm -f ./*.h5
emu run "${W[@]}" -p dike --out full.h5
emu_mpi 2 run "${W[@]}" -p dike --set engine.inject_stop_s=40000 --out e.h5 2>/dev/null || true
[ -f e.h5.ckpt.h5 ] || fail "2-rank stop: no checkpoint"
emu resume e.h5.ckpt.h5 --quiet --out f.h5 --checkpoint f.ckpt.h5
same_as_full f.h5 "dike: 2 ranks -> 1 rank"
emu_mpi 3 run "${W[@]}" -p dike --set engine.coordinator_owns_nodes=false --set engine.inject_stop_s=40000 \
    --out g.h5 2>/dev/null || true
emu resume g.h5.ckpt.h5 --quiet --out h.h5 --checkpoint h.ckpt.h5
same_as_full h.h5 "dike: 3 ranks (coordinator without nodes) -> 1 rank"
emu run "${W[@]}" -p dike --checkpoint-every 25000 --out i.h5
same_as_full i.h5 "dike with a checkpoint every 25,000 s"
[ -f i.h5.ckpt.h5 ] || fail "periodic checkpoints: no checkpoint file"
ok "periodic checkpoints write the checkpoint file"

# SIGTERM in the middle of a longer run (one process: the signal reaches dike-emu itself). The
# signal is sent once the first progress line shows the engine running (its handler is installed
# before the engine starts), so the run need not be long enough to outlast a fixed sleep.
# The sanitizer pass (scripts/test-sanitize.sh) leaves it to the README suite: the stop path it
# takes is the one engine.inject_stop_s takes above, and its 500,000-job runs are the slowest
# part of this test under the sanitizers.
if ! in_sanitizer_pass "SIGTERM run"; then
    L=(--set workload.jobs=500000 --set cluster.nodes=12500 --set workload.load=0.9 -p srtf)
    "$DIKE_EMU" run "${L[@]}" --progress log --set output.progress_interval_s=0.05 --out long.h5 \
        >/dev/null 2>progress.log &   # the binary itself, so the signal reaches it
    pid=$!
    wait_engine_running "$pid" progress.log 500000
    kill -TERM "$pid" 2>/dev/null || true
    L+=(--quiet)
    rc=0
    wait "$pid" || rc=$?
    if [ "$rc" = 0 ]; then
        echo "note: the long run finished before the signal; SIGTERM path not exercised on this machine"
    else
        [ "$rc" = 4 ] || fail "SIGTERM: exit status $rc, expected 4"
        [ -f long.h5.ckpt.h5 ] && [ ! -e long.h5 ] || fail "SIGTERM: expected a checkpoint and no output"
        ok "SIGTERM: status 4, a checkpoint and no output file"
        emu resume long.h5.ckpt.h5 --quiet --out long2.h5 --checkpoint long2.ckpt.h5
        emu run "${L[@]}" --out longfull.h5
        same_objects longfull.h5 long2.h5 "SIGTERM: the resumed run = the uninterrupted one" "${COMPARED[@]}"
    fi
fi

# A stop request as the process starts (a campaign signalled just after its launch: seen by
# scripts/random_campaigns.py, where SIGUSR1 0.09 s after the start killed rank 0 by the signal's
# default action, status 138). The handlers are installed before MPI_Init now: the signal is sent
# as soon as /proc shows a SIGUSR1 handler, and the run must stop at its first window boundary
# with status 4 and a checkpoint that resumes to the uninterrupted run. (A build that installs
# them after MPI_Init passes this too, since the signal waits for the handler; what it checks is
# that a stop requested before the engine starts ends in a checkpoint.)
"$DIKE_EMU" run "${W[@]}" -p dike --quiet --out early.h5 2>/dev/null &
pid=$!
sent=""
while [ -z "$sent" ] && kill -0 "$pid" 2>/dev/null; do
    mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    if [ -n "$mask" ] && (( (16#$mask >> 9) & 1 )); then   # bit 9: signal 10, SIGUSR1
        kill -USR1 "$pid" && sent=1
    fi
done
rc=0
wait "$pid" || rc=$?
[ -n "$sent" ] || fail "early SIGUSR1: the process ended (status $rc) before it had a handler"
[ "$rc" = 4 ] && [ -f early.h5.ckpt.h5 ] && [ ! -e early.h5 ] ||
    fail "early SIGUSR1: status $rc, checkpoint $([ -f early.h5.ckpt.h5 ] && echo yes || echo no)"
emu resume early.h5.ckpt.h5 --quiet --out early2.h5 --checkpoint early2.ckpt.h5
same_as_full early2.h5 "SIGUSR1 as the run starts: status 4, and the resumed run"

# A damaged or foreign checkpoint is one clear error.
echo "not hdf5" >bad.ckpt.h5
rc=0
emu resume bad.ckpt.h5 --out x.h5 2>err || rc=$?
[ "$rc" = 2 ] && grep -q "^dike-emu: bad.ckpt.h5: cannot open checkpoint" err ||
    { show_file stderr err; fail "bad checkpoint: status $rc"; }
ok "a file that is not a checkpoint: status 2 and one message"
cp full.h5 notckpt.h5
rc=0
emu resume notckpt.h5 --out x.h5 2>err || rc=$?
[ "$rc" = 2 ] && grep -q "not a dike-emu checkpoint" err || { show_file stderr err; fail "output file as checkpoint: status $rc"; }
ok "an output file given as a checkpoint: status 2 and one message"
