#!/bin/bash
# Positive checks of the dike-emu command line (tests/cli/CMakeLists.txt registers one ctest per case).
#
#   cli_ok.sh CASE DIKE_EMU PROJECT_VERSION
#
# Cases: version, help, list_policies, output_schema, tenant_weights_file, wide_nodes, without_mpi, singleton_session,
# short_lease.
set -eu
case_="$1"
DIKE_EMU="$2"
want_version="$3"
here=$(cd "$(dirname "$0")" && pwd)  # this folder, also after the cd below
. "$here/../lib/testlib.sh"
dike_tmp_init "cli_$case_"
cd "$T"

# run_quiet_ok NAME ARGS...: run_ok, and nothing on stderr (a run that succeeds is silent here).
run_quiet_ok()
{
    run_ok "$@"
    if [ -z "${DIKE_EMU_WRAPPER:-}" ] && [ -s "$T/$1.err" ]; then
        show_file stderr "$T/$1.err"
        fail "dike-emu ${*:2} wrote to stderr"
    fi
}

# The names listed under "policies (--policy):" and "placements (--placement):" by list-policies.
list_section()
{
    awk -v want="$2" '
        /^[^ ].*:$/ { sect = $1; next }
        sect == want && /^  [^ ]/ { print $1 }' "$1"
}

# h5_objects FILE: every group, dataset, attribute and compound column of FILE, from `h5dump -H`,
# one per line: "group /timeseries", "dataset /jobs", "attr /summary@avg_jct", "member /jobs:jct".
h5_objects()
{
    h5dump -H "$1" | awk '
        function cur(   i, p) {
            p = ""
            for (i = 1; i <= n; i++) if (name[i] != "/") p = p "/" name[i]
            return p == "" ? "/" : p
        }
        {
            line = $0
            split(line, q, "\"")
            if (line ~ /^[ \t]*(GROUP|DATASET) "/) {
                kind = (line ~ /^[ \t]*GROUP/) ? "group" : "dataset"
                n++; name[n] = q[2]; opened[n] = depth; kindof[n] = kind
                print kind, cur()
            } else if (line ~ /^[ \t]*ATTRIBUTE "/) {
                print "attr", cur() "@" q[2]
                n++; name[n] = "@" q[2]; opened[n] = depth; kindof[n] = "attr"
            } else if (n > 0 && kindof[n] == "dataset" &&
                       (line ~ /^[ \t]*H5T_[A-Z0-9_]+ "[^"]*";/ || line ~ /^[ \t]*[}] "[^"]*";/)) {
                print "member", cur() ":" q[2]
            }
            tmp = line; o = gsub(/[{]/, "", tmp)
            tmp = line; c = gsub(/[}]/, "", tmp)
            depth += o - c
            while (n > 0 && depth <= opened[n]) n--
        }'
}

# The layout of docs/output-schema.md, as h5_objects prints it: read from the doc itself
# (tests/cli/schema_doc.py), so the doc and this test cannot drift apart.
expected_objects()
{
    /usr/bin/python3 "$here/schema_doc.py" --list "$here/../../docs/output-schema.md"
}

case "$case_" in

version)
    run_quiet_ok version --version
    contains "$T/version.out" "dike-emu $want_version"
    grep -Eq '^dike-emu [0-9]+\.[0-9]+\.[0-9]+' "$T/version.out" || fail "first line is not 'dike-emu X.Y.Z'"
    ok "first line is 'dike-emu X.Y.Z'"
    contains "$T/version.out" "schema 1"
    grep -Eq '^build .+, emulator sources [0-9a-f]{64}$' "$T/version.out" || fail "no line 'build ..., emulator sources <sha256>'"
    ok "second line: the build and the digest of its emulator sources"
    ;;

