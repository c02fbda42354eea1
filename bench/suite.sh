#!/usr/bin/env bash
# The performance suite of docs/performance.md: one command, a Markdown table and a JSON file.
#   bench/suite.sh [--smoke] [BUILD_DIR] [OUT_PREFIX]
# Default BUILD_DIR build (Release, scripts/quickstart.sh), OUT_PREFIX bench/results (writes
# OUT_PREFIX.md and OUT_PREFIX.json). --smoke runs every case scaled down (no ../shared needed) and
# only checks the outputs are right (every job finished, a complete file): ctest runs it.
# Per case: process wall time, engine time, simulated seconds per wall second, events/s, decision
# step mean and p99, peak RSS, output size. A case that exceeds its time limit is reported as such.
set -uo pipefail
cd "$(dirname "$0")/.."
SMOKE=0
[ "${1:-}" = --smoke ] && { SMOKE=1; shift; }
B=${1:-build}
OUT=${2:-bench/results}
EMU=$(readlink -f "$B/dike-emu")
SH=${DIKE_SHARED_DIR:-../shared}/traces
PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$EMU" ] || { echo "suite: $EMU not built" >&2; exit 2; }

# name|ranks|policy|time limit (s)|dike-emu run options
if [ $SMOKE = 1 ]; then
  WEEK=experiments/data/philly-vc-week.csv
  CASES=(
    "trace A (smoke)|1|fifo|120|-t $WEEK --cluster 256x8"
    "trace A (smoke)|1|las|120|-t $WEEK --cluster 256x8"
    "trace A (smoke)|1|dike|120|-t $WEEK --cluster 256x8"
    "trace B (smoke)|1|themis|120|-t $WEEK --cluster 64x8"
    "trace B (smoke)|1|drf|120|-t $WEEK --cluster 64x8"
    "synthetic (smoke)|1|fifo|120|--set workload.jobs=5000 --set cluster.nodes=125"
    "synthetic (smoke)|2|dike|120|--set workload.jobs=2000 --set cluster.nodes=125"
  )
else
  CASES=(
    "RFold Philly 111k, 2,048 GPUs|1|fifo|600|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
    "RFold Philly 111k, 2,048 GPUs|1|sjf|600|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
    "RFold Philly 111k, 2,048 GPUs|1|srtf|600|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
    "RFold Philly 111k, 2,048 GPUs|1|las|600|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
    "RFold Philly 111k, 2,048 GPUs|1|themis|600|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
    "RFold Philly 111k, 2,048 GPUs|1|gandiva-fair|600|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
    "RFold Philly 111k, 2,048 GPUs|1|drf|600|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
    "RFold Philly 111k, 2,048 GPUs|1|dike|600|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
    "TitanSched Philly 82k, 512 GPUs|1|fifo|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "TitanSched Philly 82k, 512 GPUs|1|sjf|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "TitanSched Philly 82k, 512 GPUs|1|srtf|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "TitanSched Philly 82k, 512 GPUs|1|las|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "TitanSched Philly 82k, 512 GPUs|1|themis|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "TitanSched Philly 82k, 512 GPUs|1|gandiva-fair|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "TitanSched Philly 82k, 512 GPUs|1|drf|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "TitanSched Philly 82k, 512 GPUs|1|dike|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "TitanSched Philly 82k, 512 GPUs (mpirun)|m1|fifo|600|-t $SH/TitanSched/philly.csv --cluster 64x8"
    "synthetic 1M, 100,000 GPUs|1|fifo|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|2|fifo|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|1|dike|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|2|dike|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|1|las|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|1|themis|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|1|sjf|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|1|srtf|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|1|drf|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 1M, 100,000 GPUs|1|gandiva-fair|600|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
    "synthetic 10M, 1,000,000 GPUs|1|fifo|900|--set workload.jobs=10000000 --set cluster.nodes=125000 --set workload.load=0.9"
    "synthetic 10M, 1,000,000 GPUs|1|dike|900|--set workload.jobs=10000000 --set cluster.nodes=125000 --set workload.load=0.9"
  )
fi

