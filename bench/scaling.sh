#!/usr/bin/env bash
# Measurements behind docs/scaling.md. Prints; asserts nothing.
#   bench/scaling.sh [BUILD_DIR] [SECTIONS] [OLD_EMU]   (SECTIONS: e.g. "4" or "1 2 3 4"; default
#   1-4; sections 5 and 6 compare BUILD_DIR's dike-emu with the binary OLD_EMU; section 7 is
#   the window bound, about 3 min; section 8 the 1,000,000-GPU prediction, 5-6 min and 3 GB)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PY=/usr/bin/python3
SECTIONS=${2:-1 2 3 4}
OLD_EMU=${3:-}
want() { [[ " $SECTIONS " == *" $1 "* ]]; }
# The node-heavy case's models (sections 4 and 7; section 4's workload b and section 7 add
# durations capped at 1 day).
MODELS=(--set workload.load=0.9 --set node_model.interference=0.1 --set node_model.network=rack
        --set node_model.slowdown_mtbf_s=86400 --set faults.mtbf_s=864000 --set faults.mttr_s=7200
        --set output.progress_interval_s=0 -p fifo --set scheduler.placement=${PLACEMENT:-pack})

if want 1; then
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

fi
if want 2; then
echo "== 2. one window round of the protocol alone (us), bench/window_bench.c"
for np in 1 2 3 4; do
  mpirun --oversubscribe -np "$np" "$B/dike-window-bench" 20000 0 0
  mpirun --oversubscribe -np "$np" "$B/dike-window-bench" 5000 1000 64
done

fi
if want 3; then
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
fi

if want 4; then
# The emulating mode (docs/architecture.md#two-modes): the node ranks track progress under every
# node model, decision latency 1 s (the lookahead of the windows), then 60 s. Strong scaling: the
# same case on 1 and 2 ranks; weak scaling: nodes and jobs doubled on 2 ranks. Per run: process
# time, the engine's per-rank table (local_s includes node_s) and the node side (node_s = owner_s +
# home_s; coord_s: rank 0's part of each window; wait_rec/rep/act: time in the three collectives;
# remote_records: slice factors sent to another rank's home).
echo "== 4. node-heavy, emulating: interference 0.1, rack uplinks, slowdowns (1/day/node), failures (MTBF 10 days, MTTR 2 h), fifo, placement ${PLACEMENT:-pack}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
# Busy now? The load average lags by minutes; what matters is whether something else runs now
# (a leftover run once took a core and doubled a 2-rank time: docs/scaling.md, 2026-12-03).
# Two readings of /proc/stat a second apart give the share of CPU time that was not idle.
busy_now() {
  local a b
  read -r -a a < <(head -1 /proc/stat); sleep 1; read -r -a b < <(head -1 /proc/stat)
  local tot=0 i
  for i in 1 2 3 4 5 6 7 8; do tot=$((tot + b[i] - a[i])); done
  echo $(( tot > 0 ? 100 - 100 * (b[4] + b[5] - a[4] - a[5]) / tot : 0 ))
}
BUSY=$(busy_now)
echo "CPU busy in the last second: $BUSY %"
[ "$BUSY" -lt 10 ] || echo "WARNING: something else is using the CPU ($BUSY %); the figures below will be disturbed (ps -eo pcpu,comm --sort=-pcpu | head)"
# PLACEMENT=tree (environment, default pack) places gangs on runs of adjacent racks, so fewer of
# them span ranks (docs/scaling.md, "Where the windows' time goes").
# Workload a: the synthetic defaults (durations up to 14 days: a long tail in which few jobs run,
# packed on the first nodes); b: durations capped at 1 day, so the cluster stays loaded.
# ROUNDS=N (environment, default 1) repeats the whole set N times and ends with each round's
# strong and weak ratios and their medians: on a shared or virtual machine one round is one
# sample of the machine's mood (docs/scaling.md), and only runs close in time are compared.
: >"$TMP/res"
for round in $(seq "${ROUNDS:-1}"); do
# The machine's mood before each workload: what one window's synchronisation costs between two cores,
# with the engine's collectives and through shared memory (bench/handoff_bench.c; on this VM it
# moved between about 1 and 3 us within minutes, docs/scaling.md).
for wl in a b; do
 if [ -x "$B/dike-handoff-bench" ]; then
   mpirun --oversubscribe -np 2 "$B/dike-handoff-bench" 100000 >"$TMP/h"
   sed "s/^/round $round, before workload $wl, handoff: /" "$TMP/h"
   # the collectives' figure (us per window) goes with this round's ratios in the summary
   awk -v wl=$wl -v r=$round '/^mpi/ { for (i = 1; i < NF; i++) if ($(i + 1) == "us") { print "h", wl, r, $i; exit } }' "$TMP/h" >>"$TMP/res"
 fi
 WL=(); [ $wl = b ] && WL=(--set workload.duration_max_s=86400)
 for lat in 1 60; do
  for run in "1 12500 500000" "2 12500 500000" "2 25000 1000000"; do
    read -r np nodes jobs <<<"$run"
    /usr/bin/time -f "%e" -o "$TMP/t" mpirun --oversubscribe -np "$np" "$B/dike-emu" run "${MODELS[@]}" "${WL[@]}" \
      --set scheduler.decision_latency_s=$lat --set cluster.nodes=$nodes --set workload.jobs=$jobs \
      -o "$TMP/e.h5" >"$TMP/out"
    engine=$(awk '/engine wall/ {print $4}' "$TMP/out")
    echo "round $round, workload $wl, latency $lat s, ranks $np, $nodes nodes, $jobs jobs: process $(cat "$TMP/t") s," \
         "engine $engine s$(awk '/^ +windows/ {print ", windows " $2}' "$TMP/out")" \
         "(load $(cut -d' ' -f1 /proc/loadavg))"
    sed -n '/per rank:/,$p' "$TMP/out" | grep -v '^wrote'
    echo "$wl $lat $round $np $nodes $engine" >>"$TMP/res"
  done
 done
