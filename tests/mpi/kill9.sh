#!/bin/bash
# kill -9 of a rank (issue 17, item 6; docs/reliability.md "Output files"): a run whose rank 0 is
# killed with SIGKILL while it writes a checkpoint leaves its `<checkpoint>.tmp-HOST-PID` file
# (nothing can remove it then) and no file at the final name; the next run to the same path on
# this host removes it with one line, and completes. The kill is aimed: the temporary file's name
# gives rank 0's pid, so the test waits until one exists and kills that process.
#
#   kill9.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_kill9
cd "$T"
ARGS=(run -q --set workload.jobs=20000 --set cluster.nodes=500 --checkpoint-every 2000
      --checkpoint c.ckpt --out o.h5)

# The kill races the checkpoint's rename: if the rename wins (the temporary file is gone when the
# kill lands), the write was not hit; try again, up to five runs, before skipping.
caught=""
for attempt in 1 2 3 4 5; do
    rm -f c.ckpt c.ckpt.tmp-* o.h5
    emu_mpi 2 "${ARGS[@]}" >run.log 2>&1 &
    job=$!
    found=""
    start=$(date +%s)
    while [ -z "$found" ] && [ $(( $(date +%s) - start )) -lt 60 ] && kill -0 "$job" 2>/dev/null; do
        for f in c.ckpt.tmp-*; do [ -e "$f" ] && found=$f; done
    done
    if [ -z "$found" ]; then
        wait "$job" || true
        continue
    fi
    kill -9 "${found##*-}" 2>/dev/null || true
    rc=0
    wait "$job" || rc=$?
    if [ -e "$found" ]; then
        caught=$found
        break
    fi
    echo "attempt $attempt: the rename of $found beat the kill; again"
done
if [ -z "$caught" ]; then
    echo "SKIP: no checkpoint write was caught by kill -9 in five runs (the run was too fast)"
    exit 77
fi
found=$caught
[ "$rc" != 0 ] || fail "the job ended with status 0 after kill -9 of rank 0"
[ ! -e o.h5 ] || fail "an output file exists after kill -9"
ok "kill -9 of rank 0 while writing a checkpoint: status $rc, $found left, no output"

emu_mpi 2 "${ARGS[@]}" --set run.checkpoint_every_s=0 >run2.log 2>err2.log || { show_file stderr err2.log; fail "the next run"; }
show_file stderr err2.log
[ ! -e "$found" ] || fail "the next run kept the stale $found"
grep -q "^dike-emu: removed .*$found" err2.log || fail "no message for the removal of $found"
[ -f o.h5 ] || fail "the next run wrote no output"
ok "the next run removed $found (one line) and completed"
