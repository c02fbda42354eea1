#!/bin/bash
# A campaign on a real Slurm (SPEC §8): start a single-node Slurm on localhost (start.sh), submit a
# small grid as a job array with slurm-jobs/submit.sh --wait, check every task in Slurm's job
# completion log, every point's .h5 and the Slurm ids in campaign.json, run the same grid as one
# ensemble job (srun, 2 ranks in 2 groups) and as 2 tasks of 2 points each, and compare, show that
# a crashing point ends only its own array task, that a task stopped at its time limit (Slurm's
# B:USR1) ends non-zero for Slurm and TIMEOUT for `campaign --status`, and that a requeued task
# continues from its checkpoint; then stop the daemons this test started, by PID, whatever
# happens (stop.sh from the EXIT trap).
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
[ "$rc" = 0 ] && grep -q "4 COMPLETED, 0 FAILED, 0 TIMEOUT, 0 RUNNING, 0 PENDING" status.log ||
    { cat status.log; fail "campaign --status"; }
[ "$(awk -F'\t' '!/^#/ { printf "%s %s,", $2, $3 }' status.log)" = "COMPLETED ${job}_0,COMPLETED ${job}_1,COMPLETED ${job}_2,COMPLETED ${job}_3," ] ||
    { cat status.log; fail "campaign --status: states and Slurm jobs"; }
ok "campaign --status: 4 COMPLETED, each by its array task ${job}_0..3"
m=results/array/campaign.json
[ "$(json $m '[(p["slurm"]["array_job_id"], p["slurm"]["array_task_id"]) for p in d["points"]]')" = "[('$job', '0'), ('$job', '1'), ('$job', '2'), ('$job', '3')]" ] ||
    fail "campaign.json: Slurm ids $(json $m '[p["slurm"] for p in d["points"]]')"
[ "$(json $m 'sorted(i["slurm"]["array_task_id"] for i in d["invocations"])')" = "['0', '1', '2', '3']" ] ||
    fail "campaign.json: one invocation per task"
ok "campaign.json: every point's Slurm array job and task, one invocation per task"
grep -q "^campaign sl: points 2: 1 asked, 1 completed, 0 failed, 0 timeout, 0 already complete;" \
    "results/array/slurm/sl-${job}_2.out" || fail "task 2's log does not end with its own point's count"
ok "task logs count their own point only"
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
m=results/ensemble/campaign.json
[ "$(json $m 'd["counts"]["COMPLETED"], d["invocation"]["ran"]')" = "(4, 4)" ] || fail "ensemble manifest"
[ "$(json $m 'd["invocation"]["world_ranks"], d["invocation"]["ranks_per_run"], d["invocation"]["groups"]')" = "(2, 1, 2)" ] ||
    fail "ensemble groups"
[ "$(json $m 'd["invocation"]["slurm"]["job_id"], d["invocation"]["slurm"]["array_job_id"]')" = "('$(submitted ens.log)', None)" ] ||
    fail "ensemble manifest: Slurm job id"
