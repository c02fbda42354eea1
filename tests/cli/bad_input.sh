#!/bin/bash
# Bad-input classes of the dike-emu command line, one class per ctest (tests/cli/CMakeLists.txt).
#
#   bad_input.sh CLASS DIKE_EMU [MPIEXEC_NP_FLAG MPIEXEC...]
#
# Every class runs `dike-emu run ... --out $T/out.h5` on a fixture written below and checks the
# contract of docs/config.md and docs/trace-format.md: exit status exactly 2, exactly one line on
# stderr, starting with "dike-emu:" and naming the file, line and field, nothing on stdout, no
# crash, and no output file (neither out.h5 nor out.h5.tmp-* / out.h5.probe-*) left behind.
# The fixtures are written here so that the expected line number sits next to its content;
# assert_line double-checks it.
set -eu
class="$1"
DIKE_EMU="$2"
DIKE_NP_FLAG="${3:-}"
DIKE_MPIEXEC=("${@:4}")
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init "cli_bad_$class"
cd "$T"

TRACE_HEADER='job_id,tenant,submit_time,num_gpus,duration'

# expect_bad_input FRAGMENT... -- RUN_ARGS...
#   Runs `dike-emu run RUN_ARGS --out $OUT` (OUT defaults to $T/out.h5; with NP set, under mpiexec
#   with NP ranks) and checks the bad-input contract; the one error line must contain every
#   FRAGMENT (fixed strings).
expect_bad_input()
{
    local frags=() out="${OUT-$T/out.h5}" np="${NP-}"
    while [ "$1" != "--" ]; do
        frags+=("$1")
        shift
    done
    shift
    local logs="$T/logs"
    mkdir -p "$logs"
    : >"$logs/stdout"
    : >"$logs/stderr"
    local before after rc=0 pre_existing=0
    if [ -n "$out" ] && [ -e "$out" ]; then pre_existing=1; fi
    before=$(cd "$T" && find . -path ./logs -prune -o -print | sort)

    echo "run: dike-emu run $* --out $out${np:+ (mpiexec, $np ranks)}"
    if [ -n "$np" ]; then
        emu_mpi "$np" run "$@" --out "$out" >"$logs/stdout" 2>"$logs/stderr" || rc=$?
    else
        emu run "$@" --out "$out" >"$logs/stdout" 2>"$logs/stderr" || rc=$?
    fi
    show_file "stderr" "$logs/stderr"

    [ "$rc" -eq 2 ] || { show_file stdout "$logs/stdout"; fail "exit status is $rc, expected exactly 2"; }
    ok "exit status 2"

    if grep -Eqi 'core dumped|segmentation fault|on signal|signal [0-9]+|sanitizer|stack smashing|double free' "$logs/stdout" "$logs/stderr"; then
        fail "crash or signal reported"
    fi
    ok "no crash, no signal"

    local nerr
    nerr=$(grep -c '^dike-emu:' "$logs/stderr" || true)
    [ "$nerr" -eq 1 ] || fail "$nerr stderr lines start with 'dike-emu:', expected exactly 1"
    ok "exactly one stderr line starts with 'dike-emu:'"
    if [ -z "${DIKE_EMU_WRAPPER:-}" ] && [ -z "$np" ]; then
        # Alone (no valgrind, no mpiexec banner) that line is all there is.
        local nall
        nall=$(wc -l <"$logs/stderr")
        [ "$nall" -eq 1 ] || fail "stderr has $nall lines, expected only the error line"
        ok "stderr holds nothing but that line"
    fi

    local line frag
    line=$(grep '^dike-emu:' "$logs/stderr")
    for frag in "${frags[@]}"; do
        case "$line" in
        *"$frag"*) ok "message contains '$frag'" ;;
        *) fail "message does not contain '$frag'" ;;
        esac
    done

    if [ -s "$logs/stdout" ]; then
        show_file stdout "$logs/stdout"
        fail "stdout is not empty"
    fi
    ok "stdout empty"

    if [ "$pre_existing" = 1 ]; then
        [ -e "$out" ] || fail "the existing $out vanished"
        ok "the existing $(basename "$out") is still there"
    else
        [ ! -e "$out" ] || fail "$out exists after a failed run"
        ok "no $(basename "$out")"
    fi
    if [ -n "$out" ]; then
        local leftovers
        leftovers=$(find "$(dirname "$out")" -maxdepth 1 -name "$(basename "$out").*" 2>/dev/null || true)
        [ -z "$leftovers" ] || fail "left behind: $leftovers"
        ok "no $(basename "$out").tmp-* / .probe-* left behind"
    fi
    after=$(cd "$T" && find . -path ./logs -prune -o -print | sort)
    [ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after") || true; fail "files appeared or vanished in $T"; }
    ok "no other file created or removed in the temporary folder"
}

