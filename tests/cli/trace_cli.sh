#!/bin/bash
# The trace side of the command line (tests/cli/CMakeLists.txt registers one ctest per case):
#
#   trace_cli.sh CASE DIKE_EMU DATA_DIR
#
# Cases:
#   trace_info    `trace-info` on fixtures: its table, values worked out from the fixture lines
#   autodetect    `run --trace FILE` with no --trace-format, for every format's fixture
#   skip_report   invalid rows stop a run (exit 2, one line naming file/line/field, no output) or,
#                 with --skip-invalid, are reported in one stderr line per rule
#   node_list     --cluster NODE_LIST, a node list given as a trace, and trace-info's cluster line
set -eu
case_="$1"
DIKE_EMU="$2"
DATA="$3"
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init "cli_trace_$case_"
cd "$T"

# row FILE LABEL VALUE: the trace-info line "  LABEL<blanks>VALUE..." exists.
row()
{
    grep -qE "^  $2 +$3" "$1" || { show_file "$(basename "$1")" "$1"; fail "no row '$2' = '$3'"; }
    ok "row '$2' = '$3'"
}

case "$case_" in

trace_info)
    # The ten Philly jobs of trace_philly-vc_head.csv on 1 node x 8 GPUs (test_trace_window.c works
    # the numbers out): 880,691 GPU-s = 244.6 GPU-hours, peak 8 GPUs, 3 tenants, span 860,603 s.
    run_ok head trace-info --cluster 1x8 "$DATA/trace_philly-vc_head.csv"
    [ ! -s "$T/head.err" ] || fail "trace-info wrote to stderr"
    contains "$T/head.out" "trace-info: $DATA/trace_philly-vc_head.csv"
    row "$T/head.out" format "philly-vc \(detected from the header\)"
    row "$T/head.out" cluster "1 nodes x 8 GPUs = 8 GPUs \(v100\)"
    row "$T/head.out" jobs "10$"
    row "$T/head.out" span "9.96 days \(860,603 s\)"
    row "$T/head.out" tenants "3$"
    row "$T/head.out" GPU-hours "245$"
    row "$T/head.out" "concurrent demand" "peak 8 GPUs"
    row "$T/head.out" "offered load" "0.1279 on 8 GPUs"
    row "$T/head.out" 1 "10 +100.00"
    row "$T/head.out" 6214e9 "7 "
    # A window and a time scale show up in the table.
    run_ok win trace-info --cluster 1x8 --set workload.last_job=4 --set workload.time_scale=2 \
        "$DATA/trace_philly-vc_head.csv"
    row "$T/win.out" jobs "5$"
    row "$T/win.out" window "kept 5 of 10 jobs"
    row "$T/win.out" "time scale" "inter-arrival times x 2$"
    # Several files merge; invalid rows are counted, with the first of each rule.
    run_ok merged trace-info "$DATA/trace_elasticflow_merge"
    row "$T/merged.out" jobs "9$"
    row "$T/merged.out" tenants "2$"
    run_ok mixed trace-info "$DATA/trace_rfold_crux_mixed.csv"
    row "$T/mixed.out" jobs "4$"
    contains "$T/mixed.out" "4: 3 zero-duration, 1 larger than the cluster"
    contains "$T/mixed.out" "$DATA/trace_rfold_crux_mixed.csv:4: field 'duration (sec)': must be > 0 (got '0.0')"
    # A window counts a row larger than the cluster like any other: outside the window it is
    # among the jobs left out (not an invalid row); inside, it is counted as invalid.
    run_ok bigout trace-info --set workload.first_job=1 "$DATA/trace_rfold_too_large.csv"
    row "$T/bigout.out" jobs "1$"
    row "$T/bigout.out" window "kept 1 of 2 jobs"
    grep -q "invalid rows" "$T/bigout.out" && fail "the 744-GPU row outside the window counted as invalid"
    ok "the 744-GPU row outside the window is not an invalid row"
    refused -F bigin "trace_rfold_too_large.csv: no valid jobs (1 rows skipped)" trace-info \
        --set workload.last_job=0 "$DATA/trace_rfold_too_large.csv"
    refused -F none "no trace file" trace-info
    ;;

autodetect)
    for f in trace_good.csv trace_philly-vc_head.csv trace_rfold_philly_head.csv trace_elasticflow_merge \
             trace_gen-parallel_invented.csv; do
        run_ok "$f" run --trace "$DATA/$f" --set cluster.gpu_types=v100:32,a100:32 --out "$T/$f.h5" -q
        [ -f "$T/$f.h5" ] || fail "$f: no output file"
        ok "$f: output written"
        rm -f "$T/$f.h5"
    done
    run_ok explicit run --trace "$DATA/trace_philly-vc_head.csv" --trace-format philly-vc --out "$T/x.h5"
    contains "$T/explicit.out" "jobs                               10"
    rm -f "$T/x.h5"
    refused -F wrong "trace_philly-vc_head.csv:1: header: missing column 'job id'" run --trace "$DATA/trace_philly-vc_head.csv" --trace-format rfold --out "$T/out.h5"
    ;;

