#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DDIKE_SANITIZE=ON). Leak detection is off here: Open MPI and libcrypto leave allocations at
# exit that are theirs, not ours; scripts/valgrind.sh checks the emulator itself for leaks.
# Built with -O2 -g (RelWithDebInfo), as the sanitizers' documentation advises for speed. Left to
# scripts/test.sh (docs/testing.md), to keep .ci/run within its 20 minutes on a slow machine:
#   labels slurm, analysis, layering, bench: the Slurm daemons, the Python analysis, the build's
#     link graph and the benchmark scripts; the emulator code they run is run here by other tests;
#   mpi_ckpt_corrupt: byte flips over checkpoints; fuzz_resume (scripts/fuzz.sh) feeds damaged
#     checkpoints to the same reader under ASan + UBSan;
#   mpi_ckpt_periodic: periodic checkpoints for every policy; mpi_checkpoint runs the same code here;
#   cli_output_schema, cli_progress: the file's layout against the docs and the progress lines;
#   mpi_equivalence: rank-count equivalence (79 s here, serial); its code runs here in mpi_window,
#     mpi_checkpoint, mpi_emu_checkpoint and mpi_rack_flows on 1-3 ranks;
#   campaign_ensemble, campaign_crash_resume, campaign_stop_resume, campaign_failed_point: grids
#     run as 2-4-rank ensembles (38 s of the pass's wall time); the campaign code they drive is
#     run here by campaign_cli (bad grids, --list, --status) and campaign_resume (damaged outputs);
#   with DIKE_SANITIZE_PASS=1, the SIGTERM runs of mpi_checkpoint and mpi_emu_checkpoint (their
#     500,000- and 100,000-job runs, 2-3x slower here; the stop path they take is the one
#     engine.inject_stop_s takes in the rest of both tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build-asan -DDIKE_SANITIZE=ON -DDIKE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export DIKE_SANITIZE_PASS=1
ctest --test-dir build-asan -j2 --output-on-failure -LE '^(slurm|analysis|layering|bench)$' \
    -E '^(mpi_ckpt_corrupt|mpi_ckpt_periodic|cli_output_schema|cli_progress|mpi_equivalence|campaign_(ensemble|crash_resume|stop_resume|failed_point))$' "$@"
