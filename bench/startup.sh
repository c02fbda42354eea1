#!/usr/bin/env bash
# What a command costs from the shell, start-up included (docs/performance.md, "Start-up"): the
# wall seconds of short commands as one process started without mpirun, each the median of REPS
# runs; with a second binary, the two alternate run by run, so that both see the same machine.
# Prints one line per command. Asserts nothing.
#   bench/startup.sh [BUILD_DIR] [OTHER_EMU] [REPS]
# BUILD_DIR defaults to build, REPS to 10. The TitanSched row needs ../shared/traces
# (DIKE_SHARED_DIR overrides ../shared) and is left out without it.
set -uo pipefail
cd "$(dirname "$0")/.."
EMU=$(readlink -f "${1:-build}/dike-emu")
OTHER=${2:-}
REPS=${3:-10}
SH=${DIKE_SHARED_DIR:-../shared}/traces
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x "$EMU" ] || { echo "startup: $EMU not built" >&2; exit 2; }
[ -z "$OTHER" ] || [ -x "$OTHER" ] || { echo "startup: $OTHER is not executable" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CASES=(
  "--version|--version"
  "refused configuration|run --set workload.jobs=abc --out $T/out.h5"
  "campaign --list (720 points)|campaign experiments/trace-comparison.ini --list"
  "run, 3,000 synthetic jobs|run --set workload.jobs=3000 --out $T/out.h5 -q"
)
[ -f "$SH/TitanSched/philly.csv" ] &&
  CASES+=("run, fifo, TitanSched Philly, 512 GPUs|run --trace $SH/TitanSched/philly.csv --cluster 64x8 --out $T/out.h5 -q")

# one_run EMU ARGS: the wall seconds of one run (the output file removed first)
one_run()
{
  local emu="$1" t0 t1
  shift
  rm -f "$T/out.h5"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2068 # the case's arguments are split on blanks on purpose
  "$emu" $@ >/dev/null 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); printf "%.3f", NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2 }'; }

echo "# bench/startup.sh: wall seconds, median of $REPS, $(date -u +%FT%TZ)"
if [ -n "$OTHER" ]; then
  printf '%-42s %10s %10s\n' command other this
else
  printf '%-42s %10s\n' command this
fi
for c in "${CASES[@]}"; do
  name=${c%%|*} args=${c#*|}
  : >"$T/a"
  : >"$T/b"
  for _ in $(seq "$REPS"); do
    [ -z "$OTHER" ] || one_run "$OTHER" "$args" >>"$T/b"
    one_run "$EMU" "$args" >>"$T/a"
  done
  if [ -n "$OTHER" ]; then
    printf '%-42s %10s %10s\n' "$name" "$(median <"$T/b")" "$(median <"$T/a")"
  else
    printf '%-42s %10s\n' "$name" "$(median <"$T/a")"
  fi
done
