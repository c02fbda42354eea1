#!/bin/bash
# Output paths (issue 17, item 1; docs/reliability.md "Output files"): an --out or --checkpoint
# that is a device, a FIFO or a folder, that is a file the run reads (trace, config, node list,
# the checkpoint being resumed) under any spelling, or that is the other output, is refused with
# status 2, one "dike-emu:" line and nothing written; temporary files of dead runs on this host
# are removed, others are kept.
#
#   outpaths.sh DIKE_EMU
set -eu
DIKE_EMU="$1"
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init cli_outpaths
cd "$T"
printf 'job_id,tenant,submit_time,num_gpus,duration\n0,a,0,1,10\n1,b,5,2,20\n' >t.csv
printf '[workload]\njobs = 5\n' >c.ini
SMALL=(--set workload.jobs=5 --set cluster.nodes=4)

sum() { sha256sum "$1" | cut -d' ' -f1; }
TSUM=$(sum t.csv)
CSUM=$(sum c.ini)

# --- not a regular file
if mknod null c 1 3 2>/dev/null; then
    refused "--out onto a character device" "a character device: refusing" run -q "${SMALL[@]}" --out null
    [ -c null ] || fail "the character device was replaced"
    ok "the character device is still a character device"
    refused "--checkpoint onto a character device" "a character device: refusing" run -q "${SMALL[@]}" \
        --out o.h5 --checkpoint null
    [ -c null ] && [ ! -e o.h5 ] || fail "device replaced or output written"
    ok "device kept, no output"
else
    echo "SKIP: mknod not permitted here (not root); the FIFO and folder cases stand in"
fi
mkfifo fifo
refused "--out onto a FIFO" "a FIFO: refusing" run -q "${SMALL[@]}" --out fifo
[ -p fifo ] || fail "the FIFO was replaced"
ok "the FIFO is still a FIFO"
mkdir dir.h5
refused "--out onto a folder" "a folder: refusing" run -q "${SMALL[@]}" --out dir.h5
[ -d dir.h5 ] || fail "folder gone"

# --- an input under any spelling
refused "--out = the trace" "over the trace" run -q -t t.csv --out t.csv
refused "--out = ./the trace" "over the trace" run -q -t t.csv --out ./t.csv
ln t.csv hard.csv
refused "--out = a hard link of the trace" "over the trace" run -q -t t.csv --out hard.csv
ln -s t.csv sym.csv
refused "--out = a symlink to the trace" "over the trace" run -q -t t.csv --out sym.csv
mkdir tr
cp t.csv tr/part.csv
refused "--out = a file of a trace folder" "over the trace" run -q -t tr --out tr/part.csv
refused "--checkpoint = the trace" "over the trace" run -q -t t.csv --out o.h5 --checkpoint t.csv
refused "--out = the config file" "over the configuration file" run -q -c c.ini --out c.ini
refused "--out = the config file (other spelling)" "over the configuration file" run -q -c ./c.ini --out "$T/c.ini"
[ "$(sum t.csv)" = "$TSUM" ] && [ "$(sum c.ini)" = "$CSUM" ] && [ "$(sum tr/part.csv)" = "$TSUM" ] ||
    fail "an input was changed"
ok "trace, trace folder and config unchanged"

# --- --out equal to --checkpoint, existing or not
refused "--out = --checkpoint (new)" "the same file" run -q "${SMALL[@]}" --out x.h5 --checkpoint x.h5
refused "--out = --checkpoint (other spelling)" "the same file" run -q "${SMALL[@]}" --out x.h5 --checkpoint ./x.h5
[ ! -e x.h5 ] || fail "x.h5 was written"
"$DIKE_EMU" run -q "${SMALL[@]}" --out old.h5
OSUM=$(sum old.h5)
refused "--out = --checkpoint (existing)" "the same file" run -q "${SMALL[@]}" --out old.h5 --checkpoint old.h5
[ "$(sum old.h5)" = "$OSUM" ] || fail "old.h5 changed"
ok "the older output is untouched"

# --- resume: --out must not be the checkpoint being read; --checkpoint may be
rc=0
"$DIKE_EMU" run -q "${SMALL[@]}" --set workload.jobs=200 --set engine.inject_stop_s=2000 --out r.h5 \
    --checkpoint r.ckpt 2>/dev/null || rc=$?
[ "$rc" = 4 ] && [ -f r.ckpt ] || fail "stop with checkpoint: status $rc"
refused "resume --out = the checkpoint" "over the checkpoint being resumed" resume -q r.ckpt --out r.ckpt
"$DIKE_EMU" resume -q r.ckpt --out r.h5 --checkpoint r.ckpt --checkpoint-every 250000 ||
    fail "resume replacing its own checkpoint"
[ -f r.h5 ] || fail "no output after resume"
ok "resume may write periodic checkpoints over the checkpoint it resumed"

# --- regular files are still replaced
"$DIKE_EMU" run -q "${SMALL[@]}" --out old.h5 || fail "replacing a regular output"
ok "an existing regular output is replaced"

# --- temporary files of dead runs
host=$(hostname)
sh -c 'exit 0' &
dead=$!
wait "$dead" || true
kill -0 "$dead" 2>/dev/null && fail "pid $dead still alive"
printf 'stale' >"s.h5.tmp-$host-$dead"
printf 'stale' >"s.h5.ckpt.h5.tmp-$host-$dead"
printf 'other host' >"s.h5.tmp-otherhost.example-$dead"
printf 'live' >"s.h5.tmp-$host-$$"
printf 'not a pid' >"s.h5.tmp-$host-12x"
"$DIKE_EMU" run -q "${SMALL[@]}" --out s.h5 2>err.log || { show_file stderr err.log; fail "run with stale temporaries"; }
show_file stderr err.log
[ ! -e "s.h5.tmp-$host-$dead" ] && [ ! -e "s.h5.ckpt.h5.tmp-$host-$dead" ] || fail "stale temporary files kept"
ok "stale temporary files of a dead pid on this host removed (output and checkpoint)"
[ "$(grep -c "^dike-emu: removed .*no longer exists" err.log)" = 2 ] || fail "not one line per removal"
ok "one line per removal"
[ -e "s.h5.tmp-otherhost.example-$dead" ] && [ -e "s.h5.tmp-$host-$$" ] && [ -e "s.h5.tmp-$host-12x" ] ||
    fail "a temporary file of another host, a live process or an unknown name was removed"
ok "other hosts', live processes' and unparsable temporary files kept"