help)
    run_quiet_ok help --help
    for opt in --set --config --trace --policy --placement --seed --out list-policies; do
        contains "$T/help.out" "$opt"
    done
    run_quiet_ok run_help run --help
    contains "$T/run_help.out" "--set"
    cmp -s "$T/help.out" "$T/run_help.out" || fail "'dike-emu --help' and 'dike-emu run --help' differ"
    ok "'run --help' prints the same usage"
    # No command at all is a usage error (exit 2), not a crash.
    rc=0
    emu >"$T/none.out" 2>"$T/none.err" || rc=$?
    [ "$rc" -eq 2 ] || fail "dike-emu without a command exited $rc, expected 2"
    contains "$T/none.err" "usage:"
    ;;

list_policies)
    run_quiet_ok list list-policies
    list_section "$T/list.out" policies >"$T/policies"
    list_section "$T/list.out" placements >"$T/placements"
    echo "policies: $(tr '\n' ' ' <"$T/policies")"
    echo "placements: $(tr '\n' ' ' <"$T/placements")"
    for p in fifo sjf srtf; do
        grep -qx "$p" "$T/policies" || fail "policy '$p' not listed under policies"
        ok "policy $p listed"
    done
    for p in pack spread; do
        grep -qx "$p" "$T/placements" || fail "placement '$p' not listed under placements"
        ok "placement $p listed"
    done
    [ -z "$(sort "$T/policies" | uniq -d)" ] || fail "a policy is listed twice"
    ok "no policy listed twice"
    ;;

output_schema)
    run_quiet_ok list list-policies
    list_section "$T/list.out" policies >"$T/policies"
    [ -s "$T/policies" ] || fail "list-policies lists no policy"
    expected_objects | sort >"$T/expected"
    for p in $(cat "$T/policies"); do
        echo "== policy $p"
        run_quiet_ok "run_$p" run --policy "$p" --out "$T/$p.h5" -q
        [ -f "$T/$p.h5" ] || fail "$p.h5 not written"
        ok "$p.h5 written"
        [ -z "$(find "$T" -name "$p.h5.*")" ] || fail "temporary files left next to $p.h5"
        ok "no $p.h5.tmp-* / .probe-* left"
        h5_objects "$T/$p.h5" | sort >"$T/$p.objects"
        missing=$(comm -23 "$T/expected" "$T/$p.objects")
        if [ -n "$missing" ]; then
            echo "$missing" | sed 's/^/    missing: /'
            fail "$p.h5 lacks objects named in docs/output-schema.md"
        fi
        ok "$p.h5 has all $(wc -l <"$T/expected") groups/datasets/attributes/columns of docs/output-schema.md"
        extra=$(comm -13 "$T/expected" "$T/$p.objects")
        [ -z "$extra" ] || echo "$extra" | sed 's/^/    (not in the doc, allowed: /; s/$/)/'

        [ "$(h5_attr "$T/$p.h5" /policy)" = "$p" ] || fail "/policy attribute is '$(h5_attr "$T/$p.h5" /policy)'"
        ok "/policy = $p"
        [ "$(h5_attr "$T/$p.h5" /schema_version)" = 1 ] || fail "/schema_version is not 1"
        ok "/schema_version = 1"
        [ "$(h5_attr "$T/$p.h5" /version)" = "$want_version" ] || fail "/version is not $want_version"
        ok "/version = $want_version"
        [ "$(h5_attr "$T/$p.h5" /ranks)" = 1 ] || fail "/ranks is not 1"
        ok "/ranks = 1"
        [ "$(h5_attr "$T/$p.h5" /placement)" = pack ] || fail "/placement is not the default pack"
        ok "/placement = pack"
        [ "$(h5_attr "$T/$p.h5" /seed)" = 1 ] || fail "/seed is not the default 1"
        ok "/seed = 1"
        [ "$(h5_attr "$T/$p.h5" /trace_path)" = synthetic ] || fail "/trace_path is not 'synthetic'"
        ok "/trace_path = synthetic"
        jobs=$(h5_attr "$T/$p.h5" /summary/jobs)
        finished=$(h5_attr "$T/$p.h5" /summary/finished)
        [ "$jobs" = 1000 ] || fail "/summary jobs = $jobs, expected the default 1000"
        ok "/summary jobs = 1000"
        [ "$finished" = "$jobs" ] || fail "/summary finished = $finished of $jobs"
        ok "/summary finished = jobs"

        # The stored config is a config file that reproduces the run (docs/config.md).
        h5_config "$T/$p.h5" >"$T/$p.ini"
        grep -q "^policy = $p\$" "$T/$p.ini" || fail "stored config has no 'policy = $p'"
        ok "stored config names policy = $p"
        run_quiet_ok "rerun_$p" run --config "$T/$p.ini" --out "$T/$p.again.h5" -q
        same_objects "$T/$p.h5" "$T/$p.again.h5" "rerun of $p from the stored config" \
            /jobs /tenants /timeseries /summary /nodes
    done

    # With a trace file: its path and SHA-256 are recorded.
    cat >"$T/trace.csv" <<'EOF'
