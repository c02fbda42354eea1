#!/bin/bash
# Hostile input: every case is either one clear error (status 2, one "dike-emu:" line naming the
# file and line, no output file, no crash) or a documented acceptance (docs/reliability.md).
# Big inputs are generated here; fuzzer finds are kept in tests/data/hostile/ and all replayed.
#
#   hostile.sh DIKE_EMU FIXTURE_DIR
set -eu
DIKE_EMU="$1"
FIX="$2"
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init cli_hostile
cd "$T"
H="job_id,tenant,submit_time,num_gpus,duration"

# expect_error FILE KIND PATTERN: run FILE as a trace (KIND=trace) or config (KIND=config).
expect_error()
{
    if [ "$2" = trace ]; then
        refused "$1" "^dike-emu: $3" run -q -t "$1" --out out.h5
    else
        refused "$1" "^dike-emu: $3" run -q -c "$1" --set workload.jobs=10 --out out.h5
    fi
}

expect_ok()
{
    local f="$1" kind="$2" rc=0
    if [ "$kind" = trace ]; then
        "$DIKE_EMU" run -q -t "$f" --out ok.h5 2>err || rc=$?
    else
        "$DIKE_EMU" run -q -c "$f" --set workload.jobs=10 --out ok.h5 2>err || rc=$?
    fi
    [ "$rc" = 0 ] && [ -f ok.h5 ] || { show_file stderr err; fail "$f: status $rc, expected an accepted run"; }
    rm -f ok.h5
    ok "$f: accepted (documented)"
}

printf '%s\n0,a,0,1,10\n1,a\000b,5,1,10\n' "$H" >nul.csv
expect_error nul.csv trace "nul.csv:3: contains a NUL byte"
{ echo "$H"; printf '0,a,0,1,'; head -c 10000000 /dev/zero | tr '\0' '9'; echo; } >longline.csv
expect_error longline.csv trace "longline.csv:2: line longer than 1048576 bytes"
printf '%s\n0,a,1e308,1,10\n' "$H" >hugetime.csv
expect_error hugetime.csv trace "hugetime.csv:2: field 'submit_time': above"
printf '%s\n0,a,0,99999999999999999999999,10\n' "$H" >hugegpus.csv
expect_error hugegpus.csv trace "hugegpus.csv:2: field 'num_gpus': integer out of range"
printf '%s\n99999999999999999999999,a,0,1,10\n' "$H" >hugeid.csv
expect_error hugeid.csv trace "hugeid.csv:2: field 'job_id': integer out of range"
printf '%s\n0,a,nan,1,10\n' "$H" >nan.csv
expect_error nan.csv trace "nan.csv:2: field 'submit_time': not a finite number"
printf '%s\n0,a,0,1,-inf\n' "$H" >inf.csv
expect_error inf.csv trace "inf.csv:2: field 'duration': not a finite number"
printf '%s\n0,a,0x10,1,10\n' "$H" >hex.csv
expect_error hex.csv trace "hex.csv:2: field 'submit_time': not a number"
: >empty.csv
expect_error empty.csv trace "empty.csv: empty trace"
printf '%s\n' "$H" >headeronly.csv
expect_error headeronly.csv trace "headeronly.csv: no jobs"
head -c 4096 /dev/urandom >random.csv
rc=0; "$DIKE_EMU" run -q -t random.csv --out out.h5 2>err || rc=$?
[ "$rc" = 2 ] && [ "$(grep -c '^dike-emu:' err)" = 1 ] || { show_file stderr err; fail "random bytes: status $rc"; }
ok "random.csv (4 KiB of random bytes): status 2, one message"
printf '%s\r\n0,a,0,1,10\r\n' "$H" >crlf.csv
expect_ok crlf.csv trace
printf '\357\273\277%s\n0,a,0,1,10\n' "$H" >bom.csv
expect_ok bom.csv trace

