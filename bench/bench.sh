#!/usr/bin/env bash
# dike-emu benchmark: prints wall time, events/s and peak RSS per case. Not a test: it asserts
# nothing; docs/performance.md records its output with the date and machine.
#
#   bench/bench.sh [BUILD_DIR]        (default: build, configured Release by scripts/quickstart.sh)
#
# "process" is the whole command (MPI start-up, workload generation or trace parsing, emulation,
# HDF5 output); "engine" is the window loop alone (rank 0's /perf wall_seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
EMU=$B/dike-emu
[ -x "$EMU" ] || { echo "bench: $EMU not built (run scripts/quickstart.sh or cmake --build $B)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SHARED=${DIKE_SHARED_DIR:-../shared}

printf '%-34s %5s %9s %7s %-6s %9s %9s %11s %12s %8s %9s\n' case ranks jobs GPUs policy \
  process_s engine_s events events_per_s windows rss_MiB
run() { # name ranks policy args...
  local name=$1 np=$2 pol=$3; shift 3
  local out=$TMP/out.h5
  local cmd=("$EMU" run -p "$pol" -o "$out" "$@")
  [ "$np" -gt 1 ] && cmd=(mpirun --oversubscribe -np "$np" "${cmd[@]}")
  /usr/bin/time -f '%e %M' -o "$TMP/time" "${cmd[@]}" > "$TMP/stdout"
  read -r wall rss < "$TMP/time"
  local jobs gpus ew ev eps win
  jobs=$(awk '$1=="jobs"{print $2}' "$TMP/stdout")
  gpus=$(h5dump -a /config "$out" | grep -oE 'nodes = [0-9]+|gpus_per_node = [0-9]+' | awk '{v[NR]=$3} END{print v[1]*v[2]}')
  ew=$(awk '/engine wall/{print $4}' "$TMP/stdout")
  eps=$(awk '/events\/s/{print $2}' "$TMP/stdout")
  win=$(awk '/windows/{print $2}' "$TMP/stdout")
  ev=$(awk -v a="$ew" -v b="$eps" 'BEGIN{printf "%.0f", a*b}')
  printf '%-34s %5s %9s %7s %-6s %9s %9s %11s %12s %8s %9.0f\n' "$name" "$np" "$jobs" "$gpus" "$pol" \
    "$wall" "$ew" "$ev" "$eps" "$win" "$(echo "$rss/1024" | bc -l)"
}

SYN=(--set workload.load=0.9 --set workload.tenants=8)
run "synthetic 100k, 2,048 GPUs"      1 fifo --set workload.jobs=100000 --set cluster.nodes=256 "${SYN[@]}"
run "synthetic 100k, 2,048 GPUs"      1 sjf  --set workload.jobs=100000 --set cluster.nodes=256 "${SYN[@]}"
run "synthetic 100k, 2,048 GPUs"      1 srtf --set workload.jobs=100000 --set cluster.nodes=256 "${SYN[@]}"
run "synthetic 100k, 2,048 GPUs"      2 fifo --set workload.jobs=100000 --set cluster.nodes=256 "${SYN[@]}"
run "synthetic 1M, 100,000 GPUs"      1 fifo --set workload.jobs=1000000 --set cluster.nodes=12500 "${SYN[@]}"
run "synthetic 1M, 100,000 GPUs"      1 srtf --set workload.jobs=1000000 --set cluster.nodes=12500 "${SYN[@]}"
run "synthetic 1M, 100,000 GPUs"      2 fifo --set workload.jobs=1000000 --set cluster.nodes=12500 "${SYN[@]}"
run "synthetic 1M, 100,000 GPUs"      4 fifo --set workload.jobs=1000000 --set cluster.nodes=12500 "${SYN[@]}"

PHILLY=$SHARED/traces/TitanSched/philly.csv
if [ -f "$PHILLY" ]; then
  # read as it is (the philly-vc reader sorts and numbers the jobs); the first 10,000 jobs by
  # workload.last_job. Until issue 15 the trace was first converted to the dike CSV by a Python
  # script, so "process" times recorded before then parsed that CSV instead of the dates.
  P10K=(-t "$PHILLY" --set workload.last_job=9999)
  POOL=(--set cluster.nodes=64 --set cluster.locality_rack=1 --set cluster.locality_cross_rack=1)
  run "Philly 10k, 512 GPUs (peers)"    1 fifo "${P10K[@]}" "${POOL[@]}"
  run "Philly 10k, 512 GPUs, fill-in"   1 fifo "${P10K[@]}" "${POOL[@]}" --set scheduler.backfill=true
  run "Philly 10k, 512 GPUs (peers)"    1 sjf  "${P10K[@]}" "${POOL[@]}"
  run "Philly full, 512 GPUs, fill-in"  1 fifo -t "$PHILLY" "${POOL[@]}" --set scheduler.backfill=true
  run "Philly full, 512 GPUs, fill-in"  1 sjf  -t "$PHILLY" "${POOL[@]}" --set scheduler.backfill=true
  run "Philly full, 512 GPUs"           1 fifo -t "$PHILLY" "${POOL[@]}"
  run "Philly full, 2,048 GPUs"         1 fifo -t "$PHILLY" --set cluster.nodes=256
else
  echo "(Philly cases skipped: $PHILLY not found; set DIKE_SHARED_DIR)"
fi
