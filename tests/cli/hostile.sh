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
    local f="$1" kind="$2" pat="$3" rc=0
    if [ "$kind" = trace ]; then
        timeout 120 "$DIKE_EMU" run -q -t "$f" --out "out.h5" 2>err || rc=$?
    else
        timeout 120 "$DIKE_EMU" run -q -c "$f" --set workload.jobs=10 --out "out.h5" 2>err || rc=$?
    fi
    [ "$rc" = 2 ] || { show_file stderr err; fail "$f: status $rc, expected 2"; }
    [ "$(grep -c '^dike-emu:' err)" = 1 ] || { show_file stderr err; fail "$f: not exactly one message"; }
    grep -q "^dike-emu: $pat" err || { show_file stderr err; fail "$f: message does not match '$pat'"; }
    ls out.h5* >/dev/null 2>&1 && fail "$f: an output file was left"
    ok "$f: status 2, one message: $(head -c 100 err | head -1)"
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
expect_error longline.ini config "longline.ini:2: line longer than"
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

# expect_msg WHAT PATTERN CMD...: status 2, exactly one message matching PATTERN, no output.
expect_msg()
{
    local what="$1" pat="$2" rc=0
    shift 2
    "$@" 2>err || rc=$?
    [ "$rc" = 2 ] || { show_file stderr err; fail "$what: status $rc, expected 2"; }
    [ "$(grep -c '^dike-emu:' err)" = 1 ] || { show_file stderr err; fail "$what: not exactly one message"; }
    grep -q "^dike-emu: $pat" err || { show_file stderr err; fail "$what: message does not match '$pat'"; }
    ls out.h5* >/dev/null 2>&1 && fail "$what: an output file was left"
    ok "$what: status 2: $(head -c 120 err | head -1)"
}

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
    h5diff -q file.h5 "$f.h5" /jobs /jobs || fail "$f: /jobs differs from the file's"
    [ "$(h5dump -a /trace_sha256 -y "$f.h5" | grep -o '"[0-9a-f]*"')" = \
      "$(h5dump -a /trace_sha256 -y file.h5 | grep -o '"[0-9a-f]*"')" ] || fail "$f: trace_sha256 differs"
done
rm -f ./*.h5
ok "trace from -, a pipe, /dev/stdin, <(...) and a FIFO: read once, same /jobs and checksum as the file"
rm -f fifo.csv; mkfifo fifo.csv
start=$(date +%s)
DIKE_STREAM_WAIT_S=2 expect_msg "FIFO without a writer" "fifo.csv: no data within 2 s" \
    timeout 60 "$DIKE_EMU" run -q -t fifo.csv --out out.h5
[ $(( $(date +%s) - start )) -lt 30 ] || fail "FIFO without a writer: waited too long"
expect_msg "empty stdin" "-: empty trace" "$DIKE_EMU" run -q -t - --out out.h5 </dev/null
expect_msg "stdin twice" "\[workload\] trace: '-' (standard input) given twice" \
    "$DIKE_EMU" run -q -t -,- --out out.h5 <small.csv
expect_msg "-t ''" "--trace: empty file name" "$DIKE_EMU" run -q -t "" --out out.h5
expect_msg "-t /dev/zero" "/dev/zero: the trace is a character device" "$DIKE_EMU" run -q -t /dev/zero --out out.h5

# Trace folders: *.csv entries that are not readable regular files are refused, naming them.
mkdir -p tf; cp small.csv tf/a.csv
ln -s nowhere.csv tf/dangling.csv
expect_msg "dangling symlink in a trace folder" "tf/dangling.csv: .*No such file" "$DIKE_EMU" run -q -t tf --out out.h5
rm tf/dangling.csv; ln -s loop.csv tf/loop.csv
expect_msg "symlink loop in a trace folder" "tf/loop.csv: .*Too many levels of symbolic links" \
    "$DIKE_EMU" run -q -t tf --out out.h5
rm tf/loop.csv; mkdir tf/sub.csv
expect_msg "folder named *.csv in a trace folder" "tf/sub.csv: a folder named \*.csv" "$DIKE_EMU" run -q -t tf --out out.h5
rmdir tf/sub.csv

# Control characters in echoed input are escaped; cross-field errors name file:line; bounds say why.
expect_msg "escape in a value" "--policy 'x?\[31m': \[scheduler\] policy: contains a control character (got 'x?\[31m')" \
    "$DIKE_EMU" run -q -p "$(printf 'x\033[31m')" --out out.h5
expect_msg "escape in a trace name" "--trace 'a?b': \[workload\] trace: contains a control character" \
    "$DIKE_EMU" run -q -t "$(printf 'a\001b')" --out out.h5
rc=0; "$DIKE_EMU" "$(printf 'x\033[2J')" 2>err || rc=$?
[ "$rc" = 2 ] && grep -q "^dike-emu: unknown command 'x?\[2J'" err || { show_file stderr err; fail "escape in a command name"; }
ok "escape in a command name: status 2, shown as '?'"
printf '[cluster]\nnodes = 4\ngpu_types = a:3\n' >cross.ini
expect_msg "cross-field error in a file" "cross.ini:3: \[cluster\] gpu_types: node counts sum to 3, cluster.nodes is 4 (cluster.nodes set at cross.ini:2)" \
    "$DIKE_EMU" run -q -c cross.ini --out out.h5
expect_msg "cross-field error, one key from --set" "cross.ini:3: \[cluster\] gpu_types: node counts sum to 3, cluster.nodes is 5\$" \
    "$DIKE_EMU" run -q -c cross.ini --set cluster.nodes=5 --out out.h5
printf '[workload]\nfirst_job = 10\n' >cross2.ini
expect_msg "cross-field error, second key in a file" "\[workload\] last_job: 5 is before workload.first_job 10 (-1 = the last job) (workload.first_job set at cross2.ini:2)" \
    "$DIKE_EMU" run -q -c cross2.ini --set workload.last_job=5 --out out.h5
expect_msg "round_s below the time step" "--set 'scheduler.round_s=1e-9': \[scheduler\] round_s: must be in \[1e-06, 1000000000\] (the emulator counts time in whole microseconds)" \
    "$DIKE_EMU" run -q --set scheduler.round_s=1e-9 --out out.h5

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