case "$class" in

unknown_config_key)
    cat >"$T/unknown_key.ini" <<'EOF'
# line 1: comments and blank lines count
[cluster]
nodes = 16

nodez = 8
EOF
    assert_line "$T/unknown_key.ini" 5 'nodez = 8'
    expect_bad_input "$T/unknown_key.ini:5:" "[cluster]" "nodez" "unknown key" -- --config "$T/unknown_key.ini"
    # An unknown section is the same class of mistake.
    cat >"$T/unknown_section.ini" <<'EOF'
[cluster]
nodes = 16
[clutser]
nodes = 8
EOF
    assert_line "$T/unknown_section.ini" 4 'nodes = 8'
    expect_bad_input "$T/unknown_section.ini:4:" "clutser" "unknown section" -- --config "$T/unknown_section.ini"
    ;;

config_bad_number)
    cat >"$T/bad_number.ini" <<'EOF'
# an integer with a unit-like suffix
[cluster]
gpus_per_node = 8
nodes = 12x
EOF
    assert_line "$T/bad_number.ini" 4 'nodes = 12x'
    expect_bad_input "$T/bad_number.ini:4:" "[cluster]" "nodes" "12x" -- --config "$T/bad_number.ini"
    cat >"$T/bad_real.ini" <<'EOF'
[workload]
jobs = 10
load = 0.8.1
EOF
    assert_line "$T/bad_real.ini" 3 'load = 0.8.1'
    expect_bad_input "$T/bad_real.ini:3:" "[workload]" "load" "0.8.1" -- --config "$T/bad_real.ini"
    ;;

trace_bad_number)
    cat >"$T/bad_number.csv" <<EOF
# line 1: comment
$TRACE_HEADER
0,alice,0,1,60

1,bob,30,2x,60
EOF
    assert_line "$T/bad_number.csv" 5 '1,bob,30,2x,60'
    expect_bad_input "$T/bad_number.csv:5:" "num_gpus" "2x" -- --trace "$T/bad_number.csv"
    cat >"$T/bad_time.csv" <<EOF
$TRACE_HEADER
0,alice,0,1,60
1,bob,12x,1,60
EOF
    assert_line "$T/bad_time.csv" 3 '1,bob,12x,1,60'
    expect_bad_input "$T/bad_time.csv:3:" "submit_time" "12x" -- --trace "$T/bad_time.csv"
    ;;

trace_negative_submit)
    cat >"$T/negative.csv" <<EOF
$TRACE_HEADER
0,alice,0,1,60
# line 3: comment
1,bob,-5,1,60
EOF
    assert_line "$T/negative.csv" 4 '1,bob,-5,1,60'
    expect_bad_input "$T/negative.csv:4:" "submit_time" "-5" -- --trace "$T/negative.csv"
    ;;

trace_too_many_gpus)
    # cluster.nodes=4 x gpus_per_node 8 = 32 GPUs; line 4 asks for 33.
    cat >"$T/too_big.csv" <<EOF
$TRACE_HEADER
0,alice,0,32,60
# 33 GPUs on a 32-GPU cluster:
1,bob,10,33,60
EOF
    assert_line "$T/too_big.csv" 4 '1,bob,10,33,60'
    expect_bad_input "$T/too_big.csv:4:" "num_gpus" "33" "32" -- --trace "$T/too_big.csv" --set cluster.nodes=4
    # Same through a config file (2 nodes x 4 GPUs = 8).
    cat >"$T/small.ini" <<'EOF'
