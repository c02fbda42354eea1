# Shared helpers of the shell-script tests (tests/cli, tests/mpi/*.sh, tests/golden, tests/campaign,
# tests/analysis, tests/slurm). Source it from a bash script that runs with `set -eu`:
#
#   . "$(dirname "$0")/../lib/testlib.sh"
#   dike_tmp_init my_test            # fresh $T under $DIKE_TEST_TMP, removed on exit
#
# Environment (set by the CMake registration; see docs/testing.md):
#   DIKE_EMU           the dike-emu binary (required by emu/emu_mpi)
#   DIKE_TEST_TMP      parent folder of the per-test temporary folders (under the build tree)
#   DIKE_EMU_WRAPPER   optional command put before dike-emu, e.g. "valgrind -q --error-exitcode=99"
#   DIKE_KEEP_TMP=1    keep the temporary folder (its path is printed) instead of removing it
#   DIKE_SANITIZE_PASS=1  set by scripts/test-sanitize.sh: in_sanitizer_pass is true
#
# Every check prints what it checked; the first failed check prints FAIL and exits 1.

dike_checks=0

# The scripts change folder; a relative binary path given on the command line must survive that.
if [ -n "${DIKE_EMU:-}" ]; then
    DIKE_EMU=$(readlink -f -- "$DIKE_EMU")
fi

# dike_tmp_init NAME: create a fresh temporary folder $T and remove it when the script exits.
dike_tmp_init()
{
    local root="${DIKE_TEST_TMP:-${TMPDIR:-/tmp}}"
    mkdir -p "$root"
    T=$(mktemp -d "$root/$1.XXXXXX")
    trap dike_tmp_cleanup EXIT
    echo "temporary folder: $T"
}

dike_tmp_cleanup()
{
    local rc=$?
    if [ -n "${T:-}" ] && [ -d "$T" ]; then
        if [ "${DIKE_KEEP_TMP:-0}" = 1 ]; then
            echo "kept $T (DIKE_KEEP_TMP=1)"
        else
            rm -rf -- "$T"
        fi
    fi
    if [ "$rc" -eq 0 ]; then
        echo "PASS: $dike_checks checks"
    fi
    exit "$rc"
}

fail()
{
    echo "FAIL: $*" >&2
    exit 1
}

ok()
{
    dike_checks=$((dike_checks + 1))
    echo "ok: $*"
}

# check DESCRIPTION COMMAND...: run COMMAND; it must succeed.
check()
{
    local what="$1"
    shift
    if "$@"; then ok "$what"; else fail "$what"; fi
}

# show_file LABEL FILE: print a captured output, indented, for the log.
show_file()
{
    echo "--- $1:"
    sed 's/^/    | /' "$2"
}

# emu ARGS...: run dike-emu as one process (no mpiexec), behind $DIKE_EMU_WRAPPER if set.
emu()
{
    # shellcheck disable=SC2086 # the wrapper is a command line: split on blanks on purpose
    ${DIKE_EMU_WRAPPER:-} "$DIKE_EMU" "$@"
}

# run_ok NAME ARGS...: dike-emu ARGS exits 0; stdout in $T/NAME.out, stderr in $T/NAME.err.
run_ok()
{
    local name="$1" rc=0
    shift
    echo "run: dike-emu $*"
    emu "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
    if [ "$rc" -ne 0 ]; then
        show_file stdout "$T/$name.out"
        show_file stderr "$T/$name.err"
        fail "dike-emu $* exited $rc, expected 0"
    fi
    ok "dike-emu $* exits 0"
}

# refused [-F] WHAT PATTERN ARGS...: dike-emu ARGS (behind $DIKE_EMU_WRAPPER, at most 120 s) is
# refused as bad input: status 2, no crash, exactly one "dike-emu:" line on stderr and (without a
# wrapper, which may print its own) nothing else, that line matching the basic regular expression
# PATTERN (-F: containing the fixed string PATTERN; "" matches any), nothing on stdout, and no
# out.h5* left in the current folder. stdout and stderr are kept in ./out.log and ./err.log.
# Redirect stdin at the call if the run reads it.
refused()
{
    local fixed=""
    if [ "$1" = -F ]; then fixed=-F; shift; fi
    local what="$1" pat="$2" rc=0
    shift 2
    # shellcheck disable=SC2086 # the wrapper is a command line: split on blanks on purpose
    timeout 120 ${DIKE_EMU_WRAPPER:-} "$DIKE_EMU" "$@" >out.log 2>err.log || rc=$?
    [ "$rc" = 2 ] || { show_file stderr err.log; fail "$what: status $rc, expected 2 (124 = timed out)"; }
    if grep -Eqi 'core dumped|segmentation fault|sanitizer|stack smashing|double free' err.log; then
        show_file stderr err.log
        fail "$what: crash reported"
    fi
    [ "$(grep -c '^dike-emu:' err.log)" = 1 ] || { show_file stderr err.log; fail "$what: not exactly one message line"; }
    if [ -z "${DIKE_EMU_WRAPPER:-}" ] && [ "$(wc -l <err.log)" != 1 ]; then
        show_file stderr err.log
        fail "$what: stderr holds more than the message line"
    fi
    grep '^dike-emu:' err.log | grep -q $fixed -- "$pat" || { show_file stderr err.log; fail "$what: message does not match '$pat'"; }
    [ ! -s out.log ] || { show_file stdout out.log; fail "$what: output on stdout"; }
    if ls out.h5* >/dev/null 2>&1; then fail "$what: an output file was left"; fi
    ok "$what: status 2: $(grep '^dike-emu:' err.log | head -c 160)"
}

