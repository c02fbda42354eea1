#!/usr/bin/env bash
# Every held-out draw of docs/dike.md's table, run again: held_out.py for each, then one line per
# draw and the totals. Runs already in OUT are reused (held_out.py's own rule), so a second call
# only prints.
#
#   bash analysis/held_out_draws.sh OUT [DRAW ...] [-- HELD_OUT_ARGS ...]
#
# OUT gets one folder per draw (OUT/dN) and its report (OUT/dN.txt); after the totals,
# analysis/held_out_where.py tallies the full draws' checks by trace, mode, load and cluster
# size. DRAW picks draws by number (default: all of the table). Arguments after `--` go to every
# held_out.py call, e.g. `--emu build/dike-emu`, `--traces ../shared/traces` or
# `--baselines gandiva-fair` (check a changed baseline without running the other six again), or
# `--knob-only --dike-set dike.late_pass=true` (an option of Dike on every draw, into a new OUT).
# Measured on 2 cores on 2026-12-07: draw 29 in full took under 5 minutes (30 points), so all
# draws would take about 2 hours; draws 1-25 with `--baselines gandiva-fair` took 30 minutes, and
# their other six baselines 36 minutes more (docs/dike-checks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 || $1 == -* ]]; then
  echo "usage: bash analysis/held_out_draws.sh OUT [DRAW ...] [-- HELD_OUT_ARGS ...]" >&2
  exit 2
fi
OUT=$1
shift
PICK=()
while [[ $# -gt 0 && $1 != -- ]]; do
  PICK+=("$1")
  shift
done
[[ $# -gt 0 ]] && shift
EXTRA=("$@")

# draw | held_out.py's arguments (docs/dike.md, "Where it stands": the table's second column)
DRAWS=(
  "1|--sample 30 --seed 1"
  "2|--sample 30 --seed 2"
  "3|--sample 30 --seed 3"
  "4|--sample 30 --seed 4"
  "6|--sample 30 --seed 6"
  "7|--sample 30 --seed 7"
  "8|--sample 30 --seed 8"
  "9|--sample 30 --seed 9 --loads 0.4:1.8 --nodes 12:256"
  "10|--sample 20 --seed 10 --loads 1.3:2.5 --nodes 20:48"
  "11|--sample 20 --seed 11 --loads 0.5:1.6 --nodes 16:200"
  "12|--sample 30 --seed 12"
  "13|--sample 30 --seed 13"
  "14|--sample 30 --seed 14"
  "15|--sample 30 --seed 15 --loads 0.3:3.0 --nodes 4:24"
  "16|--sample 30 --seed 16 --nodes 8:24"
  "17|--sample 20 --seed 17 --nodes 256:512"
  "18|--sample 30 --seed 18 --loads 1.3:2.2 --nodes 48:128"
  "19|--sample 20 --seed 19 --loads 1.3:2.2 --nodes 128:384"
  "20|--sample 30 --seed 20 --loads 0.8:1.2 --nodes 32:96"
  "21|--sample 4 --seed 21 --modes oracle,noisy"
  "22|--sample 8 --seed 22"
  "23|--sample 30 --seed 23"
  "24|--sample 30 --seed 24 --loads 0.5:1.5 --nodes 128:320"
  "25|--sample 10 --seed 25"
  "26|--sample 12 --seed 26"
  "27|--sample 30 --seed 27"
  "28|--sample 30 --seed 28"
  "29|--sample 30 --seed 29"
  "30|--sample 30 --seed 30"
  "31|--sample 30 --seed 31 --loads 1.0:1.6 --nodes 24:64"
  "32|--sample 30 --seed 32"
  "33|--sample 30 --seed 33"
  "34|--sample 30 --seed 34"
  "35|--sample 30 --seed 35"
  "36|--sample 30 --seed 36"
  "37|--sample 30 --seed 37"
  "38|--sample 30 --seed 38"
  "39|--sample 30 --seed 39"
  "40|--sample 30 --seed 40"
  "41|--sample 30 --seed 41"
  "42|--sample 30 --seed 42"
  "43|--sample 30 --seed 43 --loads 0.8:1.2 --nodes 128:256"
  "44|--sample 30 --seed 44 --loads 0.3:0.7"
  "45|--sample 30 --seed 45"
)
for p in "${PICK[@]}"; do
  found=0
  for x in "${DRAWS[@]}"; do [[ ${x%%|*} == "$p" ]] && found=1; done
  if [[ $found == 0 ]]; then
    echo "held_out_draws: no draw $p in the table (draws: ${DRAWS[*]%%|*})" >&2
    exit 2
  fi
done

mkdir -p "$OUT"
checks=0 dom=0 knob=0 bad=0
full=()
for x in "${DRAWS[@]}"; do
  n=${x%%|*}
  args=${x#*|}
  if [[ ${#PICK[@]} -gt 0 && " ${PICK[*]} " != *" $n "* ]]; then
    continue
  fi
  modes=(--modes oracle,noisy,none)
  [[ $args == *--modes* ]] && modes=()
  # shellcheck disable=SC2086 # the table's arguments are words
  if ! /usr/bin/python3 analysis/held_out.py $args "${modes[@]}" "${EXTRA[@]}" --out "$OUT/d$n" \
      >"$OUT/d$n.txt" 2>&1; then
    echo "draw $n: held_out.py failed; its report: $OUT/d$n.txt" >&2
    tail -3 "$OUT/d$n.txt" >&2
    bad=$((bad + 1))
    continue
  fi
  if ! line=$(grep -E '^[0-9]+ points x [0-9]+ modes:' "$OUT/d$n.txt"); then
    # --knob-only, --noise-seeds and --perturb print other summaries: shown, not added up
    echo "draw $n ($args): $(grep -E '^[0-9]+ points' "$OUT/d$n.txt" | head -1)"
    continue
  fi
  # "30 points x 3 modes: dominated 0, knob 9, over 2 preemptions/job 0; ..."
  read -r np nm d k <<<"$(sed -E 's/^([0-9]+) points x ([0-9]+) modes: dominated ([0-9]+), knob ([0-9]+),.*/\1 \2 \3 \4/' <<<"$line")"
  checks=$((checks + np * nm))
  dom=$((dom + d))
  knob=$((knob + k))
  full+=("$OUT/d$n.txt")
  echo "draw $n ($args): $line"
done
if [[ $checks -gt 0 ]]; then
  echo "all: $checks checks, dominated $dom, knob fails $knob"
  # where the knob fails: by trace, mode, load and cluster size (docs/dike.md, "Where it stands")
  /usr/bin/python3 analysis/held_out_where.py "${full[@]}"
fi
[[ $bad == 0 ]]