[cluster]
nodes = 2
gpus_per_node = 4
EOF
    cat >"$T/too_big2.csv" <<EOF
$TRACE_HEADER
0,alice,0,9,60
EOF
    assert_line "$T/too_big2.csv" 2 '0,alice,0,9,60'
    expect_bad_input "$T/too_big2.csv:2:" "num_gpus" "9" "8" -- --config "$T/small.ini" --trace "$T/too_big2.csv"
    # Control: exactly the cluster size is fine (no off-by-one).
    cat >"$T/exact.csv" <<EOF
$TRACE_HEADER
0,alice,0,32,60
EOF
    rc=0
    emu run --trace "$T/exact.csv" --set cluster.nodes=4 --out "$T/control.h5" -q || rc=$?
    [ "$rc" -eq 0 ] && [ -f "$T/control.h5" ] || fail "a 32-GPU job on a 32-GPU cluster is refused (exit $rc)"
    ok "control: 32 GPUs on the 32-GPU cluster runs (exit 0, output written)"
    rm -f "$T/control.h5"
    ;;

trace_duplicate_id)
    cat >"$T/dup.csv" <<EOF
# ids must be unique
$TRACE_HEADER
0,alice,0,1,60
5,bob,1,1,60
6,carol,2,1,60
5,dave,3,1,60
EOF
    assert_line "$T/dup.csv" 4 '5,bob,1,1,60'
    assert_line "$T/dup.csv" 6 '5,dave,3,1,60'
    expect_bad_input "$T/dup.csv:6:" "job_id" "duplicate" "5" "line 4" -- --trace "$T/dup.csv"
    ;;

trace_unsorted)
    cat >"$T/unsorted.csv" <<EOF
$TRACE_HEADER
0,alice,0,1,60
1,bob,20,1,60
2,carol,20,1,60
3,dave,15,1,60
EOF
    assert_line "$T/unsorted.csv" 4 '2,carol,20,1,60'
    assert_line "$T/unsorted.csv" 5 '3,dave,15,1,60'
    expect_bad_input "$T/unsorted.csv:5:" "submit_time" "15" "20" "line 4" "sorted" -- --trace "$T/unsorted.csv"
    ;;

trace_missing_column)
    cat >"$T/no_duration.csv" <<'EOF'
# header on line 2 has no 'duration'
job_id,tenant,submit_time,num_gpus
0,alice,0,1
EOF
    assert_line "$T/no_duration.csv" 2 'job_id,tenant,submit_time,num_gpus'
    expect_bad_input "$T/no_duration.csv:2:" "header" "missing column" "duration" -- --trace "$T/no_duration.csv"
    ;;

trace_missing_file)
    expect_bad_input "$T/no-such-trace.csv" "cannot open" -- --trace "$T/no-such-trace.csv"
    ;;

config_missing_file)
    expect_bad_input "$T/no-such-config.ini" "cannot open" -- --config "$T/no-such-config.ini"
    ;;

set_bad_syntax)
    expect_bad_input "--set" "nodes=4" "section.key=value" -- --set nodes=4
    expect_bad_input "--set" "cluster.nodes" "section.key=value" -- --set cluster.nodes
    ;;

set_unknown_key)
    expect_bad_input "--set" "[cluster]" "nodez" "unknown key" -- --set cluster.nodez=4
    expect_bad_input "--set" "clutser" "unknown section" -- --set clutser.nodes=4
    ;;

unknown_policy)
    expect_bad_input "policy" "'nosuch'" -- --policy nosuch
    cat >"$T/policy.ini" <<'EOF'
[scheduler]
policy = nosuch
EOF
    expect_bad_input "policy" "'nosuch'" -- --config "$T/policy.ini"
    expect_bad_input "placement" "'nosuch'" -- --placement nosuch
    ;;

