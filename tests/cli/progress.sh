#!/bin/bash
# Progress on stderr: with stderr not a terminal, one plain line every output.progress_interval_s
# wall seconds, each with a UTC time stamp, simulated time in days and hours, percent of
# submissions, jobs finished/total, events/s and an ETA, and a last line saying done; --quiet and
# --progress=off print nothing; --progress=live rewrites one line; with a terminal (a pseudo
# terminal from script(1)) the default is a live line, also under mpiexec, where stderr is a pipe
# to mpiexec and the line goes to the terminal (/dev/tty). A resumed run's lines go on from the
# checkpoint's simulated time.
#
#   progress.sh DIKE_EMU [MPIEXEC_NP_FLAG MPIEXEC...]
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init cli_progress
cd "$T"
RUN=(run --set workload.jobs=300000 --set cluster.nodes=2048 --set workload.load=0.9)
LINE='^dike-emu: 20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z sim [0-9]* d [0-2][0-9]:[0-5][0-9]:[0-5][0-9] ([0-9]*% of submits), jobs [0-9]*/300000 finished, .* events/s, .* s elapsed, ETA '

emu "${RUN[@]}" --set output.progress_interval_s=0.01 --out a.h5 >stdout 2>stderr
lines=$(grep -c "$LINE" stderr || true)
[ "$lines" -ge 2 ] || { show_file stderr stderr; fail "expected >= 2 progress lines, got $lines"; }
ok "$lines progress lines in the documented format (UTC stamp, sim d hh:mm:ss)"
tail -n 1 stderr | grep -q 'jobs 300000/300000 finished, .* ETA done$' || { show_file stderr stderr; fail "last line is not the final one"; }
ok "the last line reports every job finished"
grep -q $'\r' stderr && fail "carriage returns in a non-terminal log"
ok "plain lines (no carriage returns) when stderr is not a terminal"
grep -q 'ETA [0-9]' stderr || { show_file stderr stderr; fail "no line has a numeric ETA"; }
ok "ETAs are given once a rate is known"

emu "${RUN[@]}" --set output.progress_interval_s=0.01 --quiet --out b.h5 >stdout 2>stderr
[ ! -s stderr ] || { show_file stderr stderr; fail "--quiet printed on stderr"; }
[ ! -s stdout ] || { show_file stdout stdout; fail "--quiet printed on stdout"; }
[ -f b.h5 ] || fail "--quiet wrote no output"
ok "--quiet: nothing on stdout or stderr, output written"

emu "${RUN[@]}" --set output.progress_interval_s=0.01 --progress off --out c.h5 >stdout 2>stderr
[ ! -s stderr ] || { show_file stderr stderr; fail "--progress off printed on stderr"; }
ok "--progress off: nothing on stderr"
# setsid: a new session without a terminal, so /dev/tty cannot be opened
setsid -w "$DIKE_EMU" "${RUN[@]}" --set output.progress_interval_s=0.01 --progress live --out d.h5 >stdout 2>stderr
grep -q $'\rdike-emu: [0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z sim ' stderr || { show_file stderr stderr; fail "--progress live: no rewritten line"; }
ok "--progress live (stderr not a terminal, no /dev/tty): a line rewritten with carriage returns"
rc=0
emu "${RUN[@]}" --progress sometimes --out e.h5 >stdout 2>stderr || rc=$?
[ "$rc" = 2 ] && grep -q "^dike-emu: --progress 'sometimes': expected auto, live, log or off" stderr ||
    { show_file stderr stderr; fail "--progress sometimes: exit $rc"; }
ok "--progress sometimes: exit 2, one clear message"

# A terminal: script(1) gives the command a pseudo terminal and records what reaches it.
if command -v script >/dev/null; then
    FAST=(--set output.progress_interval_s=0.01)
    script -qec "$(printf '%q ' "$DIKE_EMU" "${RUN[@]}" "${FAST[@]}" --out f.h5)" tty1.log >/dev/null </dev/null || true
    grep -q $'\rdike-emu: [0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z sim .*ETA done' tty1.log || { cat -A tty1.log | head; fail "no live line on the terminal"; }
    ok "default with stderr a terminal: a live line"
    cmd="$(printf '%q ' "${DIKE_MPIEXEC[@]}" "$DIKE_NP_FLAG" 2 "$DIKE_EMU" "${RUN[@]}" "${FAST[@]}" --out g.h5)"
    script -qec "$cmd 2>mpi.err" tty2.log >/dev/null </dev/null || true
    [ -f g.h5 ] || { cat tty2.log; fail "the mpiexec run wrote no output"; }
    grep -q $'\rdike-emu: [0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z sim .*ETA done' tty2.log ||
        { cat -A tty2.log | head; fail "no live line on the terminal under mpiexec"; }
    ! grep -q "dike-emu: .* sim " mpi.err || fail "under mpiexec with a terminal, progress also went to stderr"
    ok "under mpiexec -n 2 from a terminal: the live line reaches the terminal (stderr is a pipe there)"
else
    echo "note: script(1) missing; the terminal cases are not checked"
fi

# A resumed run: stopped at simulated 200,000 s (as by SIGTERM), continued with log lines.
rc=0
emu "${RUN[@]}" --progress off --set output.progress_interval_s=0.01 --set engine.inject_stop_s=200000 --out h.h5 >stdout 2>stderr || rc=$?
[ "$rc" = 4 ] && [ -f h.h5.ckpt.h5 ] || { show_file stderr stderr; fail "the stop did not leave a checkpoint (exit $rc)"; }
emu resume h.h5.ckpt.h5 --progress log >stdout 2>stderr
first="$(grep -m1 "$LINE" stderr || true)"
[ -n "$first" ] || { show_file stderr stderr; fail "the resumed run printed no progress line"; }
sim_d="$(sed -n 's/.* sim \([0-9]*\) d \([0-9]*\):.*/\1 \2/p' <<<"$first")"
# 200,000 s = 2 d 07:33:20: the first line of the resumed run is at least there
[ "$(awk '{ print ($1 * 24 + $2 >= 55) }' <<<"$sim_d")" = 1 ] || fail "the resumed run's first line is at sim $sim_d (d h), before the checkpoint"
ok "resumed run: its first line is past the checkpoint (sim $sim_d d h): $first"