job_id,tenant,submit_time,num_gpus,duration
0,alice,0,8,3600
1,bob,10,1,60
EOF
    run_quiet_ok trace run --trace "$T/trace.csv" --out "$T/trace.h5" -q
    [ "$(h5_attr "$T/trace.h5" /trace_path)" = "$T/trace.csv" ] || fail "/trace_path is not $T/trace.csv"
    ok "/trace_path = the trace file"
    want_sha=$(sha256sum "$T/trace.csv" | cut -d' ' -f1)
    [ "$(h5_attr "$T/trace.h5" /trace_sha256)" = "$want_sha" ] || fail "/trace_sha256 is not sha256sum of the trace"
    ok "/trace_sha256 = $want_sha"
    ;;

tenant_weights_file)
    # tenants.weights = file:PATH in a config file: PATH relative to the config file's folder (run
    # from another folder); the weights reach /tenants, the stored config names the mode and the
    # resolved path, and a rerun from the stored config gives the same /tenants.
    mkdir -p "$T/exp/data" "$T/elsewhere"
    cat >"$T/exp/data/trace.csv" <<'EOF'
job_id,tenant,submit_time,num_gpus,duration
0,alice,0,8,3600
1,bob,10,1,60
2,carol,20,2,600
EOF
    cat >"$T/exp/data/quota.csv" <<'EOF'
tenant,weight
# GPUs each virtual cluster owns
alice,64
carol,16
EOF
    cat >"$T/exp/run.ini" <<'EOF'
[workload]
trace = data/trace.csv
[tenants]
weights = file:data/quota.csv
EOF
    cd "$T/elsewhere"
    run_quiet_ok weights run --config "$T/exp/run.ini" --policy drf --out "$T/w.h5" -q
    cd "$T"
    /usr/bin/python3 - "$T/w.h5" <<'PY' || fail "/tenants weights are not 64, 1, 16"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    t = f["tenants"][:]
    got = {n.decode(): (w, s) for n, w, s in zip(t["name"], t["weight"], t["weight_share"])}
    want = {"alice": 64.0, "bob": 1.0, "carol": 16.0}
    assert {k: v[0] for k, v in got.items()} == want, got
    assert abs(got["alice"][1] - 64 / 81) < 1e-12, got
    assert abs(sum(t["gpu_share"]) - 1) < 1e-12 and abs(sum(t["entitled_share"]) - 1) < 1e-12
PY
    ok "/tenants weight = 64 (file), 1 (not listed), 16 (file); shares sum to 1"
    h5_config "$T/w.h5" >"$T/w.ini"
    contains "$T/w.ini" "weights = file:$T/exp/data/quota.csv"
    run_quiet_ok rerun run --config "$T/w.ini" --out "$T/w2.h5" -q
    h5_same "$T/w.h5" "$T/w2.h5" /tenants || fail "rerun from the stored config: /tenants differs"
    ok "rerun from the stored config gives the same /tenants"
    # --set: relative to the current folder.
    cd "$T/exp/data"
    run_quiet_ok weights_set run --trace trace.csv --set tenants.weights=file:quota.csv --out "$T/w3.h5" -q
    cd "$T"
    h5_same "$T/w.h5" "$T/w3.h5" /tenants || fail "--set file:quota.csv from its folder: /tenants differs"
    ok "--set tenants.weights=file:PATH is relative to the current folder"
    ;;