output_unwritable)
    OUT="$T/no-such-dir/out.h5" expect_bad_input "$T/no-such-dir/out.h5" "cannot write output" --
    [ ! -e "$T/no-such-dir" ] || fail "the missing folder was created"
    ok "the missing folder was not created"
    mkdir "$T/adir"
    OUT="$T/adir" expect_bad_input "$T/adir" "cannot write output" --
    [ -z "$(ls -A "$T/adir")" ] || fail "files left in $T/adir"
    ok "nothing written into the folder given as --out"
    ;;

keeps_existing_output)
    # A failed run must not touch an older file at --out (docs/output-schema.md).
    echo "an older result" >"$T/out.h5"
    cp "$T/out.h5" "$T/out.h5.orig"
    cat >"$T/dup.csv" <<EOF
$TRACE_HEADER
1,alice,0,1,60
1,bob,1,1,60
EOF
    rc=0
    emu run --trace "$T/dup.csv" --out "$T/out.h5" >/dev/null 2>"$T/stderr" || rc=$?
    [ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
    ok "exit status 2"
    cmp -s "$T/out.h5" "$T/out.h5.orig" || fail "the existing out.h5 was changed"
    ok "existing out.h5 unchanged"
    [ -z "$(find "$T" -name 'out.h5.tmp-*' -o -name 'out.h5.probe-*')" ] || fail "temporary files left"
    ok "no out.h5.tmp-* / .probe-* left behind"
    ;;

mpi_np2)
    # Under mpiexec every rank sees the error; only one line may reach the user, and mpiexec
    # must pass the status 2 on.
    cat >"$T/dup.csv" <<EOF
$TRACE_HEADER
0,alice,0,1,60
0,bob,1,1,60
EOF
    assert_line "$T/dup.csv" 3 '0,bob,1,1,60'
    NP=2 expect_bad_input "$T/dup.csv:3:" "job_id" "duplicate" -- --trace "$T/dup.csv"
    NP=2 OUT="$T/no-such-dir/out.h5" expect_bad_input "$T/no-such-dir/out.h5" "cannot write output" --
    ;;

run_cannot_finish)
    # A run that cannot finish (docs/reliability.md, "A run that stops making progress"): nodes
    # fail every 60 s on average and a run checkpoints after 1,800 s of work, so the 1-GPU job of
    # 100,000 s never keeps any work, while the two 10-s jobs finish. After 100 failures per node
    # (faults.stall_failures_per_node) of the 4 nodes, 400 in all, with no progress, the run ends
    # with one message and status 2; the same with 2 ranks, in both modes.
    printf '%s\n' "$TRACE_HEADER" "0,alice,0,1,10" "1,bob,0,1,100000" "2,alice,5,1,10" >"$T/t.csv"
    FAULTS=(--trace "$T/t.csv" --cluster 4x2 --set faults.mtbf_s=60 --set faults.mttr_s=60)
    WHY=("stopped making progress" "400 node failures since" "1 of 3 jobs are unfinished"
         "the widest needs 1 GPU." "faults.checkpoint_interval_s = 1800" "no output written")
    expect_bad_input "${WHY[@]}" -- "${FAULTS[@]}"
    expect_bad_input "200 node failures since" -- "${FAULTS[@]}" --set faults.stall_failures_per_node=50
    if [ -n "$DIKE_NP_FLAG" ]; then
        NP=2 expect_bad_input "${WHY[@]}" -- "${FAULTS[@]}"
        NP=2 expect_bad_input "${WHY[@]}" -- "${FAULTS[@]}" --set node_model.interference=0.1 \
            --set scheduler.decision_latency_s=1
    fi
    ;;