# contains FILE FIXED-STRING: FILE contains the string.
contains()
{
    grep -qF -- "$2" "$1" || { show_file "$(basename "$1")" "$1"; fail "$(basename "$1") does not contain '$2'"; }
    ok "$(basename "$1") contains '$2'"
}

# dike_policies: the policy names that `dike-emu list-policies` prints, one a line.
dike_policies()
{
    "$DIKE_EMU" list-policies | awk '/^[^ ].*:$/ { s = $1; next } s == "policies" && /^  [^ ]/ { print $1 }'
}

# json FILE EXPR: the Python expression EXPR evaluated with d = the JSON document in FILE.
json()
{
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# emu_mpi NP ARGS...: run dike-emu under the project's mpiexec command with NP ranks.
# Needs the array DIKE_MPIEXEC (the command) and DIKE_NP_FLAG (e.g. -n).
# dike_mpi_args DIKE_EMU [MPIEXEC_NP_FLAG MPIEXEC...]: the arguments every MPI script test gets
# from ctest (tests/lib/dike_test.cmake); without a launcher, mpiexec -np.
dike_mpi_args()
{
    DIKE_EMU="$1"
    DIKE_NP_FLAG="${2:--np}"
    DIKE_MPIEXEC=("${@:3}")
    [ ${#DIKE_MPIEXEC[@]} -gt 0 ] || DIKE_MPIEXEC=(mpiexec)
}

emu_mpi()
{
    local np="$1"
    shift
    # shellcheck disable=SC2086
    "${DIKE_MPIEXEC[@]}" "$DIKE_NP_FLAG" "$np" ${DIKE_EMU_WRAPPER:-} "$DIKE_EMU" "$@"
}

# in_sanitizer_pass WHAT: true under scripts/test-sanitize.sh (DIKE_SANITIZE_PASS=1), saying that
# WHAT is left to the README suite there.
in_sanitizer_pass()
{
    [ "${DIKE_SANITIZE_PASS:-}" = 1 ] || return 1
    echo "note: $1 left to the README suite (sanitizer pass)"
}

# wait_engine_running PID LOG JOBS: wait until the progress LOG of the run PID (started with
# `--progress log`) shows the engine running ("jobs K/JOBS finished"), or the run ended, or 60 s
# passed. A signal sent then reaches a running engine (its handler is installed before the engine
# starts), whatever the machine's speed.
wait_engine_running()
{
    local pid="$1" log="$2" jobs="$3"
    for _ in $(seq 3000); do
        grep -q "jobs [0-9]*/$jobs finished" "$log" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.02
    done
}

# assert_line FILE N TEXT: line N of the fixture FILE is exactly TEXT. Keeps the line numbers
# expected in error messages honest when someone edits a fixture.
assert_line()
{
    local got
    got=$(sed -n "$2p" "$1")
    [ "$got" = "$3" ] || fail "fixture $(basename "$1") line $2 is '$got', expected '$3'"
    ok "fixture $(basename "$1") line $2 is '$3'"
}

# h5_attr FILE PATH: the value of a scalar attribute (e.g. /summary/avg_jct, /ranks), numbers
# with 17 significant digits, strings without their quotes.
h5_attr()
{
    h5dump -m '%.17g' -a "$2" "$1" | awk '
        /\(0\):/ { sub(/^[^:]*: */, ""); gsub(/^"|"$/, ""); print; found = 1; exit }
        END { if (!found) exit 1 }'
}

# h5_config FILE: the resolved configuration stored in the `config` root attribute, as INI text.
h5_config()
{
    h5dump -w 0 -a /config "$1" | awk '
        !on && /\(0\): "/ { on = 1; sub(/^[^"]*"/, "") }
        on {
            sub(/^[ \t]+/, "")
            if ($0 ~ /"$/) { sub(/"$/, ""); print; exit }
            print
        }'
}

# h5_column FILE DATASET COLUMN ROW: one value of a 1-D compound dataset, found by column name
# (the column order of `h5dump -H`), numbers with 17 significant digits.
h5_column()
{
    local idx
    idx=$(h5dump -H -d "$2" "$1" | awk -v want="$3" '
        /H5T_COMPOUND *[{]/ { inside = 1; next }
        inside && (/^[ \t]*H5T_[A-Z0-9_]+ "[^"]*";/ || /^[ \t]*[}] "[^"]*";/) {
            n++; split($0, q, "\""); if (q[2] == want) { print n; exit }
        }')
    [ -n "$idx" ] || return 1
    h5dump -d "$2" -m '%.17g' -s "$4" -c 1 "$1" | awk -v idx="$idx" '
        /\([0-9]+\): *[{]/ { on = 1; next }
        on {
            v = $0; sub(/^[ \t]+/, "", v); sub(/,?[ \t]*$/, "", v)
            if (v != "" && ++k == idx) { print v; found = 1; exit }
        }
        END { if (!found) exit 1 }'
}

# same_objects A B LABEL OBJECT...: every OBJECT is identical in the files A and B (h5_same).
same_objects()
{
    local a="$1" b="$2" what="$3" o
    shift 3
    for o in "$@"; do
        h5_same "$a" "$b" "$o" || fail "$what: $o differs between $(basename "$a") and $(basename "$b")"
    done
    ok "$what: $* identical"
}

# h5_same A B OBJECT: h5diff finds OBJECT identical in A and B (exit 0 and no "not comparable":
# h5diff exits 0 when shapes or types differ, so that text must be checked as well).
h5_same()
{
    local out rc=0
    out=$(h5diff "$1" "$2" "$3" "$3" 2>&1) || rc=$?
    if [ "$rc" -ne 0 ] || printf '%s\n' "$out" | grep -qi 'not comparable'; then
        printf '%s\n' "$out" | head -20 | sed 's/^/    | /'
        return 1
    fi
    return 0
}
