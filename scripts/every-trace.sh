#!/usr/bin/env bash
# Every policy on every trace in ../shared/traces, end to end, as recorded (no load scaling), on a
# cluster sized for an offered load of about 0.7 (from `dike-emu trace-info`'s mean demand), so
# queues stay short and every run is quick; the Alibaba pod list runs on its own node list.
# Prints one line per run: trace, policy, jobs, finished, avg JCT, wall. Exit 1 if any job is left
# unfinished or a run fails.
#   scripts/every-trace.sh [DIKE_EMU] [SHARED_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
EMU=${1:-build/dike-emu}
S=${2:-../shared}/traces
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# trace | extra options (cluster size: nodes of 8 GPUs)
CASES=(
  "$S/TitanSched/philly.csv|--cluster 68x8"
  "$S/RFold/philly_trace.csv|--cluster 210x8"
  "$S/RFold/crux.csv|--cluster 134x8"
  "$S/RFold/alibaba_v2023.csv|--cluster 8x8"
  "$S/elasticflow-traces|--cluster 204x8"
  "$S/Gen-Parallel-Workloads/philly_data_training.csv|--cluster 72x8"
  "$S/Gen-Parallel-Workloads/helios_data_training.csv|--cluster 116x8"
  "$S/clusterdata/openb_pod_list_default.csv|--cluster $S/clusterdata/openb_node_list_gpu_node.csv"
)
policies=$("$EMU" list-policies | awk '/^policies/ { on = 1; next } /^placements/ { on = 0 } on { print $1 }')
bad=0
printf '%-44s %-13s %8s %8s %14s %8s\n' trace policy jobs finished "avg JCT (s)" wall_s
for c in "${CASES[@]}"; do
  trace=${c%%|*}
  read -r -a extra <<<"${c#*|}"
  for p in $policies; do
    start=$(date +%s.%N)
    if "$EMU" run -q -t "$trace" --skip-invalid "${extra[@]}" -p "$p" -o "$T/o.h5" 2>"$T/err"; then
      wall=$(echo "$(date +%s.%N) - $start" | bc)
      jobs=$(h5dump -a /summary/jobs "$T/o.h5" | awk '/\(0\)/ { print $2 }')
      fin=$(h5dump -a /summary/finished "$T/o.h5" | awk '/\(0\)/ { print $2 }')
      jct=$(h5dump -a /summary/avg_jct "$T/o.h5" | awk '/\(0\)/ { print $2 }')
      printf '%-44s %-13s %8s %8s %14.1f %8.1f\n' "${trace#$S/}" "$p" "$jobs" "$fin" "$jct" "$wall"
      [ "$jobs" = "$fin" ] || bad=1
    else
      printf '%-44s %-13s FAILED: %s\n' "${trace#$S/}" "$p" "$(head -1 "$T/err")"
      bad=1
    fi
  done
done
exit $bad