timeseries_outlasts)
    # /timeseries bounded while the run goes on (docs/reliability.md): the submits end at 10 s, so
    # the start-up check (samples over the submits' span) passes, but alice's 1-GPU job runs
    # 100,000 s. output.timeseries_max_gib = 0.0001 is 107,374.18 bytes; a sample of 2 tenants
    # holds 8 + 3 x 4 + 2 x 4 = 28 bytes, so 3,834 samples fit (times 0, 1, ..., 3,833 s at
    # timeseries_interval_s = 1), and the one at 3,834 s does not. bob's 10-s job ended at 20 s.
    # With fifo and no node model nothing happens between 20 s and 100,000 s: the bound is passed
    # in the step that also finishes the last job (so no job is left unfinished), which must still
    # end with the error, not with a time series cut short. The same on 2 ranks, in both modes.
    printf '%s\n' "$TRACE_HEADER" "0,alice,0,1,100000" "1,bob,10,1,10" >"$T/t.csv"
    LONG=(--trace "$T/t.csv" --cluster 1x2 -p fifo --set output.timeseries_interval_s=1
          --set output.timeseries_max_gib=0.0001)
    WHY=("[output] timeseries_interval_s: 1 s: /timeseries is full at 3834 samples"
         "for 2 tenants; output.timeseries_max_gib = 0.0001) at simulated time 3834 s"
         "with the run at 100000 s (the last submit at 10 s) and 0 of 2 jobs unfinished"
         "no output written")
    expect_bad_input "${WHY[@]}" -- "${LONG[@]}"
    # 0.0002 GiB: 7,669 samples fit
    expect_bad_input "full at 7669 samples" "at simulated time 7669 s" -- "${LONG[@]}" \
        --set output.timeseries_max_gib=0.0002
    # in the middle of the run: alice's job stopped by a round every 1,000 s (the bound passed at the
    # step of 4,000 s, where the samples of 3,834 s and after are due)
    expect_bad_input "full at 3834 samples" "with the run at 4000 s" "and 1 of 2 jobs unfinished" -- \
        "${LONG[@]}" -p themis --set scheduler.round_s=1000
    if [ -n "$DIKE_NP_FLAG" ]; then
        NP=2 expect_bad_input "${WHY[@]}" -- "${LONG[@]}"
        # the emulating mode: alice's job ends at 100,002.09 s there (10 s beside bob's at
        # interference 0.1, and the decision latency)
        NP=2 expect_bad_input "${WHY[0]}" "${WHY[1]}" "with the run at 100002 s" "0 of 2 jobs unfinished" \
            -- "${LONG[@]}" --set node_model.interference=0.1 --set scheduler.decision_latency_s=1
    fi
    # Within the bound: 100,001 samples (0 .. 100,000 s, the last event) of 28 bytes fit in
    # 0.0027 GiB (2,899,102 bytes, 103,539 samples): the run ends normally with all of them.
    emu run -q "${LONG[@]}" --set output.timeseries_max_gib=0.0027 --out "$T/ok.h5" ||
        fail "a run whose samples fit the bound failed"
    n=$(h5dump -H -d /timeseries/time "$T/ok.h5" | grep -o 'DATASPACE  SIMPLE { ( [0-9]* )' | grep -o '[0-9]*')
    [ "$n" = 100001 ] || fail "/timeseries/time has $n samples, expected 100001"
    ok "within the bound: 100001 samples written"
    ;;

