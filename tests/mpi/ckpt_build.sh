#!/bin/bash
# A checkpoint names the builds that ran its emulation and its writer's source digest
# (docs/reliability.md "A checkpoint and the build that wrote it"). Checkpoints "from another
# build" are made by rewriting those attributes and recomputing the checksums
# (tests/lib/ckpt_set_builds.py, needs h5py):
#  1. a run resumed by the build that stopped it: the output's `builds` is its `build`;
#  2. a build of the same sources with another name (a commit that changed only docs) continues
#     it, and `builds` names both;
#  3. a checkpoint of other sources is refused: status 2, one message naming both builds, no output;
#  4. with --allow-other-build (2 ranks) it resumes to the uninterrupted run's output, and `builds`
#     names both, oldest first;
#  5. stopped again and resumed without the flag, the list is carried: this build wrote the second
#     checkpoint;
#  6. a checkpoint of format 7 (before checkpoints named their build) is refused as of unknown
#     sources, and continued with --allow-other-build, its output's builds "unknown,<this build>";
#  7. a checkpoint of format 6 is refused with the formats this build reads.
#
#   ckpt_build.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
SETB="$(cd "$(dirname "$0")/../lib" && pwd)/ckpt_set_builds.py"
dike_tmp_init mpi_ckpt_build
cd "$T"
PY=/usr/bin/python3
if ! "$PY" -c 'import h5py' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 has no h5py (python3-h5py) to rewrite a checkpoint's builds"
    exit 77
fi
attr() { "$PY" -c 'import sys, h5py; v = h5py.File(sys.argv[1], "r").attrs[sys.argv[2]]; print(v if isinstance(v, str) else v.decode())' "$@"; }
W=(--set workload.jobs=600 --set cluster.nodes=16 --set cluster.nodes_per_rack=4 --set workload.load=1.3
   --set workload.tenants=3 -p srtf --quiet)
O=(/jobs /tenants /timeseries /summary /nodes)
OTHER_SRC=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

emu run "${W[@]}" --out full.h5
rc=0
emu run "${W[@]}" --set engine.inject_stop_s=20000 --out part.h5 --checkpoint mine.ckpt 2>/dev/null || rc=$?
[ "$rc" = 4 ] && [ -f mine.ckpt ] || fail "no checkpoint (status $rc)"
me=$(attr full.h5 build)
src=$(attr full.h5 source_sha256)
[ -n "$me" ] || fail "the output has no build attribute"
[[ "$src" =~ ^[0-9a-f]{64}$ ]] || fail "the output's source_sha256 is '$src'"
[ "$(attr mine.ckpt builds)" = "$me" ] && [ "$(attr mine.ckpt source_sha256)" = "$src" ] ||
    fail "the checkpoint's builds '$(attr mine.ckpt builds)', source '$(attr mine.ckpt source_sha256)'"
ok "the checkpoint names this build ($me) and its sources (${src:0:12}...)"

# 1. the same build
emu resume -q mine.ckpt --out same.h5
same_objects full.h5 same.h5 "resumed by the same build" "${O[@]}"
[ "$(attr same.h5 builds)" = "$me" ] && [ "$(attr same.h5 build)" = "$me" ] ||
    fail "same build: builds '$(attr same.h5 builds)', build '$(attr same.h5 build)'"
ok "same build: the output's builds is its build"

# 2. another name, the same sources
"$PY" "$SETB" mine.ckpt renamed.ckpt "v0.0.9-docs"
emu resume -q renamed.ckpt --out renamed.h5
same_objects full.h5 renamed.h5 "a build of the same sources under another name" "${O[@]}"
[ "$(attr renamed.h5 builds)" = "v0.0.9-docs,$me" ] || fail "renamed: builds '$(attr renamed.h5 builds)'"
ok "the same sources under another name continue without the flag; builds 'v0.0.9-docs,$me'"

# 3. other sources
"$PY" "$SETB" mine.ckpt other.ckpt "v0.0.9-old" --source "$OTHER_SRC"
refused -F "a checkpoint of other sources" \
    "other.ckpt: checkpoint written by build v0.0.9-old, of other emulator sources (source_sha256 0123456789ab..., this build $me has ${src:0:12}...)" \
    resume -q other.ckpt --out out.h5

# 4. allowed, on 2 ranks
emu_mpi 2 resume -q other.ckpt --out allowed.h5 --allow-other-build
same_objects full.h5 allowed.h5 "other sources, allowed (2 ranks)" "${O[@]}"
[ "$(attr allowed.h5 builds)" = "v0.0.9-old,$me" ] || fail "allowed: builds '$(attr allowed.h5 builds)'"
[ "$(attr allowed.h5 build)" = "$me" ] && [ "$(attr allowed.h5 source_sha256)" = "$src" ] ||
    fail "allowed: build '$(attr allowed.h5 build)', source '$(attr allowed.h5 source_sha256)'"
ok "allowed: builds 'v0.0.9-old,$me', build and source this binary's"

# 5. stopped again by this build: the list goes on into the next checkpoint and output
rc=0
emu resume -q other.ckpt --allow-other-build --set engine.inject_stop_s=40000 --out again.h5 \
    --checkpoint again.ckpt 2>/dev/null || rc=$?
[ "$rc" = 4 ] && [ -f again.ckpt ] || fail "second stop: status $rc"
[ "$(attr again.ckpt builds)" = "v0.0.9-old,$me" ] && [ "$(attr again.ckpt source_sha256)" = "$src" ] ||
    fail "second checkpoint: builds '$(attr again.ckpt builds)', source '$(attr again.ckpt source_sha256)'"
emu resume -q again.ckpt --out again.h5
same_objects full.h5 again.h5 "two stops, two builds" "${O[@]}"
[ "$(attr again.h5 builds)" = "v0.0.9-old,$me" ] || fail "after two stops: builds '$(attr again.h5 builds)'"
ok "the second checkpoint, written by this build, resumes without the flag; builds carried"

# 6. format 7: no build named
"$PY" "$SETB" mine.ckpt f7.ckpt "" --format 7
"$PY" -c 'import sys, h5py; a = h5py.File(sys.argv[1], "r").attrs; sys.exit("builds" in a or "source_sha256" in a)' f7.ckpt ||
    fail "the format 7 checkpoint still has builds or source_sha256"
refused -F "a checkpoint of format 7" "f7.ckpt: checkpoint of format 7, which does not name the build and emulator sources that wrote it; this is build $me" \
    resume -q f7.ckpt --out out.h5
emu resume -q f7.ckpt --out f7.h5 --allow-other-build
same_objects full.h5 f7.h5 "format 7, allowed" "${O[@]}"
[ "$(attr f7.h5 builds)" = "unknown,$me" ] || fail "format 7, allowed: builds '$(attr f7.h5 builds)'"
ok "format 7, allowed: the uninterrupted run's outputs, builds 'unknown,$me'"

# 7. format 6
"$PY" "$SETB" mine.ckpt f6.ckpt "" --format 6
refused -F "a checkpoint of format 6" "f6.ckpt: a dike-emu checkpoint of format 6; this build reads formats 7 and 8" \
    resume -q f6.ckpt --out out.h5
