#!/bin/bash
# A full disk (issue 17, item 2; docs/reliability.md "Output files"): on 1 and 2 ranks, a run whose
# output or checkpoint does not fit ends with status 2 and exactly one "dike-emu:" message on one
# line that names the file and gives errno's text — no signal, no crash in MPI_Finalize, and
# nothing left on the full disk (no output, no temporary file). The disk is a small tmpfs mounted
# here, so the test needs root (mount); elsewhere it is skipped (status 77).
#
#   diskfull.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_diskfull
D="$T/disk"
mkdir "$D"
if ! mount -t tmpfs -o size=256k tmpfs "$D" 2>/dev/null; then
    echo "SKIP: cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)"
    exit 77
fi
cleanup() { umount "$D" 2>/dev/null || true; dike_tmp_cleanup; }
trap cleanup EXIT
cd "$T"
ARGS=(-q --set workload.jobs=3000 --set cluster.nodes=64)

# fill BYTES_FREE: leave about BYTES_FREE bytes free on the tmpfs.
fill()
{
    rm -f "$D/ballast"
    local avail
    avail=$(( $(stat -f -c '%a*%S' "$D") ))
    head -c $((avail - $1 > 0 ? avail - $1 : 0)) /dev/zero >"$D/ballast" 2>/dev/null || true
}

# expect_enospc WHAT NP ARGS...: status 2, one single-line message with the errno text, no crash,
# nothing but the ballast on the disk.
expect_enospc()
{
    local what="$1" np="$2" rc=0
    shift 2
    emu_mpi "$np" "$@" >out.log 2>err.log || rc=$?
    show_file stderr err.log
    [ "$rc" = 2 ] || fail "$what ($np ranks): status $rc, expected 2"
    if grep -Eqi 'segmentation|signal|core dumped|sanitizer' err.log out.log; then
        fail "$what ($np ranks): crash reported"
    fi
    [ "$(grep -c '^dike-emu:' err.log)" = 1 ] || fail "$what ($np ranks): not exactly one dike-emu message"
    grep '^dike-emu:' err.log | grep -q 'No space left on device' ||
        fail "$what ($np ranks): the message does not give errno's text"
    # the one message is one line: the line after it is not a continuation of it
    grep -A1 '^dike-emu:' err.log | sed -n 2p | grep -Eq '^(|-+|Primary job.*|mpirun.*)$' ||
        fail "$what ($np ranks): the message continues on a second line"
    [ "$(ls -A "$D")" = ballast ] || { ls -la "$D"; fail "$what ($np ranks): files left on the full disk"; }
    ok "$what ($np ranks): status 2, one line: $(grep '^dike-emu:' err.log | head -c 160)"
}

for np in 1 2; do
    fill 0
    expect_enospc "output, disk full before the run" "$np" run "${ARGS[@]}" --out "$D/o.h5"
    fill 40000
    expect_enospc "output, disk full while writing" "$np" run "${ARGS[@]}" --out "$D/o.h5"
    fill 0
    expect_enospc "checkpoint, disk full" "$np" run "${ARGS[@]}" --set engine.inject_stop_s=20000 \
        --out "$T/o.h5" --checkpoint "$D/c.ckpt"
    [ ! -e "$T/o.h5" ] || fail "an output was written although the checkpoint failed"
done

# A periodic checkpoint that does not fit is a warning (one line each, errno's text) and the run
# goes on to a complete output equal to the run without checkpoints (issue 17, item 5).
emu_mpi 1 run "${ARGS[@]}" --out "$T/ref.h5" || fail "reference run"
for np in 1 2; do
    fill 0
    rm -f "$T/o.h5"
    rc=0
    emu_mpi "$np" run "${ARGS[@]}" --checkpoint-every 20000 --checkpoint "$D/c.ckpt" --out "$T/o.h5" \
        >out.log 2>err.log || rc=$?
    show_file stderr err.log
    [ "$rc" = 0 ] || fail "periodic checkpoint, disk full ($np ranks): status $rc, expected 0"
    n=$(grep -c '^dike-emu: warning: periodic checkpoint not written, the run continues: .*No space left on device' err.log || true)
    [ "$n" -ge 1 ] || fail "periodic checkpoint, disk full ($np ranks): no warning with errno's text"
    [ "$n" = "$(grep -c '^dike-emu:' err.log)" ] || fail "periodic checkpoint ($np ranks): other messages"
    for d in /jobs /tenants /timeseries /summary /nodes; do
        h5_same "$T/ref.h5" "$T/o.h5" "$d" || fail "periodic checkpoint ($np ranks): $d differs"
    done
    [ "$(ls -A "$D")" = ballast ] || { ls -la "$D"; fail "periodic checkpoint ($np ranks): files left"; }
    ok "periodic checkpoint, disk full ($np ranks): status 0, $n warnings, output equals the run without"
done

# With room, the same runs work (the disk, not the writer, was the problem).
rm -f "$D/ballast"
emu_mpi 2 run "${ARGS[@]}" --out "$D/o.h5" || fail "run with room on the disk"
[ -f "$D/o.h5" ] && h5dump -H "$D/o.h5" >/dev/null || fail "output unreadable"
ok "with room on the disk the output is written (2 ranks)"