printf '[cluster]\nnodes = 4\000\n' >nul.ini
expect_error nul.ini config "nul.ini:2: contains a NUL byte"
{ printf '[cluster]\nnodes = '; head -c 10000000 /dev/zero | tr '\0' '9'; echo; } >longline.ini
expect_error longline.ini config "longline.ini:2: \[cluster\] nodes: integer out of range"
printf '[cluster]\nnodes = 1e400\n' >huge.ini
expect_error huge.ini config "huge.ini:2: \[cluster\] nodes: not an integer"
printf '[cluster]\nlocality_rack = nan\n' >nan.ini
expect_error nan.ini config "nan.ini:2: \[cluster\] locality_rack: not a finite number"
printf '[cluster\nnodes=4\n' >unclosed.ini
expect_error unclosed.ini config "unclosed.ini:1: syntax error"
printf '[cluster]\r\nnodes = 4\r\n' >crlf.ini
expect_ok crlf.ini config
printf '\357\273\277[cluster]\nnodes = 4\n' >bom.ini
expect_ok bom.ini config
: >empty.ini
expect_ok empty.ini config

# CR-only line ends (issue 17, item 6): refused with file:line, never read as one line.
printf '[cluster]\rnodes = 4\r' >cronly.ini
expect_error cronly.ini config "cronly.ini:1: a carriage return inside the line"

# The trace from standard input, a pipe, /dev/stdin or a FIFO: read once, same jobs as the file.
printf '%s\n0,a,0,1,10\n1,b,5,2,20\n' "$H" >small.csv
"$DIKE_EMU" run -q -t small.csv --out file.h5 || fail "small.csv"
"$DIKE_EMU" run -q -t - --out stdin.h5 <small.csv || fail "-t - (redirect)"
cat small.csv | "$DIKE_EMU" run -q -t - --out pipe.h5 || fail "-t - (pipe)"
cat small.csv | "$DIKE_EMU" run -q -t /dev/stdin --out devstdin.h5 || fail "-t /dev/stdin (pipe)"
"$DIKE_EMU" run -q -t <(cat small.csv) --out procsub.h5 || fail "-t <(cat small.csv)"
mkfifo fifo.csv
{ cat small.csv >fifo.csv; } &
"$DIKE_EMU" run -q -t fifo.csv --out fifo.h5 || fail "-t FIFO with a writer"
wait
for f in stdin pipe devstdin procsub fifo; do
    h5_same file.h5 "$f.h5" /jobs || fail "$f: /jobs differs from the file's"
    [ "$(h5dump -a /trace_sha256 -y "$f.h5" | grep -o '"[0-9a-f]*"')" = \
      "$(h5dump -a /trace_sha256 -y file.h5 | grep -o '"[0-9a-f]*"')" ] || fail "$f: trace_sha256 differs"
