#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DDIKE_SANITIZE=ON). Leak detection is off here: Open MPI and libcrypto leave allocations at
# exit that are theirs, not ours; scripts/valgrind.sh checks the emulator itself for leaks.
# Built with -O2 -g (RelWithDebInfo), as the sanitizers' documentation advises for speed. The
# tests labelled slurm, analysis and layering are left to scripts/test.sh: they exercise the Slurm
# daemons, the Python analysis and the build's link graph, and the emulator code they run is run
# here by the other tests (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build-asan -DDIKE_SANITIZE=ON -DDIKE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan -j2 --output-on-failure -LE '^(slurm|analysis|layering)$' "$@"
