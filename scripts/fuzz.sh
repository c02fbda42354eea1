#!/usr/bin/env bash
# Fuzz the trace readers and the config parser with libFuzzer for a bounded time.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      (default 120)
# Needs clang and libclang-rt-14-dev (installed here if missing). Seeds: tests/data. Crashing
# inputs are kept in fuzz/crashes/<target>/; copy each into tests/data/hostile/ as a regression
# fixture (tests/cli/hostile.sh runs them all in CI) and fix the bug.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-120}
bash scripts/deps.sh
dpkg-query -W -f='${Status}' clang libclang-rt-14-dev 2>/dev/null | grep -c 'install ok installed' | grep -q 2 ||
  { apt-get -o DPkg::Lock::Timeout=600 install -y -q clang libclang-rt-14-dev; }
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DDIKE_FUZZ=ON -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_trace fuzz_config
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0
for t in fuzz_trace fuzz_config; do
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus" "fuzz/crashes/$t"
  case $t in
    fuzz_trace) for f in tests/data/trace_*.csv; do printf '\x00' | cat - "$f" >"$corpus/$(basename "$f")"; done ;;
    fuzz_config) cp tests/data/config_*.ini "$corpus/" 2>/dev/null || true ;;
  esac
  echo "== $t for $SECS s"
  build-fuzz/fuzz/$t "$corpus" -max_total_time="$SECS" -max_len=65536 -timeout=10 \
    -artifact_prefix="fuzz/crashes/$t/" -print_final_stats=1 2>&1 | tail -n 15
done
