#!/usr/bin/env bash
# Measurements behind docs/scaling.md. Prints; asserts nothing.
#   bench/scaling.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PY=/usr/bin/python3

echo "== 1. node-heavy workload: 12,500 nodes (100,000 GPUs), failures on (MTBF 10 days, MTTR 2 h), 500,000 jobs, fifo"
NODE=(--set workload.jobs=500000 --set cluster.nodes=12500 --set workload.load=0.9
      --set faults.mtbf_s=864000 --set faults.mttr_s=7200 -p fifo)
for np in 1 2; do
  for rep in 1 2 3; do
    /usr/bin/time -f "%e" -o "$TMP/t" mpirun --oversubscribe -np "$np" "$B/dike-emu" run "${NODE[@]}" -o "$TMP/n.h5" >"$TMP/out"
    echo "ranks $np rep $rep: process $(cat "$TMP/t") s"
    sed -n '/per rank:/,$p' "$TMP/out" | grep -v '^wrote'
  done
done

echo "== 2. one window round of the protocol alone (us), bench/window_bench.c"
for np in 1 2 3 4; do
  mpirun --oversubscribe -np "$np" "$B/dike-window-bench" 20000 0 0
  mpirun --oversubscribe -np "$np" "$B/dike-window-bench" 5000 1000 64
done

echo "== 3. decision step cost against active jobs (dike, synthetic 20,000 jobs on 2,048 GPUs)"
for load in 0.6 0.9 1.2 1.5; do
  "$B/dike-emu" run -q -p dike --set workload.jobs=20000 --set cluster.nodes=256 --set workload.load=$load -o "$TMP/d.h5"
  $PY - "$TMP/d.h5" "$load" <<'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1])
p = f["perf"][0]
ts = f["timeseries"]
active = (ts["queued"][:] + ts["running"][:]).mean()
print("load %s: decisions %d, decide %.3f s, %.2f us/decision, mean active jobs %.0f, %.4f us per active job per decision"
      % (sys.argv[2], p["decisions"], p["decide_seconds"], 1e6 * p["decide_seconds"] / p["decisions"], active,
         1e6 * p["decide_seconds"] / p["decisions"] / max(active, 1)))
PYEOF
done
