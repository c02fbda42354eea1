#!/usr/bin/env bash
# Fuzz the trace readers, the config parser, the --set surface and resume from damaged checkpoints
# with libFuzzer for a bounded time each (docs/reliability.md "Hostile input").
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 120 s, every target)
# CI runs `scripts/fuzz.sh 12` (.ci/run). clang and libclang-rt-14-dev come from scripts/deps.sh.
# Seeds: tests/data (traces, configs), generated --set lines, and an empty edit list for
# fuzz_resume (its seed checkpoint is written by the harness). Crashing inputs are kept in
# fuzz/crashes/<target>/ and the script fails; copy each into tests/data/hostile/ as a
# regression fixture (tests/cli/hostile.sh runs them all in CI) and fix the bug.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-120}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_trace fuzz_config fuzz_set fuzz_resume)
bash scripts/deps.sh
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DDIKE_FUZZ=ON -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${TARGETS[@]}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0
status=0
for t in "${TARGETS[@]}"; do
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus" "fuzz/crashes/$t"
  case $t in
    fuzz_trace) for f in tests/data/trace_*.csv; do printf '\x00' | cat - "$f" >"$corpus/$(basename "$f")"; done ;;
    fuzz_config) cp tests/data/config_*.ini "$corpus/" 2>/dev/null || true ;;
    fuzz_set)
      printf 'cluster.nodes=4\ncluster.gpu_types=a:2,b:2\ncluster.gpu_speeds=a:2\n' >"$corpus/types"
      printf 'workload.first_job=5\nworkload.last_job=3\nscheduler.round_s=1e-9\n' >"$corpus/cross"
      printf 'tenants.weights=a:1,b:2\nscheduler.policy=themis\nworkload.end_s=10\n' >"$corpus/tenants" ;;
    fuzz_resume)
      printf '\x01' >"$corpus/no-edits"
      printf '\x01\x00\x10\x00\x00\xff\x01\x20\x00\x00\x01' >"$corpus/two-edits" ;;
  esac
  echo "== $t for $SECS s"
  rc=0
  build-fuzz/fuzz/$t "$corpus" -max_total_time="$SECS" -max_len=65536 -timeout=10 \
    -artifact_prefix="fuzz/crashes/$t/" -print_final_stats=1 >"build-fuzz/$t.log" 2>&1 || rc=$?
  tail -n 6 "build-fuzz/$t.log"
  if [ "$rc" != 0 ]; then
    echo "fuzz.sh: $t failed (status $rc); input kept in fuzz/crashes/$t/, log build-fuzz/$t.log" >&2
    status=1
  fi
done
rm -f /tmp/dike-fuzz-resume-* /tmp/dike-fuzz-trace-*.csv /tmp/dike-fuzz-config-*.ini
exit $status
