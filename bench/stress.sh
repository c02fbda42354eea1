#!/usr/bin/env bash
# Every policy and knowledge mode at the edges of the shared traces, to find the configurations
# where a policy's decision step stops scaling (docs/performance.md, "LAS rounds without the
# backlog"). Prints one line per run: trace, nodes (of 8 GPUs), offered load, policy ("dike0":
# Dike at fairness_weight 0), knowledge mode, exit status, wall seconds, engine seconds,
# preemptions. Asserts nothing.
#   bench/stress.sh [BUILD_DIR] [CONFIGS]
#   bench/stress.sh --backlog [BUILD_DIR] [JOBS]
#   bench/stress.sh --tenants [BUILD_DIR] [TENANTS]
# BUILD_DIR defaults to build; CONFIGS to "20:3.0 2048:0.5 24:0.6 512:2.5" (nodes:load). Needs
# ../shared/traces (DIKE_SHARED_DIR overrides ../shared). A run over 600 s is stopped and shows
# rc=124. --backlog: instead, a synthetic backlog of JOBS jobs (default 500,000) on JOBS / 200
# nodes at load 2, no trace needed (docs/performance.md, "Dike under `none` at overload"; runs
# over 900 s are stopped). --tenants: 100,000 synthetic jobs of TENANTS tenants (default 10,000) on
# 250 nodes at load 1.2 (docs/performance.md, "Many tenants"; runs over 900 s are stopped).
set -uo pipefail
cd "$(dirname "$0")/.."
MODE=traces
case "${1:-}" in --backlog | --tenants) MODE=${1#--}; shift ;; esac
EMU=$(readlink -f "${1:-build}/dike-emu")
CONFIGS=${2:-"20:3.0 2048:0.5 24:0.6 512:2.5"}
SH=${DIKE_SHARED_DIR:-../shared}/traces
[ -x "$EMU" ] || { echo "stress: $EMU not built" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
line() { # name nodes load policy mode rc start end
  printf "%-6s %5s %4s %-12s %-6s rc=%-3d %7.1f s  engine %8s  preemptions %s\n" "$1" "$2" "$3" "$4" \
    "$5" "$6" "$(echo "$8 - $7" | bc)" "$(awk '/engine wall/ {print $NF}' "$T/log")" \
    "$(awk '/^  preemptions/ {print $NF}' "$T/log")"
}
# sweep NAME NODES LOAD TIMEOUT ARGS...: every policy and knowledge mode on one case, one line each
sweep() {
  local name=$1 nodes=$2 load=$3 limit=$4
  shift 4
  for p in fifo sjf srtf las themis gandiva-fair drf dike dike0; do
    for mode in oracle noisy none; do
      case $p in fifo|las|gandiva-fair|drf) [ "$mode" != oracle ] && continue ;; esac
      local pol=$p extra=()
      [ "$p" = dike0 ] && { pol=dike; extra=(--set dike.fairness_weight=0); }
      local start
      start=$(date +%s.%N)
      timeout "$limit" "$EMU" run "$@" -p "$pol" "${extra[@]}" \
        --set scheduler.duration_knowledge="$mode" --set scheduler.backfill=true \
        --set output.progress_interval_s=0 --out "$T/run.h5" > "$T/log" 2>&1
      local rc=$?
      line "$name" "$nodes" "$load" "$p" "$mode" $rc "$start" "$(date +%s.%N)"
      rm -f "$T/run.h5"
    done
  done
}
if [ $MODE = tenants ]; then
  TEN=${2:-10000}
  sweep "tenants=$TEN" 250 1.2 900 --set workload.jobs=100000 --set workload.tenants="$TEN" \
    --set cluster.nodes=250 --set workload.load=1.2
  exit 0
fi
if [ $MODE = backlog ]; then
  JOBS=${2:-500000}
  sweep synth $((JOBS / 200)) 2 900 --set workload.jobs="$JOBS" \
    --set cluster.nodes=$((JOBS / 200)) --set workload.load=2
  exit 0
fi
[ -d "$SH" ] || { echo "stress: $SH not found" >&2; exit 2; }
TRACES="titan:$SH/TitanSched/philly.csv gpp:$SH/Gen-Parallel-Workloads/philly_data_training.csv
        helios:$SH/Gen-Parallel-Workloads/helios_data_training.csv ef:$SH/elasticflow-traces"
for tr in $TRACES; do
  for cfg in $CONFIGS; do
    nodes=${cfg%%:*} load=${cfg##*:}
    sweep "${tr%%:*}" "$nodes" "$load" 600 -t "${tr#*:}" --skip-invalid --cluster "${nodes}x8" \
      --set cluster.nodes_per_rack=16 --set workload.trace_load="$load"
  done
done