wide_nodes)
    # Nodes wider than 64 GPUs with one-GPU jobs on them: Dike's preemption search must handle
    # every job on a node (it once stopped with a fatal error above 64 jobs per node). 3,000 jobs
    # at load 1.5 on 8 nodes of 128 GPUs keep the queue blocked, so the search runs.
    run_quiet_ok wide run -p dike --set cluster.gpus_per_node=128 --set cluster.nodes=8 \
        --set workload.jobs=3000 --set workload.load=1.5 --out "$T/wide.h5" -q
    /usr/bin/python3 - "$T/wide.h5" <<'PY' || fail "not every job finished, or nothing was preempted"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    a = f["summary"].attrs
    assert a["finished"] == a["jobs"] == 3000, (a["finished"], a["jobs"])
    assert a["preemptions"] > 0, a["preemptions"]
PY
    ok "dike on 128-GPU nodes: every job finished, preemptions happened"
    ;;

without_mpi)
    # Commands that only read and print files do not start MPI (docs/architecture.md, "Commands
    # that start no MPI"). OMPI_MCA_pml=bogus makes Open MPI's MPI_Init fail; first check that it does,
    # so that the checks below can fail.
    printf '%s\n' submit_time,job_id,tenant,num_gpus,duration 0,1,alice,2,600 10,2,bob,8,300 20,3,alice,1,60 >"$T/t.csv"
    run_quiet_ok made run --trace "$T/t.csv" --cluster 4x8 --out "$T/made.h5" -q
    printf '[campaign]\nname = nompi\nout_dir = %s/grid\n[workload]\ntrace = %s\n[cluster]\nnodes = 4\n[sweep]\npolicy = fifo, sjf\n' \
        "$T" "$T/t.csv" >"$T/grid.ini"
    rc=0
    OMPI_MCA_pml=bogus timeout 60 "$DIKE_EMU" run --trace "$T/t.csv" --cluster 4x8 \
        --out "$T/bogus.h5" -q >"$T/bogus.out" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] && [ ! -e "$T/bogus.h5" ] || fail "run with OMPI_MCA_pml=bogus exited $rc: MPI_Init did not fail"
    ok "run with OMPI_MCA_pml=bogus fails in MPI_Init (status $rc)"
    export OMPI_MCA_pml=bogus
    run_quiet_ok v --version
    contains "$T/v.out" "dike-emu $want_version"
    run_quiet_ok h --help
    contains "$T/h.out" "usage:"
    run_quiet_ok lp list-policies
    contains "$T/lp.out" "dike"
    run_quiet_ok cr config-reference
    contains "$T/cr.out" "fairness_weight"
    run_quiet_ok pc run --trace "$T/t.csv" --cluster 4x8 --out "$T/x.h5" --print-config
    contains "$T/pc.out" "t.csv"
    run_quiet_ok dry run --trace "$T/t.csv" --cluster 4x8 --out "$T/x.h5" --dry-run
    contains "$T/dry.out" "1 MPI rank"
    [ ! -e "$T/x.h5" ] || fail "--dry-run wrote its output"
    run_quiet_ok ti trace-info "$T/t.csv"
    contains "$T/ti.out" "jobs"
    run_quiet_ok ex export "$T/made.h5" --summary "$T/made.json"
    [ "$(json "$T/made.json" 'd["summary"]["finished"]')" = "$(json "$T/made.json" 'd["summary"]["jobs"]')" ] ||
        fail "export: the summary does not say every job finished"
    ok "export wrote the summary"
    run_quiet_ok ls campaign "$T/grid.ini" --list
    [ "$(grep -vc '^#' "$T/ls.out")" = 2 ] || { show_file list "$T/ls.out"; fail "campaign --list: not two points"; }
    ok "campaign --list prints the two points"
    rc=0
    emu campaign "$T/grid.ini" --status >"$T/st.out" 2>"$T/st.err" || rc=$?
    [ "$rc" = 1 ] || { show_file stderr "$T/st.err"; fail "campaign --status exited $rc, expected 1 (points pending)"; }
    contains "$T/st.out" "2 PENDING"
    # A bad input is still one message and status 2, and nothing else on stderr.
    refused "bad --set without MPI" "not an integer" run --set workload.jobs=abc --out out.h5
    # And a command that emulates still needs MPI.
    rc=0
    timeout 60 "$DIKE_EMU" campaign "$T/grid.ini" -q >"$T/cg.out" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] || fail "campaign points ran although MPI_Init cannot succeed"
    ok "campaign without --list/--status starts MPI (status $rc under the bogus pml)"
    unset OMPI_MCA_pml
    ;;

