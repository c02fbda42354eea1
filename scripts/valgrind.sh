#!/usr/bin/env bash
# Valgrind memcheck on small emulations: every policy once (1 rank, node failures on) and a 2-rank
# run with a checkpoint and a resume. Fails on any invalid access, use of uninitialised memory or
# leak definitely lost in our code (Open MPI's own start-up allocations are suppressed by
# tests/valgrind/openmpi.supp and Debian's openmpi-valgrind.supp).
#   scripts/valgrind.sh [BUILD_DIR]       (default build-test, made by scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-test}
[ -x "$B/dike-emu" ] || { cmake -S . -B "$B" >/dev/null && cmake --build "$B" -j"$(nproc)" --target dike-emu; }
command -v valgrind >/dev/null || apt-get -o DPkg::Lock::Timeout=600 install -y -q valgrind
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-x86
SUPP=(--suppressions=tests/valgrind/openmpi.supp)
[ -f /usr/share/openmpi/openmpi-valgrind.supp ] && SUPP+=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "${SUPP[@]}")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W=(--set workload.jobs=300 --set cluster.nodes=8 --set workload.load=1.2 --set faults.mtbf_s=100000 --quiet)
n=0
for p in $("$B/dike-emu" list-policies | awk '/^policies/ { on = 1; next } /^placements/ { on = 0 } on { print $1 }'); do
  "${VG[@]}" "$B/dike-emu" run "${W[@]}" -p "$p" --out "$T/$p.h5"
  echo "valgrind: $p clean"; n=$((n + 1))
done
"${VG[@]}" "$B/dike-emu" run "${W[@]}" -p dike -l topo --set engine.inject_stop_s=20000 --out "$T/s.h5" || [ $? = 4 ]
echo "valgrind: stop with a checkpoint clean"; n=$((n + 1))
mpirun --oversubscribe -np 2 "${VG[@]}" "$B/dike-emu" resume "$T/s.h5.ckpt.h5" --quiet --out "$T/r.h5"
echo "valgrind: 2-rank resume clean"; n=$((n + 1))
echo "$n passed, 0 failed"
