#!/bin/bash
# Start a throwaway single-node Slurm on localhost (following ../shared/notes/slurm-single-node.md):
# a private munged (own socket, the system's key), slurmctld and slurmd as daemons, everything they
# write under STATE_DIR, ports chosen free, so that two runs (two build trees) never share or stop
# each other's daemons. Waits until the node is idle and the scheduler is warm.
#
#   tests/slurm/start.sh STATE_DIR        (as root; then: export SLURM_CONF=STATE_DIR/slurm.conf)
#
# DIKE_SLURM_OWNER (default: the calling process) is the PID whose death marks this Slurm as left
# over: a later start.sh stops daemons whose owner is gone (a test killed by ctest's timeout).
#
# Writes STATE_DIR/slurm.conf and STATE_DIR/started (one "name pid" line per daemon it started:
# tests/slurm/stop.sh STATE_DIR stops exactly those). Exit status: 0 up; 77 Slurm cannot be
# started here (not root, packages missing), with "SKIP: reason" on stdout; 1 it failed to start
# (logs in STATE_DIR/log).
set -eu
S="${1:?usage: start.sh STATE_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"

skip()
{
    echo "SKIP: $*"
    exit 77
}
die()
{
    echo "start.sh: $*" >&2
    for f in "$S"/log/*.log; do
        [ -f "$f" ] || continue
        echo "--- $f (last lines):" >&2
        tail -n 15 "$f" >&2
    done
    exit 1
}
# wait_for SECONDS WHAT COMMAND...: retry COMMAND every 0.5 s until it succeeds.
wait_for()
{
    local limit=$(($1 * 2)) what="$2" i
    shift 2
    for ((i = 0; i < limit; i++)); do
        if "$@" >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.5
    done
    die "timed out after $((limit / 2)) s waiting for $what"
}

[ "$(id -u)" = 0 ] || skip "a private Slurm needs root (slurmd runs jobs as their users)"
for b in slurmctld slurmd sbatch sinfo scontrol squeue scancel srun munged munge unmunge; do
    command -v "$b" >/dev/null || skip "$b not installed (slurmctld slurmd slurm-client munge: bash scripts/deps.sh)"
done

# Daemons of an earlier run whose owner died before it could stop them (ctest's timeout kills
# with SIGKILL, so no trap ran): stop them first, by the PIDs that run recorded.
for old in "${TMPDIR:-/tmp}"/dike-slurm.*; do
    [ "$old" != "$S" ] && [ -f "$old/started" ] || continue
    owner="$(cat "$old/owner" 2>/dev/null || true)"
    if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then
        continue # another run, still going
    fi
    echo "start.sh: stopping daemons left by $old (owner ${owner:-?} is gone)"
    bash "$here/stop.sh" "$old" || true
    rm -rf -- "$old"
done

mkdir -p "$S/state" "$S/spool" "$S/log"
chmod 0755 "$S" # munged (user munge) must reach its folder inside
echo "${DIKE_SLURM_OWNER:-$PPID}" >"$S/owner"
: >"$S/started"
host="$(hostname -s)"
getent hosts "$host" >/dev/null || skip "host name '$host' does not resolve (add it to /etc/hosts)"

# A private munged: its own socket, pid, seed and log files, the system's key (created if the
# package left none).
id munge >/dev/null 2>&1 || skip "no 'munge' user (is the munge package installed?)"
if [ ! -s /etc/munge/munge.key ]; then
    install -d -o munge -g munge -m 0700 /etc/munge
    (umask 0277 && dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none)
    chown munge:munge /etc/munge/munge.key
fi
install -d -o munge -g munge -m 0755 "$S/munge"
socket="$S/munge/munge.socket"
runuser -u munge -- munged --socket="$socket" --pid-file="$S/munge/munged.pid" \
    --seed-file="$S/munge/munged.seed" --log-file="$S/munge/munged.log" ||
    { cp "$S/munge/munged.log" "$S/log/munged.log" 2>/dev/null; die "munged did not start"; }
wait_for 10 "munged's pid file" test -s "$S/munge/munged.pid"
echo "munged $(cat "$S/munge/munged.pid")" >>"$S/started"
wait_for 10 "munge to answer" sh -c "munge -n --socket='$socket' | unmunge --socket='$socket'"

# Two free ports near Slurm's defaults (a system Slurm keeps 6817/6818).
port_free()
{
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
ctld_port=""
for p in $(seq 16817 2 16917); do
    if port_free "$p" && port_free $((p + 1)); then
        ctld_port=$p
        break
    fi
done
[ -n "$ctld_port" ] || die "no two free ports in 16817-16918"

# The node's real size: CPUs from slurmd -C, 95 % of its memory.
node_line="$(slurmd -C | head -1)"
cpus="$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node_line")"
mem="$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node_line")"
[ -n "$cpus" ] && [ -n "$mem" ] || die "cannot read CPUs and RealMemory from 'slurmd -C': $node_line"
mem=$((mem * 95 / 100))

cat >"$S/slurm.conf" <<EOF
# Throwaway single-node Slurm of the dike-emu tests (tests/slurm/start.sh).
ClusterName=dikeci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# A requeued job may start again only cred_expire + 1 s after it ended (default 120 s): 10 s keeps
# the requeue test short.
AuthInfo=socket=$socket,cred_expire=10
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
# No cgroups here: plain process tracking, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
# A job that can never run is refused at once instead of pending forever (sbatch --wait would hang).
EnforcePartLimits=ALL
# sbatch --wait polls every 2 s with a small MinJobAge; batch jobs start at once.
MinJobAge=5
SchedulerParameters=batch_sched_delay=0,sched_interval=5
# No accounting database: finished jobs' states and exit codes are in this file.
JobCompType=jobcomp/filetxt
JobCompLoc=$S/jobcomp.txt
# Debian's Open MPI speaks PMIx (srun --mpi=pmi2 does not work).
MpiDefault=pmix
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$S/slurm.conf"

slurmctld -i -f "$SLURM_CONF" || die "slurmctld did not start"
wait_for 15 "slurmctld's pid file" test -s "$S/slurmctld.pid"
echo "slurmctld $(cat "$S/slurmctld.pid")" >>"$S/started"
wait_for 30 "slurmctld to answer (scontrol ping)" sh -c 'scontrol ping | grep -q "is UP"'

slurmd -f "$SLURM_CONF" || die "slurmd did not start"
wait_for 15 "slurmd's pid file" test -s "$S/slurmd.pid"
echo "slurmd $(cat "$S/slurmd.pid")" >>"$S/started"
wait_for 60 "the node to be idle (sinfo)" sh -c '[ "$(sinfo -h -N -o %t)" = idle ]'

# The first step primes the scheduler and checks that jobs really run.
timeout 60 srun -n1 true || die "srun -n1 true failed"
echo "start.sh: Slurm up on $host (ports $ctld_port/$((ctld_port + 1)), $cpus CPUs, ${mem} MB); SLURM_CONF=$SLURM_CONF"