singleton_session)
    # Two singletons at once (no launcher): each runs without Open MPI's daemon in a session folder
    # of its own under TMPDIR, which Open MPI removes at the end, also after MPI_Abort
    # (docs/architecture.md, "The singleton's daemon"). With the daemon, ompi.<host>.<uid> is left.
    mkdir -p "$T/tmp"
    export TMPDIR="$T/tmp"
    # While a run is in its engine: its session folder is ompi.<host>.<uid>.dike-emu.<pid>, and no
    # orted runs beside it. SIGTERM then stops it with a checkpoint, and the folder goes.
    "$DIKE_EMU" run --set workload.jobs=300000 --set cluster.nodes=7500 -p srtf --progress log \
        --set output.progress_interval_s=0.05 --out "$T/long.h5" >/dev/null 2>"$T/progress.log" &
    pid=$!
    wait_engine_running "$pid" "$T/progress.log" 300000
    if kill -0 "$pid" 2>/dev/null; then
        dirs="$(cd "$T/tmp" && ls -d ompi.* 2>/dev/null | tr '\n' ' ')"
        daemons="$(pgrep -P "$pid" -l || true)"
        kill -TERM "$pid" 2>/dev/null || true
        rc=0
        wait "$pid" || rc=$?
        [ "$dirs" = "ompi.$(hostname).$(id -u).dike-emu.$pid " ] ||
            fail "the running singleton's session folders in TMPDIR: '$dirs', expected ompi.$(hostname).$(id -u).dike-emu.$pid"
        ok "the running singleton's session folder is its own: $dirs"
        [ -z "$daemons" ] || fail "processes started by the singleton: $daemons"
        ok "no daemon beside the singleton"
        [ "$rc" = 4 ] || fail "SIGTERM: status $rc, expected 4"
        [ -z "$(ls -A "$T/tmp")" ] || fail "session folder left after the stop: $(ls -A "$T/tmp")"
        ok "stopped by SIGTERM (status 4), its session folder removed"
    else
        wait "$pid" || true
        echo "note: the run ended before it could be looked at; its session folder not checked on this machine"
    fi
    rm -f "$T"/long.h5*
    rc_a=0 rc_b=0
    emu run --set workload.jobs=20000 --out "$T/a.h5" -q 2>"$T/a.err" & pid_a=$!
    emu run --set workload.jobs=20000 --out "$T/b.h5" -q 2>"$T/b.err" & pid_b=$!
    wait "$pid_a" || rc_a=$?
    wait "$pid_b" || rc_b=$?
    [ "$rc_a" = 0 ] && [ "$rc_b" = 0 ] || { show_file a.err "$T/a.err"; show_file b.err "$T/b.err"; fail "two singletons at once: status $rc_a and $rc_b"; }
    if [ -z "${DIKE_EMU_WRAPPER:-}" ] && { [ -s "$T/a.err" ] || [ -s "$T/b.err" ]; }; then
        show_file a.err "$T/a.err"; show_file b.err "$T/b.err"; fail "two singletons at once wrote to stderr"
    fi
    h5_same "$T/a.h5" "$T/b.h5" /jobs || fail "two singletons at once: /jobs differ"
    ok "two singletons at once: both finished, nothing on stderr, the same /jobs"
    rc=0
    emu run --set workload.jobs=2000 --set engine.inject_fatal_rank=0 --out "$T/c.h5" -q >/dev/null 2>&1 || rc=$?
    [ "$rc" != 0 ] || fail "a run with engine.inject_fatal_rank=0 succeeded"
    left="$(ls -A "$T/tmp")"
    [ -z "$left" ] || fail "session folders left in TMPDIR: $left"
    ok "no session folder left in TMPDIR (after two runs and an abort, status $rc)"
    unset TMPDIR
    ;;

