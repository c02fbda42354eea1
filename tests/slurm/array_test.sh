#!/bin/bash
# A campaign on a real Slurm (SPEC §8): start a single-node Slurm on localhost (start.sh), submit a
# small grid as a job array with slurm-jobs/submit.sh --wait, check every task in Slurm's job
# completion log and every point's .h5, run the same grid as one ensemble job (srun, 2 ranks in 2
# groups) and compare, show that a crashing point ends only its own array task, and stop the
# daemons this test started, by PID, whatever happens (stop.sh from the EXIT trap).
#
#   array_test.sh DIKE_EMU SOURCE_DIR
#
# Exit 77 ("SKIP: reason") where Slurm cannot be started (not root, packages missing). Every wait
# is bounded (timeout) so that the test ends well before ctest's TIMEOUT, which would SIGKILL it
# and leave the daemons behind (the next start.sh stops those).
set -eu
DIKE_EMU="$1"
SRC="$2"
. "$(dirname "$0")/../lib/testlib.sh"
here="$(cd "$(dirname "$0")" && pwd)"

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: a private Slurm needs root"
    exit 77
fi
dike_tmp_init slurm_array
# Slurm's state under /tmp: short paths (slurmd's step sockets live in its spool, and a Unix
# socket path has at most 107 characters).
S="$(mktemp -d "${TMPDIR:-/tmp}/dike-slurm.XXXXXX")"
t_start=$SECONDS
stopped=0