node_timeseries_outlasts)
    # The emulating mode's per-node samples under the same bound (docs/reliability.md). Two nodes of
    # one GPU, so each job runs alone on its node from 1 s after its decision (the latency): alice
    # 0 -> 100,001 s; bob 11 -> 21 s, or 11 -> 50,011 s in t50k.csv. /timeseries is sampled every
    # 100,000 s only. A node's sample holds 2 + 4 + 1 = 7 bytes; on one rank a sample of both nodes
    # is 14 bytes, so 0.0001 GiB (107,374.18 bytes) holds 7,669 of them, on two ranks (one node
    # each) 15,339. The owner takes its samples when a node event comes, so the block fills at the
    # next one after 7,669 s: bob's end at 50,011 s in t50k.csv, else alice's end at 100,001 s,
    # the window that also ends the run, which must still end with the error.
    printf '%s\n' "$TRACE_HEADER" "0,alice,0,1,100000" "1,bob,10,1,10" >"$T/t.csv"
    printf '%s\n' "$TRACE_HEADER" "0,alice,0,1,100000" "1,bob,10,1,50000" >"$T/t50k.csv"
    EMUL=(-p fifo --cluster 2x1 --set node_model.interference=0.1 --set scheduler.decision_latency_s=1
          --set output.node_timeseries_s=1 --set output.timeseries_interval_s=100000
          --set output.timeseries_max_gib=0.0001)
    WHY=("[output] node_timeseries_s: 1 s: the per-node samples of a rank's nodes (7 bytes per node and sample)"
         "would pass output.timeseries_max_gib = 0.0001" "(the last submit at 10 s)" "no output written")
    expect_bad_input "${WHY[@]}" "by simulated time 100001 s" "with 0 of 2 jobs unfinished" -- \
        --trace "$T/t.csv" "${EMUL[@]}"
    expect_bad_input "${WHY[@]}" "by simulated time 50011 s" "with 1 of 2 jobs unfinished" -- \
        --trace "$T/t50k.csv" "${EMUL[@]}"
    # refused at start-up: 1e-4 s over the 10 s of submits is 100,000 samples of the 2 nodes, 7
    # bytes each: 1,400,000 bytes (0.0013 GiB)
    expect_bad_input "[output] node_timeseries_s: 0.0001 s over the 10 s of submits" \
        "at least 1e+05 samples of /node_timeseries for each of the 2 nodes of one rank (0.0013 GiB)" \
        "at most 0.0001 GiB (output.timeseries_max_gib)" -- --trace "$T/t.csv" "${EMUL[@]}" \
        --set output.node_timeseries_s=0.0001
    if [ -n "$DIKE_NP_FLAG" ]; then
        # one node per rank (a rack each): each block fills, at the same events
        for tr in t:100001:0 t50k:50011:1; do
            IFS=: read -r name at left <<<"$tr"
            NP=2 expect_bad_input "${WHY[@]}" "by simulated time $at s" "with $left of 2 jobs unfinished" -- \
                --trace "$T/$name.csv" "${EMUL[@]}" --set cluster.nodes_per_rack=1
        done
    fi
    # only the last sample, at 100,001 s, taken as the run closes its samples after the last
    # window, does not fit: 0.0013038681 GiB is 1,400,017 bytes, 100,001 samples of both nodes
    # (1,400,014 bytes) and not 100,002 (1,400,028)
    expect_bad_input "${WHY[0]}" "by simulated time 100001 s" "with 0 of 2 jobs unfinished" -- \
        --trace "$T/t.csv" "${EMUL[@]}" --set output.timeseries_max_gib=0.0013038681
    # within the bound (0.0016 GiB: 122,713 samples of both nodes): 100,002 samples, 0 .. 100,001 s
    emu run -q --trace "$T/t.csv" "${EMUL[@]}" --set output.timeseries_max_gib=0.0016 --out "$T/ok.h5" ||
        fail "a run whose node samples fit the bound failed"
    n=$(h5dump -H -d /node_timeseries/busy_gpus "$T/ok.h5" | grep -o 'DATASPACE  SIMPLE { ( [0-9, ]* )' | grep -o '( [0-9, ]* )')
    echo "/node_timeseries/busy_gpus: $n"
    [ "$n" = "( 2, 100002 )" ] || [ "$n" = "( 100002, 2 )" ] || fail "/node_timeseries has $n, expected 100002 samples of 2 nodes"
    ok "within the bound: 100002 samples of the two nodes written"
    ;;