short_lease)
    # las, themis and gandiva-fair rebuild their running set every round: a round no longer than a
    # resume (preemption_cost_s + decision_latency_s) gets one warning line on stderr, and the run
    # still runs (docs/policies.md, "Rounds no longer than a resume"). The other policies, and
    # rounds longer than a resume, stay silent.
    printf '%s\n' submit_time,job_id,tenant,num_gpus,duration 0,1,alice,8,600 10,2,bob,8,300 >"$T/t.csv"
    run_ok las run --trace "$T/t.csv" --cluster 1x8 -p las --set scheduler.round_s=10 --out "$T/las.h5" -q
    [ "$(wc -l <"$T/las.err")" -eq 1 ] || { show_file stderr "$T/las.err"; fail "not one line on stderr"; }
    contains "$T/las.err" "dike-emu: warning: [scheduler] round_s = 10 s is not longer than a resume (preemption_cost_s 30 s + decision_latency_s 0 s): las rebuilds its running set every round, so jobs that take turns on GPUs spend most of their time there resuming"
    [ -s "$T/las.h5" ] || fail "the warned run wrote no output"
    ok "the warned run ran and wrote its output"
    run_ok eq run --trace "$T/t.csv" --cluster 1x8 -p themis --set scheduler.round_s=31 \
        --set scheduler.decision_latency_s=1 --out "$T/eq.h5" -q
    contains "$T/eq.err" "round_s = 31 s is not longer than a resume (preemption_cost_s 30 s + decision_latency_s 1 s): themis"
    run_ok dry run --trace "$T/t.csv" --cluster 1x8 -p themis --set scheduler.round_s=5 --out "$T/dry.h5" --dry-run
    contains "$T/dry.err" "themis rebuilds its running set every round"
    [ ! -e "$T/dry.h5" ] || fail "--dry-run wrote $T/dry.h5"
    # gandiva-fair takes turns between the two tenants every second: it warns, and it finishes
    # (until 2026-12-07 it preempted every resumed job before its restore ended: a livelock).
    run_ok gf run --trace "$T/t.csv" --cluster 1x8 -p gandiva-fair --set scheduler.round_s=1 --out "$T/gf.h5" -q
    contains "$T/gf.err" "gandiva-fair rebuilds its running set every round"
    [ -s "$T/gf.h5" ] || fail "gandiva-fair with one-second rounds wrote no output"
    ok "gandiva-fair with one-second rounds finished"
    run_quiet_ok long run --trace "$T/t.csv" --cluster 1x8 -p themis --set scheduler.round_s=32 \
        --set scheduler.decision_latency_s=1 --out "$T/long.h5" -q
    ok "themis with a round 1 s longer than a resume: silent"
    for p in srtf dike drf; do
        run_quiet_ok "q_$p" run --trace "$T/t.csv" --cluster 1x8 -p "$p" --set scheduler.round_s=1 --out "$T/$p.h5" -q
        ok "$p with one-second rounds: silent (its running set is not rebuilt every round)"
    done
    ;;

*)
    fail "unknown case '$case_'"
    ;;
esac