done
done
echo "-- engine seconds per round: 1 rank / 2 ranks / 2 ranks doubled; strong = 1 rank / 2 ranks, weak = doubled / 1 rank;"
echo "   then the same from each run's fastest round (the machine's cores change speed between runs, and a"
echo "   slowed core only ever adds time, so the fastest of several rounds is the least disturbed figure)"
echo "   [h X us]: the handoff bench's collectives before that round's workload. This VM moves between a state"
echo "   near 1 us and one near 3 us within minutes, and the state moves the 1-rank run (docs/scaling.md,"
echo "   \"What one window's synchronisation costs\"); when a set has rounds in both, the medians are also"
echo "   given per state: rounds whose figure is within 1.5x of the set's lowest, and the others"
awk '
  $1 == "h" { h[$2, $3] = $4; next }
  { key = $1 " " $2; t[key, $3, ($4 == 1 ? 0 : ($5 == 12500 ? 1 : 2))] = $6; keys[key] = 1; if ($3 > R) R = $3 }
  function median(a, n,   i, j, x) {
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  END {
    n = split("a 1,a 60,b 1,b 60", order, ",")
    for (k = 1; k <= n; k++) {
      key = order[k]; if (!(key in keys)) continue
      split(key, kw, " "); line = ""
      hmin = -1
      for (r = 1; r <= R; r++) if ((kw[1], r) in h && (hmin < 0 || h[kw[1], r] < hmin)) hmin = h[kw[1], r]
      nf = ns = 0
      for (r = 1; r <= R; r++) {
        s[r] = t[key, r, 0] / t[key, r, 1]; w[r] = t[key, r, 2] / t[key, r, 0]
        hs = ""
        if ((kw[1], r) in h) {
          hs = sprintf(" [h %.2f us]", h[kw[1], r])
          if (h[kw[1], r] <= 1.5 * hmin) { nf++; sf[nf] = s[r]; wf[nf] = w[r] } else { ns++; ss[ns] = s[r]; ws[ns] = w[r] }
        }
        line = line sprintf("  %.2f/%.2f/%.2f (%.2fx, %.2fx)%s", t[key, r, 0], t[key, r, 1], t[key, r, 2], s[r], w[r], hs)
      }
      for (c = 0; c < 3; c++) { m[c] = t[key, 1, c]; for (r = 2; r <= R; r++) if (t[key, r, c] < m[c]) m[c] = t[key, r, c] }
      printf "workload %s, L = %s s:%s; median strong %.2fx, weak %.2fx; fastest rounds %.2f/%.2f/%.2f: strong %.2fx, weak %.2fx\n",
             kw[1], kw[2], line, median(s, R), median(w, R), m[0], m[1], m[2], m[0] / m[1], m[2] / m[0]
      if (nf && ns)
        printf "  by state: %d round(s) within 1.5x of the lowest handoff (%.2f us): median strong %.2fx, weak %.2fx; %d other(s): median strong %.2fx, weak %.2fx\n",
               nf, hmin, median(sf, nf), median(wf, nf), ns, median(ss, ns), median(ws, ns)
    }
  }' "$TMP/res"
fi

if want 5; then
# The fast path (every node model off) against an older binary, e.g. one built from f9bf1ce, the
# commit before the emulating mode was merged: the FIFO cases of bench/suite.sh, the two binaries
# back to back (the machine's load changes slowly, so each pair sees about the same load), three
# rounds. Engine wall seconds of rank 0 (from /perf) and the process time.
[ -x "$OLD_EMU" ] || { echo "section 5 needs OLD_EMU, the binary to compare with" >&2; exit 2; }
export OMPI_MCA_rmaps_base_oversubscribe=1
echo "== 5. fast path, FIFO cases of bench/suite.sh: old $OLD_EMU vs new $B/dike-emu"
SH=${DIKE_SHARED_DIR:-../shared}/traces
FIFO=("1|-t $SH/RFold/philly_trace.csv --skip-invalid --cluster 256x8"
      "1|-t $SH/TitanSched/philly.csv --cluster 64x8"
      "m1|-t $SH/TitanSched/philly.csv --cluster 64x8"
      "1|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
      "2|--set workload.jobs=1000000 --set cluster.nodes=12500 --set workload.load=0.9"
      "1|--set workload.jobs=10000000 --set cluster.nodes=125000 --set workload.load=0.9")
engine() { $PY -c 'import sys, h5py; print("%.3f" % h5py.File(sys.argv[1])["perf"][0]["wall_seconds"])' "$1"; }
for round in 1 2 3; do
  for c in "${FIFO[@]}"; do
    IFS='|' read -r np opts <<<"$c"
    read -r -a args <<<"$opts"
    line="round $round, ranks $np, ${opts#-t $SH/}:"
    for which in old new; do
      emu=$(readlink -f "$B/dike-emu"); [ $which = old ] && emu=$OLD_EMU
      cmd=("$emu" run -q -p fifo "${args[@]}" --out "$TMP/f.h5")
      case $np in m*) cmd=(mpirun -np "${np#m}" "${cmd[@]}") ;; 1) ;; *) cmd=(mpirun -np "$np" "${cmd[@]}") ;; esac
      /usr/bin/time -f "%e" -o "$TMP/t" "${cmd[@]}" >/dev/null
      line="$line $which engine $(engine "$TMP/f.h5") s (process $(cat "$TMP/t") s),"
    done
    echo "$line load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