slurm_cleanup()
{
    local rc=$?
    if [ "$stopped" = 0 ]; then
        stopped=1
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
            for f in "$S"/log/*.log "$S"/jobcomp.txt; do
                [ -f "$f" ] && { echo "--- $f (last lines):"; tail -n 20 "$f"; }
            done
        fi
        bash "$here/stop.sh" "$S" || rc=1
        if [ "${DIKE_KEEP_TMP:-0}" = 1 ]; then echo "kept $S"; else rm -rf -- "$S"; fi
        echo "slurm_array: $((SECONDS - t_start)) s in all"
    fi
    (exit "$rc")
    dike_tmp_cleanup
}
trap slurm_cleanup EXIT
trap 'exit 1' INT TERM

# ---- start ----
t0=$SECONDS
rc=0
DIKE_SLURM_OWNER=$$ timeout 120 bash "$here/start.sh" "$S" >"$T/start.log" 2>&1 || rc=$?
cat "$T/start.log"
if [ "$rc" = 77 ]; then
    exit 77
fi
[ "$rc" = 0 ] || fail "start.sh failed (exit $rc)"
ok "single-node Slurm up in $((SECONDS - t0)) s"
export SLURM_CONF="$S/slurm.conf"
[ "$(timeout 30 sinfo -h -N -o %t)" = idle ] || fail "node not idle"
ok "sinfo: node idle"
# Jobs run as root here: Open MPI must be told (sbatch passes the environment on).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# submitted LOG: the job id of "Submitted batch job N".
submitted()
{
    sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$1"
}

# jobcomp_states ARRAY_JOB_ID: "task state exit" per array task, sorted by task.
jobcomp_states()
{
    awk -v a="$1" '
        { delete f; for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) } }
        f["ArrayJobId"] == a { print f["ArrayTaskId"], f["JobState"], f["ExitCode"] }' "$S/jobcomp.txt" | sort -n
}

cd "$T"
cat >grid.ini <<EOF
; 4 points: 2 policies x 2 seeds, synthetic, ~0.1 s each
[campaign]
name = sl
out_dir = $T/results/array

[cluster]
nodes = 32
nodes_per_rack = 8

[workload]
jobs = 1500
load = 1.5

[sweep]
policy = fifo, dike
seed = 1..2
EOF

# ---- the grid as a job array: one task per point, 1 rank each, srun --mpi=pmix ----
t0=$SECONDS
rc=0
timeout 150 bash "$SRC/slurm-jobs/submit.sh" --wait --emu "$DIKE_EMU" grid.ini >array.log 2>&1 || rc=$?
show_file "submit.sh --wait grid.ini" array.log
[ "$rc" = 0 ] || fail "submit.sh --wait exited $rc"
job="$(submitted array.log)"
[ -n "$job" ] || fail "no job id"
ok "job array $job ran to the end in $((SECONDS - t0)) s (sbatch --wait exit 0)"
states="$(jobcomp_states "$job")"
echo "$states" | sed 's/^/    | task /'
[ "$states" = "$(printf '0 COMPLETED 0:0\n1 COMPLETED 0:0\n2 COMPLETED 0:0\n3 COMPLETED 0:0')" ] ||
    fail "jobcomp: not every task of $job COMPLETED with exit 0:0"
ok "jobcomp: tasks 0-3 COMPLETED, exit 0:0"
i=0
while IFS=$'\t' read -r idx out axes; do
    [ "$(h5_attr "$out" /schema_version)" = 1 ] || fail "point $idx: $out is not a complete output"
    [ "$(h5_attr "$out" /ranks)" = 1 ] || fail "point $idx: ranks attribute"
    [ "$(h5_attr "$out" /summary/finished)" = 1500 ] || fail "point $idx: not all 1500 jobs finished"
    grep -q "campaign: point $idx/4 done" "results/array/slurm/sl-${job}_$idx.out" ||
        fail "task $idx log lacks its point"
    ok "point $idx ($axes): complete .h5, 1500 jobs finished, log sl-${job}_$idx.out"
    i=$((i + 1))
done < <("$DIKE_EMU" campaign grid.ini --list | grep -v '^#')
[ "$i" = 4 ] || fail "checked $i points, expected 4"
rc=0
"$DIKE_EMU" campaign grid.ini --status >status.log || rc=$?
[ "$rc" = 0 ] && grep -q "4 done, 0 failed, 0 pending" status.log || { cat status.log; fail "campaign --status"; }
ok "campaign --status: 4 done"
out="$(bash "$SRC/slurm-jobs/submit.sh" --pending --emu "$DIKE_EMU" grid.ini)"
[ "$out" = "submit.sh: every point of sl is done; nothing to submit" ] || fail "submit.sh --pending: $out"
ok "submit.sh --pending: nothing left to submit"

# ---- the same grid as one ensemble job: 2 ranks, 2 groups of 1 ----
t0=$SECONDS
rc=0
timeout 120 bash "$SRC/slurm-jobs/submit.sh" --wait --mode ensemble --ntasks 2 --ranks-per-run 1 \
    --emu "$DIKE_EMU" grid.ini -- --out-dir "$T/results/ensemble" >ens.log 2>&1 || rc=$?
show_file "submit.sh --mode ensemble" ens.log
[ "$rc" = 0 ] || fail "ensemble job exited $rc"
ok "ensemble job $(submitted ens.log) ran in $((SECONDS - t0)) s"
show_file "ensemble job log" "$(ls results/ensemble/slurm/*.out)"
grep -q '"counts": {"points": 4, "done": 4' results/ensemble/campaign.json || fail "ensemble manifest"
grep -q '"world_ranks": 2, "ranks_per_run": 1, "groups": 2' results/ensemble/campaign.json || fail "ensemble groups"
ok "ensemble manifest: 4 done by 2 groups"
for f in results/array/*.h5; do
    for o in /jobs /summary /nodes; do
        h5_same "$f" "results/ensemble/$(basename "$f")" "$o" || fail "$(basename "$f"): $o differs"
    done
done
ok "array and ensemble outputs identical (/jobs /summary /nodes)"

# ---- a crashing point ends only its own array task ----
cat >crash.ini <<EOF
[campaign]
name = crash
out_dir = $T/results/crash

[cluster]
nodes = 32

[workload]
jobs = 200

[sweep]
engine.inject_fatal_rank = -1, 0
EOF
t0=$SECONDS
rc=0
timeout 120 bash "$SRC/slurm-jobs/submit.sh" --wait --emu "$DIKE_EMU" crash.ini >crash.log 2>&1 || rc=$?
show_file "submit.sh --wait crash.ini" crash.log
[ "$rc" != 0 ] || fail "an array with a crashing point returned 0"
job="$(submitted crash.log)"
states="$(jobcomp_states "$job")"
echo "$states" | sed 's/^/    | task /'
[ "$(echo "$states" | awk 'NR == 1 { print $1, $2 }')" = "0 COMPLETED" ] || fail "task 0 did not complete"
[ "$(echo "$states" | awk 'NR == 2 { print $1, $2 }')" = "1 FAILED" ] || fail "task 1 did not fail"
ok "crash array $job in $((SECONDS - t0)) s: task 0 COMPLETED, task 1 FAILED (sbatch --wait exit $rc)"
[ "$(h5_attr "$(ls results/crash/crash-0000-*.h5)" /schema_version)" = 1 ] || fail "point 0 output"
[ -z "$(ls results/crash/crash-0001-* 2>/dev/null)" ] || fail "the crashed point left an output"
grep -q "injected failure" results/crash/slurm/crash-"$job"_1.out || fail "task 1 log lacks the fatal error"
ok "point 0 complete; point 1 has no output and its log has the fatal error"
spec="$(bash "$SRC/slurm-jobs/submit.sh" --dry-run --pending --emu "$DIKE_EMU" crash.ini | tail -1)"
[[ "$spec" == *"--array=1 "* ]] || fail "submit.sh --pending would not resubmit only point 1: $spec"
ok "submit.sh --pending resubmits only point 1"

# ---- stop (the trap does it too, on any failure) ----
t0=$SECONDS
stopped=1
daemons="$(cat "$S/started")"
bash "$here/stop.sh" "$S" || fail "stop.sh could not stop every daemon"
while read -r name pid; do
    ! kill -0 "$pid" 2>/dev/null || fail "$name ($pid) still running"
done <<<"$daemons"
ok "daemons stopped in $((SECONDS - t0)) s: $(echo $daemons)"
if [ "${DIKE_KEEP_TMP:-0}" = 1 ]; then echo "kept $S"; else rm -rf -- "$S"; fi
echo "slurm_array: $((SECONDS - t_start)) s in all"
