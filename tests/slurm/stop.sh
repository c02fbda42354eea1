#!/bin/bash
# Stop the Slurm that tests/slurm/start.sh STATE_DIR started: cancel what is left, then signal only
# the daemons listed in STATE_DIR/started (checking that each PID is still that program), TERM
# first, KILL after 10 s. Exit status 1 if one of them is still alive at the end.
#
#   tests/slurm/stop.sh STATE_DIR
set -u
S="${1:?usage: stop.sh STATE_DIR}"
[ -f "$S/started" ] || exit 0
export SLURM_CONF="$S/slurm.conf"

# alive NAME PID: PID is running and is NAME (a recycled PID is left alone).
alive()
{
    [ -r "/proc/$2/comm" ] && [ "$(cat "/proc/$2/comm" 2>/dev/null)" = "$1" ]
}

# Jobs first, while slurmctld can still cancel them (client commands fail slowly when it is down).
if grep -q '^slurmctld ' "$S/started" && alive slurmctld "$(awk '$1 == "slurmctld" { print $2 }' "$S/started")"; then
    timeout 15 scancel --quiet --user=root >/dev/null 2>&1 || true
    for _ in $(seq 20); do
        [ -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.5
    done
fi

status=0
# Reverse start order: slurmd, slurmctld, then munged (if this run started it).
for name in slurmd slurmctld munged; do
    pid="$(awk -v n="$name" '$1 == n { print $2 }' "$S/started")"
    [ -n "$pid" ] || continue
    if alive "$name" "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 40); do
            alive "$name" "$pid" || break
            sleep 0.25
        done
        if alive "$name" "$pid"; then
            echo "stop.sh: $name ($pid) ignored SIGTERM; SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
        fi
    fi
    if alive "$name" "$pid"; then
        echo "stop.sh: $name ($pid) is still running" >&2
        status=1
    else
        echo "stop.sh: stopped $name ($pid)"
    fi
done
# slurmstepd of a job slurmd could not finish: children of this run's slurmd spool.
for pid in $(pgrep -x slurmstepd 2>/dev/null); do
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$S/"; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
done
[ "$status" = 0 ] && rm -f "$S/started"
exit "$status"
