#!/usr/bin/env bash
# README command 1: install what is missing, build, run the default experiment on 2 MPI ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
mkdir -p results
# Open MPI refuses root unless told; a 2-rank run on a 1-core machine needs --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --oversubscribe -np 2 build/dike-emu run --config experiments/default.ini "$@"