tenant_weights)
    # [tenants] weights values refused where they are set: file:line, section and key, the value.
    printf '%s\n' "$TRACE_HEADER" "0,alice,0,1,60" "1,bob,10,1,60" >"$T/t.csv"
    for bad in 'alice:nan|not a finite number' 'alice:inf|not a finite number' \
               'bob:-2|must be > 0' 'bob:0|must be > 0' 'quota|unknown mode' \
               'alice:1,alice:2|listed twice' 'alice:2,bob|is not name:weight'; do
        value=${bad%%|*}
        why=${bad#*|}
        printf '[workload]\ntrace = t.csv\n\n[tenants]\nweights = %s\n' "$value" >"$T/w.ini"
        assert_line "$T/w.ini" 5 "weights = $value"
        expect_bad_input "$T/w.ini:5:" "[tenants] weights" "$why" "'$value'" -- --config "$T/w.ini"
        expect_bad_input "--set 'tenants.weights=$value'" "[tenants] weights" "$why" -- \
            --trace "$T/t.csv" --set "tenants.weights=$value"
    done
    # A name that is no tenant of the trace: found once the trace is read, named after the line.
    printf '[workload]\ntrace = t.csv\n[tenants]\nweights = alice:2, carl:1\n' >"$T/w.ini"
    assert_line "$T/w.ini" 4 'weights = alice:2, carl:1'
    expect_bad_input "$T/w.ini:4:" "[tenants] weights" "no tenant 'carl'" "t.csv" -- --config "$T/w.ini"
    ;;

tenant_weights_file)
    # file:PATH: a bad row names the weights file and its line; an empty or missing file names the
    # config line that points at it.
    printf '%s\n' "$TRACE_HEADER" "0,alice,0,1,60" "1,bob,10,1,60" >"$T/t.csv"
    printf '[workload]\ntrace = t.csv\n[tenants]\nweights = file:w.csv\n' >"$T/w.ini"
    assert_line "$T/w.ini" 4 'weights = file:w.csv'
    printf 'tenant,weight\nalice,2\nbob,nan\n' >"$T/w.csv"
    assert_line "$T/w.csv" 3 'bob,nan'
    expect_bad_input "$T/w.csv:3:" "[tenants] weights" "weight of 'bob'" "not a finite number" -- --config "$T/w.ini"
    printf 'alice,inf\n' >"$T/w.csv"
    expect_bad_input "$T/w.csv:1:" "[tenants] weights" "weight of 'alice'" "not a finite number" -- --config "$T/w.ini"
    printf 'alice,-1\n' >"$T/w.csv"
    expect_bad_input "$T/w.csv:1:" "[tenants] weights" "weight of 'alice'" "must be > 0" -- --config "$T/w.ini"
    printf 'bob,0\n' >"$T/w.csv"
    expect_bad_input "$T/w.csv:1:" "[tenants] weights" "weight of 'bob'" "must be > 0" -- --config "$T/w.ini"
    printf 'alice,1\n# comment\ncarl,3\n' >"$T/w.csv"
    assert_line "$T/w.csv" 3 'carl,3'
    expect_bad_input "$T/w.csv:3:" "[tenants] weights" "no tenant 'carl'" -- --config "$T/w.ini"
    printf 'alice;2\n' >"$T/w.csv"
    expect_bad_input "$T/w.csv:1:" "[tenants] weights" "expected tenant,weight" "alice;2" -- --config "$T/w.ini"
    : >"$T/w.csv"
    expect_bad_input "$T/w.ini:4:" "[tenants] weights" "w.csv" "empty file" -- --config "$T/w.ini"
    rm "$T/w.csv"
    expect_bad_input "$T/w.ini:4:" "[tenants] weights" "w.csv" "cannot open" -- --config "$T/w.ini"
    ;;

tenant_weights_every_policy)
    # Bad weights stop every policy before it runs, also those that do not use weights.
    printf '%s\n' "$TRACE_HEADER" "0,alice,0,1,60" >"$T/t.csv"
    printf '[workload]\ntrace = t.csv\n[tenants]\nweights = carl:1\n' >"$T/w.ini"
    policies=$(dike_policies)
    [ -n "$policies" ] || fail "list-policies lists no policy"
    for p in $policies; do
        expect_bad_input "$T/w.ini:4:" "[tenants] weights" "no tenant 'carl'" -- --config "$T/w.ini" --policy "$p"
    done
    ;;

empty_output_path)
    # An empty output path is bad input (it once ran and printed "wrote " with no file).
    OUT="" expect_bad_input "out" --
    ;;

*)
    fail "unknown class '$class'"
    ;;
esac
