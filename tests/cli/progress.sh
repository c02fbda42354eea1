#!/bin/bash
# Progress on stderr: with stderr not a terminal, one plain line every output.progress_interval_s
# wall seconds, each with simulated time, percent of submissions, jobs finished/total, events/s and
# an ETA, and a last line saying done; --quiet prints nothing (neither progress nor the table).
#
#   progress.sh DIKE_EMU
set -eu
DIKE_EMU="$1"
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init cli_progress
cd "$T"
RUN=(run --set workload.jobs=300000 --set cluster.nodes=2048 --set workload.load=0.9)

emu "${RUN[@]}" --set output.progress_interval_s=0.01 --out a.h5 >stdout 2>stderr
lines=$(grep -c '^dike-emu: sim [0-9]* s ([0-9]*% of submits), jobs [0-9]*/300000 finished, .* events/s, .* s elapsed, ETA ' stderr || true)
[ "$lines" -ge 2 ] || { show_file stderr stderr; fail "expected >= 2 progress lines, got $lines"; }
ok "$lines progress lines in the documented format"
tail -n 1 stderr | grep -q 'jobs 300000/300000 finished, .* ETA done$' || { show_file stderr stderr; fail "last line is not the final one"; }
ok "the last line reports every job finished"
grep -q $'\r' stderr && fail "carriage returns in a non-terminal log"
ok "plain lines (no carriage returns) when stderr is not a terminal"

emu "${RUN[@]}" --set output.progress_interval_s=0.01 --quiet --out b.h5 >stdout 2>stderr
[ ! -s stderr ] || { show_file stderr stderr; fail "--quiet printed on stderr"; }
[ ! -s stdout ] || { show_file stdout stdout; fail "--quiet printed on stdout"; }
[ -f b.h5 ] || fail "--quiet wrote no output"
ok "--quiet: nothing on stdout or stderr, output written"
