#!/usr/bin/env bash
# Trace parsing benchmark: time and peak memory to read the full RFold Philly trace (111,549 jobs)
# and the ten ElasticFlow files (each alone, and all ten merged). Not a test: it asserts nothing;
# docs/performance.md records its output with the date and machine.
#
#   bench/parse.sh [BUILD_DIR] [RUNS]     (defaults: build, 5 runs per case)
#
# Each case runs `dike-emu trace-info FILES` RUNS times. parse_s is the median of the time
# trace-info reports for reading (dike_trace_read + window/scaling, sha256 included: the whole of
# what `run` does before the engine starts); process_s the median wall time of the command (MPI
# start-up included); rss_MiB the largest peak resident set (/usr/bin/time %M). The "floor" row
# reads a 10-job trace: the process's own start-up time and memory, with next to no parsing.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
RUNS=${2:-5}
EMU=$B/dike-emu
[ -x "$EMU" ] || { echo "parse.sh: $EMU not built (run scripts/quickstart.sh or cmake --build $B)" >&2; exit 1; }
SHARED=${DIKE_SHARED_DIR:-../shared}
T=$SHARED/traces
[ -d "$T" ] || { echo "parse.sh: $T not found (set DIKE_SHARED_DIR)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf '%-34s %9s %9s %9s %10s %8s\n' case rows jobs parse_s process_s rss_MiB
measure() { # name files...
  local name=$1; shift
  : >"$TMP/parse"; : >"$TMP/wall"; : >"$TMP/rss"
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %M' -o "$TMP/time" "$EMU" trace-info "$@" >"$TMP/out"
    read -r wall rss <"$TMP/time"
    echo "$wall" >>"$TMP/wall"
    echo "$rss" >>"$TMP/rss"
    awk '$1 == "read" {print $5}' "$TMP/out" >>"$TMP/parse"
  done
  local rows jobs
  rows=$(awk '$1 == "read" {gsub(",", "", $2); print $2}' "$TMP/out")
  jobs=$(awk '$1 == "jobs" {gsub(",", "", $2); print $2}' "$TMP/out")
  printf '%-34s %9s %9s %9.3f %10.2f %8.0f\n' "$name" "$rows" "$jobs" "$(median <"$TMP/parse")" \
    "$(median <"$TMP/wall")" "$(sort -g "$TMP/rss" | tail -1 | awk '{print $1 / 1024}')"
}

measure "floor (10-job philly-vc slice)" tests/data/trace_philly-vc_head.csv
measure "RFold philly_trace.csv" "$T/RFold/philly_trace.csv"
measure "ElasticFlow, all 10 merged" "$T/elasticflow-traces"
for f in "$T"/elasticflow-traces/cluster*.csv; do
  measure "ElasticFlow $(basename "$f")" "$f"
done
