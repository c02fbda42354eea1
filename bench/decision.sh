#!/usr/bin/env bash
# Decision-step time against active jobs, for every policy (issue 13): a table and a figure.
#   bench/decision.sh [--smoke] [BUILD_DIR] [OUT_PREFIX]
# Default BUILD_DIR build (Release), OUT_PREFIX bench/decision (writes OUT_PREFIX.md, .json, .png).
# Environment: SIZES (jobs per run, default "100 1000 10000 100000 1000000"), POLICIES (default
# every policy of list-policies), LIMIT (seconds per run, default 600), LOAD (default 10),
# KNOWLEDGE (scheduler.duration_knowledge of every run: oracle, the default, noisy or none).
#
# Each run is a synthetic workload of N jobs on a cluster of N/8 GPUs (N/64 nodes of 8, at least
# one) at offered load LOAD: the jobs arrive about LOAD times faster than the cluster serves them,
# so the backlog climbs to about N (1 - 1/LOAD) active jobs and then drains. Every 8th decision
# step is timed, and /decide holds the timings by octave of active jobs (2^k .. 2^(k+1)-1); the
# table and the figure take, for each policy and octave, the run that timed the most steps in it.
# --smoke: sizes 100 and 1000 only, 30 s limit; checks that every run finished and wrote /decide
# (ctest: bench_decision_smoke). Timing on a shared machine: compare user CPU, not only wall.
set -uo pipefail
cd "$(dirname "$0")/.."
SMOKE=0
[ "${1:-}" = --smoke ] && { SMOKE=1; shift; }
B=${1:-build}
OUT=${2:-bench/decision}
EMU=$(readlink -f "$B/dike-emu")
PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x "$EMU" ] || { echo "decision: $EMU not built" >&2; exit 2; }
if [ $SMOKE = 1 ]; then
  SIZES=${SIZES:-"100 1000"}
  LIMIT=${LIMIT:-30}
  CHECK=--check
else
  SIZES=${SIZES:-"100 1000 10000 100000 1000000"}
  LIMIT=${LIMIT:-600}
  CHECK=
fi
LOAD=${LOAD:-10}
KNOWLEDGE=${KNOWLEDGE:-oracle}
POLICIES=${POLICIES:-$("$EMU" list-policies | awk '/^policies/ { p = 1; next } /^placements/ { p = 0 } p && NF { print $1 }' | tr '\n' ' ')}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

bad=0
: >"$T/runs.tsv"
for pol in $POLICIES; do
  for n in $SIZES; do
    nodes=$(( n / 64 > 0 ? n / 64 : 1 ))
    out="$T/$pol-$n.h5"
    status=ok
    /usr/bin/time -f '%e %U %M' -o "$T/time" timeout "$LIMIT" "$EMU" run -q -p "$pol" \
      --set workload.jobs="$n" --set cluster.nodes="$nodes" --set workload.load="$LOAD" \
      --set scheduler.duration_knowledge="$KNOWLEDGE" \
      --out "$out" >/dev/null 2>"$T/err" || status=failed
    [ -f "$out" ] || status="no result within $LIMIT s"
    read -r wall user rss < <(tail -1 "$T/time" | awk 'NF == 3 { print $1, $2, $3 } NF != 3 { print "nan nan nan" }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pol" "$n" "$nodes" "$status" "$wall" "$user" "$rss" "$out" >>"$T/runs.tsv"
    printf 'decision: %-13s %8s jobs %6s nodes: %s (%s s)\n' "$pol" "$n" "$nodes" "$status" "$wall" >&2
    if [ "$status" != ok ]; then
      head -2 "$T/err" >&2
      [ $SMOKE = 1 ] && bad=1
    fi
  done
done
mkdir -p "$(dirname "$OUT")"
"$PY" bench/decision_plot.py $CHECK "$T/runs.tsv" "$OUT" || bad=1
exit $bad