skip_report)
    refused -F crux "dike-emu: $DATA/trace_rfold_crux_mixed.csv:4: field 'duration (sec)': must be > 0 (got '0.0')" run --trace "$DATA/trace_rfold_crux_mixed.csv" --out "$T/out.h5"
    run_ok crux_skip run --trace "$DATA/trace_rfold_crux_mixed.csv" --skip-invalid --out "$T/s.h5" -q
    [ "$(cat "$T/crux_skip.err")" = "dike-emu: skipped 4 rows of $DATA/trace_rfold_crux_mixed.csv: 3 zero-duration, 1 larger than the cluster" ] ||
        { show_file stderr "$T/crux_skip.err"; fail "unexpected skip report"; }
    ok "one report line: 3 zero-duration, 1 larger than the cluster"
    [ "$(h5_attr "$T/s.h5" /summary/jobs)" = 4 ] || fail "/summary/jobs is not 4"
    ok "4 jobs replayed"
    refused -F date "trace_philly-vc_bad_date.csv:4: field 'timestamp'" run --trace "$DATA/trace_philly-vc_bad_date.csv" --out "$T/out.h5"
    refused -F dup "trace_elasticflow_duplicate.csv:4: field 'job_id': duplicate job id" run --trace "$DATA/trace_elasticflow_duplicate.csv" --out "$T/out.h5"
    refused -F clock "trace_gen-parallel_bad_interval.csv:3: field 'interval': must be >= 0 (got '-5')" run --trace "$DATA/trace_gen-parallel_bad_interval.csv" --skip-invalid --out "$T/out.h5"
    refused -F big "trace_rfold_too_large.csv:2: field 'size': 744 GPUs requested, the cluster has 512" run --trace "$DATA/trace_rfold_too_large.csv" --out "$T/out.h5"
    # a window leaving the 744-GPU job out runs (it counts as job 0 all the same); one that holds
    # it is refused with the same message
    run_ok window run --trace "$DATA/trace_rfold_too_large.csv" --set workload.first_job=1 --out "$T/w.h5" -q
    [ "$(h5_attr "$T/w.h5" /summary/jobs)" = 1 ] || fail "/summary/jobs is not 1"
    ok "first_job = 1: the job after the 744-GPU one replayed"
    refused -F bigwin "trace_rfold_too_large.csv:2: field 'size': 744 GPUs requested, the cluster has 512" run --trace "$DATA/trace_rfold_too_large.csv" --set workload.last_job=0 --out "$T/out.h5"
    ;;

node_list)
    run_ok pods run --cluster "$DATA/nodelist_invented.csv" --trace "$DATA/trace_openb_invented.csv" \
        --out "$T/p.h5" -q
    [ "$(h5_attr "$T/p.h5" /summary/jobs)" = 4 ] || fail "/summary/jobs is not 4"
    ok "4 pods replayed on the node list"
    contains "$T/pods.err" "dropped 1 rows without GPUs (CPU-only jobs)"
    contains "$T/pods.err" "1 fractional-GPU requests count as one whole GPU"
    run_ok info trace-info --cluster "$DATA/nodelist_invented.csv" "$DATA/trace_openb_invented.csv"
    row "$T/info.out" cluster "5 nodes, 17 GPUs: P100 5, T4 12"
    row "$T/info.out" "rows without GPUs" "1 "
    refused -F asTrace "a node list belongs in cluster.nodes_file" run --trace "$DATA/nodelist_invented.csv" --out "$T/out.h5"
    refused -F missing "[cluster] nodes_file: $T/no-such-nodes.csv: cannot open" run --cluster "$T/no-such-nodes.csv" --out "$T/out.h5"
    # A relative nodes_file in a config file is relative to that file's folder.
    mkdir -p "$T/exp"
    cp "$DATA/nodelist_invented.csv" "$T/exp/nodes.csv"
    printf '[cluster]\nnodes_file = nodes.csv\n[workload]\ntrace = %s\n' "$DATA/trace_openb_invented.csv" >"$T/exp/e.ini"
    run_ok rel run --config "$T/exp/e.ini" --out "$T/r.h5" -q
    ok "relative nodes_file resolved"
    ;;

*)
    fail "unknown case '$case_'"
    ;;
esac
