#!/bin/bash
# Bounded values and special input files (issue 17, item 4; docs/reliability.md "Bounded values"):
# every case below was accepted before and produced garbage, exhausted memory, never ended or read
# without end; each is now refused at start-up with status 2, one "dike-emu:" line naming the key
# (or the file and line), and no output file, well within the timeout.
#
#   bounds.sh DIKE_EMU
set -eu
DIKE_EMU="$1"
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init cli_bounds
cd "$T"

# refused WHAT PATTERN ARGS...: `dike-emu run -q ARGS --out out.h5` is refused within 60 s.
refused()
{
    local what="$1" pat="$2" rc=0
    shift 2
    timeout 60 "$DIKE_EMU" run -q "$@" --out out.h5 </dev/null >out.log 2>err.log || rc=$?
    [ "$rc" = 2 ] || { show_file stderr err.log; fail "$what: status $rc, expected 2 (124 = timed out)"; }
    [ "$(wc -l <err.log)" = 1 ] && [ "$(grep -c '^dike-emu:' err.log)" = 1 ] ||
        { show_file stderr err.log; fail "$what: not exactly one message line"; }
    grep -q -- "$pat" err.log || { show_file stderr err.log; fail "$what: message does not match '$pat'"; }
    ls out.h5* >/dev/null 2>&1 && fail "$what: an output file was left"
    ok "$what: $(cat err.log)"
}

refused "workload.load=1e-20 (submit times overflow)" "^dike-emu: \[workload\] load: 1e-20 .* beyond the 1e12 s limit" \
    --set workload.load=1e-20 --set workload.jobs=50
printf 'job_id,tenant,submit_time,num_gpus,duration\n0,a,0,1,10\n1,a,1e12,1,10\n' >far.csv
refused "a submit at 1e12 s (/timeseries samples)" "^dike-emu: \[output\] timeseries_interval_s: .* GiB" -t far.csv
refused "output.timeseries_interval_s=1e-6" "^dike-emu: \[output\] timeseries_interval_s: 1e-06 s .* GiB" \
    --set output.timeseries_interval_s=1e-6
refused "cluster.nodes=4000000000" "\[cluster\] nodes: must be in \[1, 4194304\]" --set cluster.nodes=4000000000
refused "faults.mtbf_s=1e-6" "^dike-emu: \[faults\] mtbf_s: 1e-06 s .* failures" --set faults.mtbf_s=1e-6
refused "faults.mtbf_s=0.5" "^dike-emu: \[faults\] mtbf_s: 0.5 s .* at least 1 s" --set faults.mtbf_s=0.5
refused "run.checkpoint_every_s=1e-6" "^dike-emu: \[run\] checkpoint_every_s: 1e-06 s .* checkpoints" \
    --set run.checkpoint_every_s=1e-6
refused "-t /dev/zero" "^dike-emu: /dev/zero: the trace is a character device" -t /dev/zero
refused "-c /dev/zero" "^dike-emu: /dev/zero: the configuration file is a character device" -c /dev/zero
mkfifo fifo.csv
# a trace FIFO is read once as a stream; with no writer it ends after DIKE_STREAM_WAIT_S (60 s)
DIKE_STREAM_WAIT_S=2 refused "-t FIFO without a writer (must not block)" \
    "^dike-emu: fifo.csv: no data within 2 s (a FIFO nobody writes to?)" -t fifo.csv
refused "-c FIFO without a writer (must not block)" "^dike-emu: fifo.csv: the configuration file is a FIFO" -c fifo.csv
head -c 3000000 /dev/zero >nolineend.csv
refused "3 MB without a line end" "^dike-emu: nolineend.csv:1: line longer than 1048576 bytes" -t nolineend.csv
{ printf 'job_id,tenant,submit_time,num_gpus,duration\n0,a,0,1,'; head -c 2000000 /dev/zero | tr '\0' 9; echo; } >long.csv
refused "a 2 MB trace line" "^dike-emu: long.csv:2: line longer than 1048576 bytes" -t long.csv

# The bounds do not refuse ordinary runs.
"$DIKE_EMU" run -q --set workload.jobs=200 --set faults.mtbf_s=100000 --set run.checkpoint_every_s=3600 \
    --out ok.h5 || fail "an ordinary run with failures and periodic checkpoints"
ok "an ordinary run with failures and periodic checkpoints is accepted"
