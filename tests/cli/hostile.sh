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
