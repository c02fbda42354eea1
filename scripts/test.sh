#!/usr/bin/env bash
# README command 2: install what is missing, build with warnings as errors, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build-test -DDIKE_WERROR=ON >/dev/null
cmake --build build-test -j"$(nproc)"
ctest --test-dir build-test -j2 --output-on-failure "$@"