done
rm -f ./*.h5
ok "trace from -, a pipe, /dev/stdin, <(...) and a FIFO: read once, same /jobs and checksum as the file"
rm -f fifo.csv; mkfifo fifo.csv
start=$(date +%s)
DIKE_STREAM_WAIT_S=2 refused "FIFO without a writer" "^dike-emu: fifo.csv: no data within 2 s" \
    run -q -t fifo.csv --out out.h5
[ $(( $(date +%s) - start )) -lt 30 ] || fail "FIFO without a writer: waited too long"
refused "empty stdin" "^dike-emu: -: empty trace" run -q -t - --out out.h5 </dev/null
refused "stdin twice" "^dike-emu: \[workload\] trace: '-' (standard input) given twice" \
    run -q -t -,- --out out.h5 <small.csv
refused "-t ''" "^dike-emu: --trace: empty file name" run -q -t "" --out out.h5
refused "-t /dev/zero" "^dike-emu: /dev/zero: the trace is a character device" run -q -t /dev/zero --out out.h5

# Trace folders: *.csv entries that are not readable regular files are refused, naming them.
mkdir -p tf; cp small.csv tf/a.csv
ln -s nowhere.csv tf/dangling.csv
refused "dangling symlink in a trace folder" "^dike-emu: tf/dangling.csv: .*No such file" run -q -t tf --out out.h5
rm tf/dangling.csv; ln -s loop.csv tf/loop.csv
refused "symlink loop in a trace folder" "^dike-emu: tf/loop.csv: .*Too many levels of symbolic links" \
    run -q -t tf --out out.h5
rm tf/loop.csv; mkdir tf/sub.csv
refused "folder named *.csv in a trace folder" "^dike-emu: tf/sub.csv: a folder named \*.csv" run -q -t tf --out out.h5
rmdir tf/sub.csv

# Control characters in echoed input are escaped; cross-field errors name file:line; bounds say why.
refused "escape in a value" "^dike-emu: --policy 'x?\[31m': \[scheduler\] policy: contains a control character (got 'x?\[31m')" \
    run -q -p "$(printf 'x\033[31m')" --out out.h5
refused "escape in a trace name" "^dike-emu: --trace 'a?b': \[workload\] trace: contains a control character" \
    run -q -t "$(printf 'a\001b')" --out out.h5
rc=0; "$DIKE_EMU" "$(printf 'x\033[2J')" 2>err || rc=$?
[ "$rc" = 2 ] && grep -q "^dike-emu: unknown command 'x?\[2J'" err || { show_file stderr err; fail "escape in a command name"; }
ok "escape in a command name: status 2, shown as '?'"
printf '[cluster]\nnodes = 4\ngpu_types = a:3\n' >cross.ini
refused "cross-field error in a file" "^dike-emu: cross.ini:3: \[cluster\] gpu_types: node counts sum to 3, cluster.nodes is 4 (cluster.nodes set at cross.ini:2)" \
    run -q -c cross.ini --out out.h5
refused "cross-field error, one key from --set" "^dike-emu: cross.ini:3: \[cluster\] gpu_types: node counts sum to 3, cluster.nodes is 5\$" \
    run -q -c cross.ini --set cluster.nodes=5 --out out.h5
printf '[workload]\nfirst_job = 10\n' >cross2.ini
refused "cross-field error, second key in a file" "^dike-emu: \[workload\] last_job: 5 is before workload.first_job 10 (-1 = the last job) (workload.first_job set at cross2.ini:2)" \
    run -q -c cross2.ini --set workload.last_job=5 --out out.h5
refused "round_s below the time step" "^dike-emu: --set 'scheduler.round_s=1e-9': \[scheduler\] round_s: must be in \[1e-06, 1000000000\] (the emulator counts time in whole microseconds)" \
    run -q --set scheduler.round_s=1e-9 --out out.h5

# A fatal internal error (dike_fatal, here injected) exits 3, as the README's exit codes say.
rc=0
"$DIKE_EMU" run -q --set workload.jobs=50 --set engine.inject_fatal_rank=0 --out out.h5 2>err || rc=$?
[ "$rc" = 3 ] || { show_file stderr err; fail "fatal error: status $rc, expected 3"; }
grep -q '^dike-emu: fatal error on rank 0 at .*injected failure' err || { show_file stderr err; fail "fatal error: no message"; }
[ ! -e out.h5 ] || fail "fatal error: an output file was left"
ok "fatal internal error: status 3, one message with rank and source location"

# Fuzzer finds and other kept fixtures: trace-*.bin are traces, config-*.bin configs.
shopt -s nullglob
for f in "$FIX"/trace-* "$FIX"/config-*; do
    kind=trace
    case "$(basename "$f")" in config-*) kind=config ;; esac
    rc=0
    if [ "$kind" = trace ]; then
        timeout 120 "$DIKE_EMU" run -q -t "$f" --set workload.skip_invalid=false --out out.h5 2>err || rc=$?
    else
        timeout 120 "$DIKE_EMU" run -q -c "$f" --set workload.jobs=10 --out out.h5 2>err || rc=$?
    fi
    [ "$rc" = 0 ] || [ "$rc" = 2 ] || { show_file stderr err; fail "$(basename "$f"): status $rc"; }
    rm -f out.h5
    ok "$(basename "$f"): status $rc, no crash"
done