fi

if want 6; then
# The emulating mode's window protocol against an older binary (OLD_EMU): workload b of section 4
# at L = 1 s (1 rank; 2 ranks; nodes and jobs doubled on 2 ranks), each run with the old binary
# then the new one, back to back. N and J (environment) scale the case (default 12,500 / 500,000).
[ -x "$OLD_EMU" ] || { echo "section 6 needs OLD_EMU, the binary to compare with" >&2; exit 2; }
echo "== 6. window protocol, workload b at L = 1 s: old $OLD_EMU vs new $B/dike-emu"
MODELS=(--set workload.load=0.9 --set node_model.interference=0.1 --set node_model.network=rack
        --set node_model.slowdown_mtbf_s=86400 --set faults.mtbf_s=864000 --set faults.mttr_s=7200
        --set output.progress_interval_s=0 -p fifo --set workload.duration_max_s=86400
        --set scheduler.decision_latency_s=1)
N=${N:-12500} J=${J:-500000}
for run in "1 $N $J" "2 $N $J" "2 $((2 * N)) $((2 * J))"; do
  read -r np nodes jobs <<<"$run"
  for which in old new; do
    emu=$(readlink -f "$B/dike-emu"); [ $which = old ] && emu=$OLD_EMU
    mpirun --oversubscribe -np "$np" "$emu" run "${MODELS[@]}" --set cluster.nodes=$nodes \
      --set workload.jobs=$jobs -o "$TMP/w.h5" >"$TMP/out"
    echo "$which, ranks $np, $nodes nodes, $jobs jobs:" \
         "$(awk '/engine wall/ {print "engine " $4 " s"} /^ +windows/ {print ", windows " $2}' "$TMP/out" | tr -d '\n')" \
         "(load $(cut -d' ' -f1 /proc/loadavg))"
    sed -n '/per rank:/,$p' "$TMP/out" | grep -v '^wrote'
  done
done
fi

