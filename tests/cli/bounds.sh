#!/bin/bash
# Bounded values and special input files (issue 17, item 4; docs/reliability.md "Bounded values"):
# every case below was accepted before and produced garbage, exhausted memory, never ended or read
# without end; each is now refused at start-up with status 2, one "dike-emu:" line naming the key
# (or the file and line), and no output file, well within the timeout (`refused`, testlib.sh).
#
#   bounds.sh DIKE_EMU
set -eu
DIKE_EMU="$1"
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init cli_bounds
cd "$T"

refused "workload.load=1e-20 (submit times overflow)" "^dike-emu: \[workload\] load: 1e-20 .* beyond the 1e12 s limit" run -q --out out.h5 \
    --set workload.load=1e-20 --set workload.jobs=50
printf 'job_id,tenant,submit_time,num_gpus,duration\n0,a,0,1,10\n1,a,1e12,1,10\n' >far.csv
refused "a submit at 1e12 s (/timeseries samples)" "^dike-emu: \[output\] timeseries_interval_s: .* GiB" run -q --out out.h5 -t far.csv
refused "output.timeseries_interval_s=1e-6" "^dike-emu: \[output\] timeseries_interval_s: 1e-06 s .* GiB" run -q --out out.h5 \
    --set output.timeseries_interval_s=1e-6
refused "cluster.nodes=4000000000" "\[cluster\] nodes: must be in \[1, 4194304\]" run -q --out out.h5 --set cluster.nodes=4000000000
refused "faults.mtbf_s=1e-6" "^dike-emu: \[faults\] mtbf_s: 1e-06 s .* failures" run -q --out out.h5 --set faults.mtbf_s=1e-6
refused "faults.mtbf_s=0.5" "^dike-emu: \[faults\] mtbf_s: 0.5 s .* at least 1 s" run -q --out out.h5 --set faults.mtbf_s=0.5
refused "run.checkpoint_every_s=1e-6" "^dike-emu: \[run\] checkpoint_every_s: 1e-06 s .* checkpoints" run -q --out out.h5 \
    --set run.checkpoint_every_s=1e-6
refused "-t /dev/zero" "^dike-emu: /dev/zero: the trace is a character device" run -q --out out.h5 -t /dev/zero
refused "-c /dev/zero" "^dike-emu: /dev/zero: the configuration file is a character device" run -q --out out.h5 -c /dev/zero
mkfifo fifo.csv
# a trace FIFO is read once as a stream; with no writer it ends after DIKE_STREAM_WAIT_S (60 s)
DIKE_STREAM_WAIT_S=2 refused "-t FIFO without a writer (must not block)" \
    "^dike-emu: fifo.csv: no data within 2 s (a FIFO nobody writes to?)" run -q --out out.h5 -t fifo.csv
refused "-c FIFO without a writer (must not block)" "^dike-emu: fifo.csv: the configuration file is a FIFO" run -q --out out.h5 -c fifo.csv
head -c 3000000 /dev/zero >nolineend.csv
refused "3 MB without a line end" "^dike-emu: nolineend.csv:1: line longer than 1048576 bytes" run -q --out out.h5 -t nolineend.csv
{ printf 'job_id,tenant,submit_time,num_gpus,duration\n0,a,0,1,'; head -c 2000000 /dev/zero | tr '\0' 9; echo; } >long.csv
refused "a 2 MB trace line" "^dike-emu: long.csv:2: line longer than 1048576 bytes" run -q --out out.h5 -t long.csv

# The bounds do not refuse ordinary runs.
"$DIKE_EMU" run -q --set workload.jobs=200 --set faults.mtbf_s=100000 --set run.checkpoint_every_s=3600 \
    --out ok.h5 || fail "an ordinary run with failures and periodic checkpoints"
ok "an ordinary run with failures and periodic checkpoints is accepted"