ok "ensemble manifest: 4 COMPLETED by 2 groups in Slurm job $(submitted ens.log)"
for f in results/array/*.h5; do
    same_objects "$f" "results/ensemble/$(basename "$f")" "$(basename "$f"): array = ensemble" /jobs /summary /nodes
done

# ---- 2 points per array task, 2 ranks per task (--ntasks: ranks of each Slurm job) in groups of 1 ----
t0=$SECONDS
rc=0
timeout 120 bash "$SRC/slurm-jobs/submit.sh" --wait --points-per-task 2 --ntasks 2 --ranks-per-run 1 \
    --emu "$DIKE_EMU" grid.ini -- --out-dir "$T/results/ppt" >ppt.log 2>&1 || rc=$?
show_file "submit.sh --points-per-task 2 --ntasks 2" ppt.log
[ "$rc" = 0 ] || fail "points-per-task array exited $rc"
job="$(submitted ppt.log)"
[ "$(jobcomp_states "$job")" = "$(printf '0 COMPLETED 0:0\n1 COMPLETED 0:0')" ] || fail "jobcomp: tasks 0-1 of $job"
m=results/ppt/campaign.json
[ "$(json $m '[(p["status"], p["slurm"]["array_task_id"], p["ranks"]) for p in d["points"]]')" = "[('COMPLETED', '0', 1), ('COMPLETED', '0', 1), ('COMPLETED', '1', 1), ('COMPLETED', '1', 1)]" ] ||
    fail "points per task: $(json $m '[(p["status"], p["slurm"], p["ranks"]) for p in d["points"]]')"
[ "$(json $m 'sorted((i["points"], i["groups"]) for i in d["invocations"])')" = "[('0-1', 2), ('2-3', 2)]" ] ||
    fail "points per task: invocations $(json $m '[i["points"] for i in d["invocations"]]')"
for f in results/array/*.h5; do
    h5_same "$f" "results/ppt/$(basename "$f")" /jobs || fail "$(basename "$f"): /jobs differs"
done
ok "--points-per-task 2: array $job of 2 tasks (points 0-1, 2-3; 2 ranks in 2 groups each) in $((SECONDS - t0)) s, outputs identical"

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
[ -z "$(ls results/crash/crash-0001-*.h5 2>/dev/null)" ] || fail "the crashed point left an output"
# The fatal error's lines reach the log through srun; when Slurm kills the aborted step (exit 0:9
# instead of 3:0) it may drop them (seen once in 4 runs): then the log must at least show the
# step's failure and the script's exit status.
if ! grep -q "injected failure" results/crash/slurm/crash-"$job"_1.out; then
    grep -q "^srun: error: .*task 0" results/crash/slurm/crash-"$job"_1.out &&
        grep -q "^array.sbatch: dike-emu exited [1-9]" results/crash/slurm/crash-"$job"_1.out ||
        fail "task 1 log shows neither the fatal error nor the failed step"
    echo "    (Slurm dropped the aborted step's last stderr lines; the log shows the failed step)"
fi
ok "point 0 complete; point 1 has no output and its log shows it failing"
rc=0
"$DIKE_EMU" campaign crash.ini --status >status.log || rc=$?
grep -q $'^1\tFAILED\t'"${job}_1"$'\t.*ended without recording how' status.log || { cat status.log; fail "--status: point 1"; }
ok "campaign --status: point 1 FAILED in ${job}_1 (its run ended without a record)"
spec="$(bash "$SRC/slurm-jobs/submit.sh" --dry-run --pending --emu "$DIKE_EMU" crash.ini | tail -1)"
[[ "$spec" == *"--array=1 "* ]] || fail "submit.sh --pending would not resubmit only point 1: $spec"
ok "submit.sh --pending resubmits only point 1"

# ---- a time limit: Slurm's B:USR1 (the script's default --signal=B:USR1@120), requeue ----
# One point of ~3 s (dike, 150,000 jobs). `scancel --batch --signal=USR1` sends what
# --signal=B:USR1@120 sends 120 s before the limit, now: to the batch shell, which passes it to
# dike-emu. (A real limit takes at least a minute: docs/campaigns.md has such a run.)
cat >tl.ini <<EOF
[campaign]
name = tl
out_dir = $T/results/tl

[cluster]
nodes = 256

[workload]
jobs = 150000
load = 1.2

[scheduler]
policy = dike
EOF
tl_out="$("$DIKE_EMU" campaign tl.ini --list | awk -F'\t' '!/^#/ { print $2 }')"
# usr1_when_running LOG: once the point runs (its run record says RUNNING), signal the batch shell.
usr1_when_running()
{
    local j="" n
    for n in $(seq 300); do
        j="$(submitted "$1")"
        [ -n "$j" ] && grep -qs '"state":[[:space:]]*"RUNNING"' "${tl_out%.h5}.run.json" && break
        sleep 0.2
    done
    [ -n "$j" ] || fail "no job id in $1"
    scancel --batch --signal=USR1 "${j}_0" || fail "scancel --batch --signal=USR1 ${j}_0"
    echo "    sent USR1 to the batch shell of ${j}_0 after $((n / 5)) s"
}
t0=$SECONDS
rc=0
timeout 120 bash "$SRC/slurm-jobs/submit.sh" --wait --emu "$DIKE_EMU" tl.ini >tl.log 2>&1 &
submit_pid=$!
usr1_when_running tl.log
wait "$submit_pid" || rc=$?
job="$(submitted tl.log)"
show_file "submit.sh --wait tl.ini (stopped)" tl.log
show_file "task log" "results/tl/slurm/tl-${job}_0.out"
[ "$rc" = 4 ] || fail "sbatch --wait of a task stopped at its time limit exited $rc, expected 4"
[ "$(jobcomp_states "$job")" = "0 FAILED 4:0" ] || fail "jobcomp: $(jobcomp_states "$job")"
ok "stopped task ${job}_0: sbatch --wait exit 4, Slurm FAILED 4:0 ($((SECONDS - t0)) s)"
rc=0
"$DIKE_EMU" campaign tl.ini --status >status.log || rc=$?
show_file "campaign --status" status.log
[ "$rc" = 1 ] && grep -q $'^0\tTIMEOUT\t'"${job}_0"$'\t.*checkpoint written' status.log || fail "--status: not TIMEOUT"
[ -f "$tl_out.ckpt.h5" ] || fail "no checkpoint"
[ "$(json results/tl/campaign.json 'd["points"][0]["status"], d["points"][0]["checkpoint"] is not None')" = "('TIMEOUT', True)" ] ||
    fail "campaign.json: not TIMEOUT with a checkpoint"
ok "campaign --status and campaign.json: TIMEOUT in ${job}_0, checkpoint kept"

# Resubmitted (submit.sh --pending) with --auto-requeue 1, and stopped again: the task requeues
# itself and the requeued run continues from the checkpoint to the end.
t0=$SECONDS
rc=0
timeout 150 bash "$SRC/slurm-jobs/submit.sh" --wait --pending --auto-requeue 1 --emu "$DIKE_EMU" tl.ini >rq.log 2>&1 &
submit_pid=$!
usr1_when_running rq.log
wait "$submit_pid" || rc=$?
job="$(submitted rq.log)"
log="results/tl/slurm/tl-${job}_0.out"
show_file "submit.sh --pending --auto-requeue 1 --wait tl.ini" rq.log
show_file "task log (both runs: --open-mode=append)" "$log"
[ "$rc" = 0 ] || fail "the requeued task's sbatch --wait exited $rc"
grep -q "requeued ${job}_0 (restart 1 of at most 1)" "$log" || fail "the task did not requeue itself"
grep -q "restart 1) on" "$log" && grep -q "point 0/1 done in .* from its checkpoint" "$log" ||
    fail "the requeued run did not continue from the checkpoint"
# The record of the requeued run carries the stopped step's exit 4 in its DerivedExitCode only
# when slurmctld has recorded the step before the requeue: seen as 4:0 and, once in a run on
# 2026-12-03, as 0:0. So that record may carry either; the final record must carry 4:0.
case "$(awk -v a="$job" '$0 ~ "ArrayJobId=" a " " { for (i = 1; i <= NF; i++) if ($i ~ /^(JobState|DerivedExitCode)=/) printf "%s ", $i }' "$S/jobcomp.txt")" in
"JobState=PENDING DerivedExitCode=4:0 JobState=COMPLETED DerivedExitCode=4:0 " | \
"JobState=PENDING DerivedExitCode=0:0 JobState=COMPLETED DerivedExitCode=4:0 ") ;;
*) fail "jobcomp of $job: $(grep "ArrayJobId=$job " "$S/jobcomp.txt")" ;;
esac
ok "task ${job}_0 stopped (step exit 4), requeued itself, continued from its checkpoint: COMPLETED ($((SECONDS - t0)) s)"
[ "$(h5_attr "$tl_out" /summary/finished)" = 150000 ] || fail "not all 150000 jobs finished"
[ ! -e "$tl_out.ckpt.h5" ] || fail "checkpoint left after completion"
[ "$(json results/tl/campaign.json 'd["points"][0]["status"], d["points"][0]["resumed"], d["points"][0]["slurm"]["restart_count"]')" = "('COMPLETED', True, 1)" ] ||
    fail "campaign.json after the requeue: $(json results/tl/campaign.json 'd["points"][0]')"
ok "output complete (150000 jobs), checkpoint removed; campaign.json: COMPLETED, resumed, restart_count 1"

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