echo "[" >"$T/rows.json"
first=1
bad=0
for c in "${CASES[@]}"; do
  IFS='|' read -r name np pol limit opts <<<"$c"
  read -r -a args <<<"$opts"
  cmd=("$EMU" run -q -p "$pol" "${args[@]}" --out "$T/o.h5")
  # ranks: N (one rank runs as a singleton, without mpirun), or mN (always through mpirun -np N)
  case $np in
    m*) np=${np#m}; cmd=(mpirun -np "$np" "${cmd[@]}") ;;
    *) [ "$np" -gt 1 ] && cmd=(mpirun -np "$np" "${cmd[@]}") ;;
  esac
  rm -f "$T/o.h5"
  status=ok
  /usr/bin/time -f '%e %M' -o "$T/time" timeout "$limit" "${cmd[@]}" 2>"$T/err" >/dev/null || status=failed
  if [ ! -f "$T/o.h5" ]; then
    status="no result within $limit s"
    [ $SMOKE = 1 ] && { echo "suite: $name $pol: $(head -2 "$T/err")" >&2; bad=1; }
  fi
  read -r wall rss < <(tail -1 "$T/time" | awk 'NF == 2 { print $1, $2 } NF != 2 { print "nan", "nan" }')
  size=$( [ -f "$T/o.h5" ] && stat -c %s "$T/o.h5" || echo 0)
  row=$("$PY" - "$T/o.h5" "$name" "$np" "$pol" "$wall" "$rss" "$size" "$status" <<'PYEOF'
import json, sys, math
path, name, np_, pol, wall, rss, size, status = sys.argv[1:]
row = {"case": name, "ranks": int(np_), "policy": pol, "status": status,
       "process_s": float(wall), "peak_rss_mib": float(rss) / 1024 if rss != "nan" else None,
       "output_mib": int(size) / 2**20}
try:
    import h5py
    with h5py.File(path, "r") as f:
        s = f["summary"].attrs
        p = f["perf"][:]
        r0 = p[0]
        row.update(jobs=int(s["jobs"]), finished=int(s["finished"]), gpus=None,
                   engine_s=float(r0["wall_seconds"]),
                   sim_s_per_wall_s=float(s["makespan"]) / max(float(r0["wall_seconds"]), 1e-9),
                   events_per_s=float(sum(p["events"])) / max(float(r0["wall_seconds"]), 1e-9),
                   decide_mean_us=float(r0["decide_mean_us"]), decide_p50_us=float(r0["decide_p50_us"]),
                   decide_p99_us=float(r0["decide_p99_us"]), decide_max_us=float(r0["decide_max_us"]),
                   active_max=int(r0["active_max"]), startup_s=float(r0["startup_seconds"]),
                   read_s=float(r0["read_seconds"]), windows=int(r0["windows"]))
        cfg = f.attrs["config"]
        cfg = cfg.decode() if isinstance(cfg, bytes) else cfg
        kv = dict(l.split(" = ", 1) for l in cfg.splitlines() if " = " in l)
        n, g = int(kv.get("nodes", 0)), int(kv.get("gpus_per_node", 8))
        row["gpus"] = n * g if not kv.get("nodes_file") else None
except Exception as e:  # no output: the case did not finish
    row.setdefault("jobs", None)
print(json.dumps(row))
PYEOF
)
  [ $first = 1 ] || echo "," >>"$T/rows.json"
  first=0
  echo "$row" >>"$T/rows.json"
  echo "$row" | "$PY" -c 'import json,sys; r=json.load(sys.stdin); print("%-34s %d %-6s %s" % (r["case"], r["ranks"], r["policy"], r["status"]))' >&2
  if [ $SMOKE = 1 ]; then
    echo "$row" | "$PY" -c 'import json,sys; r=json.load(sys.stdin); sys.exit(0 if r.get("jobs") and r["jobs"] == r["finished"] and r["output_mib"] > 0 else 1)' ||
      { echo "suite: smoke case '$name' $pol is not right: $row" >&2; bad=1; }
  fi
done
echo "]" >>"$T/rows.json"
mkdir -p "$(dirname "$OUT")"
"$PY" - "$T/rows.json" "$OUT" <<'PYEOF'
import json, sys
rows = json.load(open(sys.argv[1]))
out = sys.argv[2]
json.dump(rows, open(out + ".json", "w"), indent=1)
def f(v, fmt):
    return "—" if v is None else fmt % v
lines = ["| case | ranks | policy | status | jobs | process (s) | MPI start (s) | read (s) | engine (s) | sim s / wall s | events/s | decide mean / p50 / p99 / max (µs) | active jobs (max) | peak RSS (MiB) | output (MiB) |",
         "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
for r in rows:
    dec = "—" if r.get("decide_mean_us") is None else "%.2f / %.3g / %.3g / %.3g" % (
        r["decide_mean_us"], r["decide_p50_us"], r["decide_p99_us"], r["decide_max_us"])
    lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        r["case"], r["ranks"], r["policy"], r["status"], "{:,}".format(r["jobs"]) if r.get("jobs") else "—",
        f(r.get("process_s"), "%.2f"), f(r.get("startup_s"), "%.2f"), f(r.get("read_s"), "%.2f"),
        f(r.get("engine_s"), "%.2f"), f(r.get("sim_s_per_wall_s"), "%.3g"),
        f(r.get("events_per_s"), "%.3g"), dec, "{:,}".format(r["active_max"]) if r.get("active_max") is not None else "—",
        f(r.get("peak_rss_mib"), "%.0f"), f(r.get("output_mib"), "%.1f")))
open(out + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PYEOF
if [ $SMOKE = 1 ]; then
  [ $bad = 0 ] && echo "${#CASES[@]} passed, 0 failed" || echo "smoke: failures above"
fi
exit $bad