if want 7; then
# The window bound (output.window_bound, docs/scaling.md "What the windows allow"): section 4's
# workload b on ONE rank, single and doubled, at L = 1 s and 60 s. Each run prints what its
# windows would cost on P ranks if communication were free: per window the largest block's
# owner step plus the largest block's home step plus the coordinator. Then, per run, three
# figures that come from one run (so the machine's speed, which changes between runs, cancels):
# the 2-rank bound on the speedup; how much more the largest block's steps cost than a perfect
# half of the node work (per-window imbalance); and the coordinator's share of the 2-rank bound.
echo "== 7. window bound, workload b (section 4's models), one rank"
for lat in 1 60; do
  for run in "12500 500000" "25000 1000000"; do
    read -r nodes jobs <<<"$run"
    "$B/dike-emu" run "${MODELS[@]}" --set workload.duration_max_s=86400 --set output.window_bound=true \
      --set scheduler.decision_latency_s=$lat --set cluster.nodes=$nodes --set workload.jobs=$jobs \
      -o "$TMP/e.h5" >"$TMP/wb"
    echo "latency $lat s, $nodes nodes, $jobs jobs (load $(cut -d' ' -f1 /proc/loadavg)):"
    sed -n '/window bound/,$p' "$TMP/wb" | grep -v '^wrote'
    # rows: ranks blocks owner_s home_s coord_s bound_s speedup heaviest_s rebal_s rebal_x
    awk '$1 ~ /^[0-9]+$/ && NF == 10 { o[$1] = $3; h[$1] = $4; c = $5; b[$1] = $6; x[$1] = $10 }
         END { printf "  2 ranks: speedup bound %.2fx (blocks recut during the run: %.2fx); largest block %.2fx a perfect half; coordinator %.0f%% of the bound\n",
                      b[1] / b[2], x[2], (o[2] + h[2]) / ((o[1] + h[1]) / 2), 100 * c / b[2] }' "$TMP/wb"
  done
done
fi

if want 8; then
# The 1,000,000-GPU prediction (docs/scaling.md, "The 1,000,000-GPU prediction, re-measured"):
# section 7's window bound on ONE rank for workload b scaled to N nodes and J jobs (default
# 125,000 nodes = 1,000,000 GPUs and 5,000,000 jobs; about 1 min at L = 60 s and 4-5 min at
# L = 1 s, 3 GB), then T(P) = bound(P) + W x t_win(P) for each row, with
# t_win(P) = 3 (t0 + alpha log2 P) + P c_hdr: three collectives per window (at this size a gang
# always spans ranks), t0 = 0.3 us, alpha = 2 us and 10 us per tree level, c_hdr = 0.05 us per
# rank and window at rank 0. t0, alpha and c_hdr are assumptions, not measured here.
N=${N:-125000} J=${J:-5000000}
echo "== 8. the 1,000,000-GPU prediction: workload b on $N nodes, $J jobs, one rank, window bound"
for lat in 60 1; do
  /usr/bin/time -f "%e s, %M KB" -o "$TMP/t" "$B/dike-emu" run "${MODELS[@]}" --set workload.duration_max_s=86400 \
    --set output.window_bound=true --set scheduler.decision_latency_s=$lat --set cluster.nodes=$N \
    --set workload.jobs=$J -o "$TMP/e.h5" >"$TMP/wb"
  echo "latency $lat s (process $(cat "$TMP/t"); load $(cut -d' ' -f1 /proc/loadavg)):"
  sed -n '/engine wall/p;/per rank:/,$p' "$TMP/wb" | grep -v '^wrote'
  awk '/window bound/ { for (i = 1; i <= NF; i++) if ($i == "windows,") W = $(i - 1) }
       $1 ~ /^[0-9]+$/ && NF == 10 { n++; P[n] = $1; b[n] = $6; c = $5 }
       END {
         printf "  T(P) = bound + W t_win, W = %d windows; coordinator %.1f s of every row\n", W, c
         printf "  %6s %10s %17s %17s\n", "ranks", "bound_s", "alpha 2 us: s, x", "alpha 10 us: s, x"
         for (k = 1; k <= n; k++) {
           line = sprintf("  %6d %10.1f", P[k], b[k])
           for (a = 2; a <= 10; a += 8) {
             tw = P[k] == 1 ? 0 : 3 * (0.3 + a * log(P[k]) / log(2)) + 0.05 * P[k]
             t = b[k] + W * tw * 1e-6
             line = line sprintf(" %9.1f %5.2fx", t, b[1] / t)
           }
           print line
         }
       }' "$TMP/wb"
done
fi
