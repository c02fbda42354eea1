#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DDIKE_SANITIZE=ON). Leak detection is off here: Open MPI and libcrypto leave allocations at
# exit that are theirs, not ours; scripts/valgrind.sh checks the emulator itself for leaks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build-asan -DDIKE_SANITIZE=ON -DDIKE_WERROR=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan -j2 --output-on-failure "$@"
