#!/bin/bash
# Repeatable runs, provenance, exports and comparisons (issue 16, items 3 and 4); registered by
# tests/cli/CMakeLists.txt as one ctest per case, cli_repro_<case>.
#
#   repro.sh CASE DIKE_EMU PROJECT_SOURCE_DIR
#
# Cases:
#   rerun        run --config-from gives identical /jobs (synthetic; a relative trace re-run from
#                another folder; a config file's relative trace); run.out is not replayed (no
#                --out: exit 2, no file); --out = the source is refused and the source unchanged;
#                options override the stored config; an output of other emulator sources gives
#                one warning line (none for this build's)
#   provenance   root attributes: created_utc within the test's wall-clock span, host, the exact
#                command line (quoted argument), build = git describe, compiler, HDF5 and MPI
#                versions of this machine; campaign attributes of campaign points and of a plain run
#   print_config --print-config round trip (print, feed back, print: identical); every key of
#                config-reference printed; relative paths printed absolute; nothing written;
#                bad values exit 2
#   dry_run      --dry-run prints the plan, creates nothing; bad trace / unwritable folder exit 2
#   export       per-job CSV values worked out by hand on a 4-job trace (fifo, one 4-GPU node),
#                RFC 4180 quoting of hostile tenant names, JSON aggregates, errors
#   compare      analysis/compare.py fifo vs sjf on the same 4 jobs: deltas worked out by hand;
#                notes on another workload, other emulator sources, a run across builds
#   schema_doc   docs/output-schema.md against a real file with node failures, both ways, units
set -eu
case_="$1"
DIKE_EMU="$2"
SRC="$3"
PY=/usr/bin/python3
. "$(dirname "$0")/../lib/testlib.sh"
dike_tmp_init "cli_repro_$case_"
cd "$T"

# same_jobs A B: /jobs of A and B hold the same bytes.
same_jobs()
{
    $PY - "$1" "$2" <<'PY' || fail "/jobs of $1 and $2 differ"
import sys, h5py
a, b = (h5py.File(p, "r")["jobs"][:] for p in sys.argv[1:3])
assert a.dtype == b.dtype and len(a) == len(b) and len(a) > 0, (len(a), len(b))
assert a.tobytes() == b.tobytes()
PY
    ok "/jobs of $(basename "$1") and $(basename "$2") identical ($(h5dump -H "$1" | grep -c 'H5T_' ) type lines)"
}

attr() { $PY -c 'import sys, h5py; v = h5py.File(sys.argv[1], "r").attrs[sys.argv[2]]; print(v.decode() if isinstance(v, bytes) else v)' "$@"; }

# A 4-job trace for one node of 4 GPUs under fifo, worked out by hand:
#   job 1 alice 4 GPUs  0 s..100 s;  job 2 bob 2 GPUs submitted 10, starts 100 (job 1 done), ends 150
#   job 3 alice 2 GPUs submitted 20, starts 100 beside job 2, ends 130
#   job 4 carol 1 GPU  submitted 25, waits for job 3 (4 GPUs busy), runs 130..135
trace4()
{
    printf 'job_id,tenant,submit_time,num_gpus,duration\n1,alice,0,4,100\n2,bob,10,2,50\n3,alice,20,2,30\n4,carol,25,1,5\n' >"$1"
}

case "$case_" in

rerun)
    run_ok a run -q -p dike --set workload.jobs=300 --set workload.load=1.2 --seed 7 --out "$T/a.h5"
    run_ok b run -q --config-from "$T/a.h5" --out "$T/b.h5"
    same_jobs "$T/a.h5" "$T/b.h5"
    [ "$(attr b.h5 policy)" = dike ] && [ "$(attr b.h5 seed)" = 7 ] || fail "policy/seed not replayed"
    ok "policy dike and seed 7 replayed"
    # The stored run.out and run.checkpoint are not replayed: the config of b.h5 names b.h5.
    h5_config "$T/b.h5" | grep -qx "out = $T/b.h5\|out = b.h5" || { h5_config "$T/b.h5" | grep '^out'; fail "run.out of the re-run is not b.h5"; }
    ok "the re-run's config names its own output"
    [ ! -s "$T/b.err" ] || { show_file stderr "$T/b.err"; fail "a re-run by the same build printed on stderr"; }

    # No --out: refused before anything is written.
    refused -F noout "the stored run.out is not replayed" run -q --config-from "$T/a.h5"
    [ "$(ls "$T" | grep -c '\.h5')" -eq 2 ] || fail "a file was written without --out"
    ok "nothing written without --out"
    # --out = the source file: refused, the source unchanged.
    sum=$(md5sum <"$T/a.h5")
    refused -F over "a.h5" run -q --config-from "$T/a.h5" --out "$T/a.h5"
    [ "$(md5sum <"$T/a.h5")" = "$sum" ] || fail "a.h5 changed"
    ok "a.h5 unchanged"
    # Options after (or before) --config-from override it.
    run_ok c run -q --policy sjf --config-from "$T/a.h5" --out "$T/c.h5"
    [ "$(attr c.h5 policy)" = sjf ] || fail "--policy did not override the stored policy"
    ok "--policy overrides the stored configuration"
    # An output of other emulator sources: the re-run warns (one line) and still runs.
    cp "$T/a.h5" "$T/old.h5"
    $PY "$SRC/tests/lib/h5_set_attrs.py" "$T/old.h5" source_sha256=abababababababababababababababababababababababababababababababab build=v0.0.9-old
    run_ok old run -q --config-from "$T/old.h5" --out "$T/old2.h5"
    same_jobs "$T/a.h5" "$T/old2.h5"
    [ "$(wc -l <"$T/old.err")" = 1 ] &&
        grep -q "^dike-emu: warning: --config-from .*old.h5: computed by build v0.0.9-old of other emulator sources (source_sha256 abababababab..., this build .* has .*): the re-run may not reproduce it$" "$T/old.err" ||
        { show_file stderr "$T/old.err"; fail "no warning for an output of other sources"; }
    ok "an output of other emulator sources: one warning line, and the re-run runs"

    # A relative trace, then a re-run from another folder.
    mkdir -p "$T/d1/sub" "$T/d2"
    trace4 "$T/d1/sub/t.csv"
    (cd "$T/d1" && emu run -q -t sub/t.csv --cluster 1x4 --out r.h5) || fail "run in d1"
    h5_config "$T/d1/r.h5" | grep -qx "trace = $T/d1/sub/t.csv" || { h5_config "$T/d1/r.h5" | grep '^trace'; fail "trace not stored absolute"; }
    ok "relative --trace stored as $T/d1/sub/t.csv"
    (cd "$T/d2" && emu run -q --config-from ../d1/r.h5 --out r2.h5) || fail "re-run from d2"
    same_jobs "$T/d1/r.h5" "$T/d2/r2.h5"
    # A config file's relative trace is relative to the file's folder, and stored absolute too.
    printf '[workload]\ntrace = sub/t.csv\n[cluster]\nnodes = 1\ngpus_per_node = 4\n' >"$T/d1/exp.ini"
    (cd "$T/d2" && emu run -q -c ../d1/exp.ini --out r3.h5) || fail "run with ../d1/exp.ini"
    real=$(readlink -f "$T/d1/sub/t.csv")
    h5_config "$T/d2/r3.h5" | grep -qx "trace = $real" || { h5_config "$T/d2/r3.h5" | grep '^trace'; fail "config-file trace not stored absolute"; }
    ok "config-file trace ../d1/sub/t.csv stored as $real"
    (cd / && emu run -q --config-from "$T/d2/r3.h5" --out "$T/d2/r4.h5") || fail "re-run from /"
    same_jobs "$T/d2/r3.h5" "$T/d2/r4.h5"
    same_jobs "$T/d1/r.h5" "$T/d2/r4.h5"
    ;;

provenance)
    t0=$(date -u +%s)
    run_ok a run -q --set workload.jobs=50 --out "$T/with space.h5" --set 'workload.gpu_mix=1:1'
    t1=$(date -u +%s)
    $PY - "$T/with space.h5" "$t0" "$t1" "$DIKE_EMU" "$(hostname)" <<'PY' || fail "provenance attributes"
import sys, h5py, calendar, time
f = h5py.File(sys.argv[1], "r")
a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
t0, t1, emu, host = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
ts = calendar.timegm(time.strptime(a["created_utc"], "%Y-%m-%dT%H:%M:%SZ"))
assert t0 <= ts <= t1, ("created_utc outside the run", a["created_utc"], t0, t1)
assert a["host"] == host, (a["host"], host)
want = "%s run -q --set workload.jobs=50 --out '%s' --set workload.gpu_mix=1:1" % (emu, sys.argv[1])
assert a["command_line"] == want, (a["command_line"], want)
assert a["campaign"] == "" and a["campaign_point"] == -1 and a["campaign_axes"] == "", a
assert a["compiler"].split()[0] in ("GNU", "Clang", "AppleClang", "IntelLLVM"), a["compiler"]
assert a["units_wall_seconds"] == "s"
print("created_utc %s, host %s, compiler %s" % (a["created_utc"], a["host"], a["compiler"]))
PY
    ok "created_utc within the run, host = $(hostname), command_line quoted, no campaign"
    # The libraries this binary runs with: the HDF5 of h5dump (same Debian package), Open MPI of mpirun.
    h5v=$(h5dump --version | sed -n 's/.*Version \([0-9.]*\).*/\1/p')
    [ "$(attr "$T/with space.h5" hdf5_version)" = "$h5v" ] || fail "hdf5_version '$(attr "$T/with space.h5" hdf5_version)', h5dump says $h5v"
    ok "hdf5_version = $h5v"
    mpiv=$(mpirun --version 2>/dev/null | sed -n '1s/.* \([0-9][0-9.]*\)$/\1/p')
    case "$(attr "$T/with space.h5" mpi_version)" in
        "Open MPI v$mpiv"*) ok "mpi_version starts with 'Open MPI v$mpiv'" ;;
        *) [ -z "$mpiv" ] && ok "mpirun not found: mpi_version not compared" || fail "mpi_version '$(attr "$T/with space.h5" mpi_version)', mpirun says $mpiv" ;;
    esac
    build=$(attr "$T/with space.h5" build)
    if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
        # `git describe` of the build: TAG-N-gHASH or HASH, maybe -dirty; HASH must be a commit of
        # this repository (not necessarily HEAD: a commit after the last build is allowed).
        h=${build%-dirty}
        h=${h##*-g}
        git -C "$SRC" rev-parse -q --verify "$h^{commit}" >/dev/null || fail "build '$build': '$h' is no commit here"
        ok "build = $build names commit $(git -C "$SRC" rev-parse --short "$h^{commit}") of this repository"
    else
        [ "$build" = unknown ] || fail "build '$build' outside a git checkout"
        ok "build = unknown outside a git checkout"
    fi

    # Campaign points carry their campaign, index and axes.
    cat >"$T/grid.ini" <<'EOF'
[campaign]
name = prov
out_dir = out
[workload]
jobs = 40
[sweep]
policy = fifo, sjf
seed = 3
EOF
    run_ok camp campaign "$T/grid.ini" -q
    n=0
    for f in "$T"/out/prov-*.h5; do
        $PY - "$f" <<'PY' || fail "campaign attributes of $f"
import sys, h5py
a = h5py.File(sys.argv[1], "r").attrs
i = int(a["campaign_point"])
assert a["campaign"] == "prov", a["campaign"]
pol = ["fifo", "sjf"][i]
assert a["campaign_axes"] == "scheduler.policy = %s\nrun.seed = 3\n" % pol, repr(a["campaign_axes"])
assert a["policy"] == pol and "campaign" in a["command_line"], (a["policy"], a["command_line"])
PY
        n=$((n + 1))
    done
    [ "$n" -eq 2 ] || fail "expected 2 campaign outputs, found $n"
    ok "both campaign points: campaign = prov, campaign_point = index, campaign_axes = their policy and seed"
    ;;

print_config)
    trace4 "$T/t.csv"
    run_ok p1 run -p dike --set dike.fairness_weight=0.25 -t t.csv --cluster 1x4 --out x.h5 --print-config
    [ ! -e "$T/x.h5" ] || fail "--print-config wrote the output"
    ok "--print-config writes no output"
    grep -qx "trace = $T/t.csv" "$T/p1.out" || fail "relative trace not printed absolute"
    grep -qx "fairness_weight = 0.25" "$T/p1.out" || fail "--set not in the printed config"
    ok "printed config holds the absolute trace and the --set value"
    # Every key of the reference, in its section.
    emu config-reference | awk -F'|' 'NR > 2 { gsub(/ /, "", $2); gsub(/ /, "", $3); print $2 "." $3 }' | sort >"$T/ref.keys"
    awk '/^\[/ { s = substr($0, 2, length($0) - 2); next } /=/ { k = $1; print s "." k }' "$T/p1.out" | sort >"$T/printed.keys"
    [ -s "$T/ref.keys" ] && cmp -s "$T/ref.keys" "$T/printed.keys" || { diff "$T/ref.keys" "$T/printed.keys" | head; fail "printed keys differ from config-reference"; }
    ok "every one of the $(wc -l <"$T/ref.keys") keys of config-reference printed"
    # Round trip: fed back as a config file (from another folder), printed again: identical.
    mkdir -p "$T/other"
    cp "$T/p1.out" "$T/other/p1.ini"
    (cd "$T/other" && emu run -c p1.ini --print-config) >"$T/p2.out" || fail "feeding the printed config back"
    cmp -s "$T/p1.out" "$T/p2.out" || { diff "$T/p1.out" "$T/p2.out"; fail "round trip changed the config"; }
    ok "print -> --config -> print is identical"
    # From an output: the stored config with run.out cleared.
    run_ok r run -q --set workload.jobs=30 --out "$T/r.h5"
    run_ok p3 run --config-from "$T/r.h5" --print-config
    grep -qx "out =" "$T/p3.out" && grep -qx "jobs = 30" "$T/p3.out" || fail "--config-from --print-config"
    ok "--config-from --print-config: stored keys, run.out empty"
    refused -F bad "[dike] fairness_weight" run --set dike.fairness_weight=2 --print-config
    ;;

dry_run)
    trace4 "$T/t.csv"
    mkdir "$T/out"
    run_ok d run --dry-run -t t.csv --cluster 1x4 -p sjf --out out/x.h5
    [ -z "$(ls -A "$T/out")" ] || fail "dry run created $(ls -A "$T/out")"
    ok "out/ still empty"
    grep -q "nothing run, nothing written" "$T/d.out" || fail "no dry-run banner"
    grep -q "^  policy *sjf" "$T/d.out" && grep -q "4 jobs, 3 tenants" "$T/d.out" && grep -q "1 nodes, 4 GPUs" "$T/d.out" \
        && grep -q "out/x.h5" "$T/d.out" || { show_file stdout "$T/d.out"; fail "plan incomplete"; }
    ok "plan: policy sjf, 4 jobs of 3 tenants on 1 node of 4 GPUs, output out/x.h5"
    # The checks a run makes before it starts: same messages, exit 2, nothing written.
    printf 'job_id,tenant,submit_time,num_gpus,duration\n1,a,0,8,10\n' >"$T/big.csv"
    refused -F big "8 GPUs requested" run --dry-run -t big.csv --cluster 1x4 --out out/y.h5
    refused -F nodir "cannot write output" run --dry-run --out "$T/missing/z.h5"
    refused -F weights "[tenants] weights" run --dry-run -t t.csv --cluster 1x4 --set tenants.weights=nobody:2 --out out/w.h5
    [ -z "$(ls -A "$T/out")" ] || fail "a failed dry run left $(ls -A "$T/out")"
    ok "failed dry runs left nothing"
    ;;

export)
    trace4 "$T/t.csv"
    run_ok run run -q -t t.csv --cluster 1x4 -p fifo --out f.h5
    run_ok ex export f.h5 --jobs jobs.csv --summary summary.json
    [ -z "$(find "$T" -name '*.tmp-*')" ] || fail "temporary files left"
    head -c 2000 "$T/jobs.csv" | od -c | grep -q '\\r  \\n' || fail "jobs.csv lines do not end with CRLF"
    ok "jobs.csv lines end with CRLF"
    $PY - "$T/jobs.csv" "$T/summary.json" <<'PY' || fail "export values"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
cols = ["job_id", "tenant", "tenant_index", "submission_time", "starting_time", "finish_time", "final_state",
        "num_gpus", "duration", "waiting_time", "execution_time", "run_time", "turnaround_time", "slowdown",
        "bounded_slowdown", "stretch", "t_ideal", "rho", "preemptions", "migrations", "restarts", "lost_work",
        "gpu_type", "allocated_nodes"]
assert list(rows[0].keys()) == cols, list(rows[0].keys())
assert all(r["allocated_nodes"] == "0" for r in rows), [r["allocated_nodes"] for r in rows]  # one node
# job: tenant, submit, start, finish, waiting, turnaround, slowdown, bounded slowdown, stretch
want = {"1": ("alice", 0, 0, 100, 0, 100, 1, 1, 1),
        "2": ("bob", 10, 100, 150, 90, 140, 2.8, 2.8, 2.8),
        "3": ("alice", 20, 100, 130, 80, 110, 110 / 30, 110 / 30, 110 / 30),
        "4": ("carol", 25, 130, 135, 105, 110, 22, 11, 22)}
assert [r["job_id"] for r in rows] == ["1", "2", "3", "4"]
for r in rows:
    w = want[r["job_id"]]
    got = (r["tenant"], float(r["submission_time"]), float(r["starting_time"]), float(r["finish_time"]),
           float(r["waiting_time"]), float(r["turnaround_time"]), float(r["slowdown"]),
           float(r["bounded_slowdown"]), float(r["stretch"]))
    assert got[0] == w[0] and all(abs(g - x) < 1e-9 for g, x in zip(got[1:], w[1:])), (r["job_id"], got, w)
    assert r["final_state"] == "COMPLETED" and r["gpu_type"] == "v100" and r["preemptions"] == "0", r
    assert float(r["execution_time"]) == float(r["run_time"]) == float(r["finish_time"]) - float(r["starting_time"])
s = json.load(open(sys.argv[2]))
j = s["jobs"]
assert (j["jobs"], j["started"], j["finished"]) == (4, 4, 4), j
near = lambda a, b: abs(a - b) < 1e-9
assert near(j["mean_waiting_time"], 275 / 4) and j["max_waiting_time"] == 105, j
assert near(j["mean_turnaround_time"], 115) and j["max_turnaround_time"] == 140, j
assert near(j["mean_slowdown"], (1 + 2.8 + 110 / 30 + 22) / 4) and j["max_slowdown"] == 22, j
assert near(j["mean_bounded_slowdown"], (1 + 2.8 + 110 / 30 + 11) / 4) and j["max_bounded_slowdown"] == 11, j
assert s["summary"]["jobs"] == 4 and near(s["summary"]["avg_jct"], 115), s["summary"]
assert s["units"]["avg_jct"] == "s" and s["units"]["wall_seconds"] == "s", s["units"]
assert s["run"]["policy"] == "fifo" and s["run"]["campaign_point"] == -1, s["run"]
assert [t["name"] for t in s["tenants"]] == ["alice", "bob", "carol"], s["tenants"]
assert [t["jobs"] for t in s["tenants"]] == [2, 1, 1]
assert not any(k.startswith("units") for k in list(s["summary"]) + list(s["run"]))
print("hand-computed values match")
PY
    ok "jobs.csv: every column, values worked out by hand; summary.json: aggregates, units, tenants"

    # allocated_nodes in Batsim's interval notation: on 4 nodes of 2 GPUs (pack), job 1 (2 GPUs)
    # takes node 0 and job 2 (6 GPUs, while job 1 runs) the three others: "1-3".
    printf 'job_id,tenant,submit_time,num_gpus,duration\n1,a,0,2,100\n2,b,1,6,50\n' >"$T/t2.csv"
    run_ok run2 run -q -t t2.csv --cluster 4x2 -p fifo --out f2.h5
    run_ok ex2 export f2.h5 --jobs -
    [ "$(cut -d, -f24 "$T/ex2.out" | tr -d '\r' | tr '\n' ' ')" = "allocated_nodes 0 1-3 " ] ||
        { show_file stdout "$T/ex2.out"; fail "allocated_nodes: expected 0 and 1-3"; }
    ok "allocated_nodes: 0 and 1-3 (interval notation)"

    # Hostile tenant names (comma, quotes, line break): written by h5py into a copy of the file.
    cp "$T/f.h5" "$T/h.h5"
    $PY - "$T/h.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    t = f["tenants"][:]
    t["name"][0], t["name"][1], t["name"][2] = b'a,b', b'say "hi"', b'two\nlines'
    f["tenants"][:] = t
PY
    run_ok exh export h.h5 --jobs - --summary hs.json
    grep -qF '2,"say ""hi""",1,' "$T/exh.out" || { show_file stdout "$T/exh.out"; fail "quotes not doubled inside a quoted field"; }
    grep -qF '1,"a,b",0,' "$T/exh.out" || fail "comma field not quoted"
    ok "RFC 4180 quoting: \"a,b\", \"say \"\"hi\"\"\""
    $PY - "$T/exh.out" "$T/hs.json" <<'PY' || fail "quoted CSV does not parse back"
import csv, io, json, sys
rows = list(csv.DictReader(io.open(sys.argv[1], newline="")))
assert [r["tenant"] for r in rows] == ["a,b", 'say "hi"', "a,b", "two\nlines"], [r["tenant"] for r in rows]
assert [t["name"] for t in json.load(open(sys.argv[2]))["tenants"]] == ["a,b", 'say "hi"', "two\nlines"]
PY
    ok "csv.DictReader and json.load give the names back exactly"

    # Errors: one message, exit 2, no file.
    refused -F missing "missing.h5" export missing.h5 --jobs j2.csv
    refused -F nothdf5 "not an HDF5 file" export t.csv --jobs j2.csv
    refused -F same "is the output file being exported" export f.h5 --jobs f.h5
    refused -F none "nothing to write" export f.h5
    cp "$T/f.h5" "$T/g.h5"
    $PY -c 'import h5py, sys; h5py.File(sys.argv[1], "r+").attrs.__delitem__("schema_version")' "$T/g.h5"
    refused -F incomplete "not a complete dike-emu output" export g.h5 --jobs j2.csv --summary j2.json
    [ ! -e "$T/j2.csv" ] && [ ! -e "$T/j2.json" ] || fail "a failed export left a file"
    ok "failed exports left no file"
    ;;

compare)
    trace4 "$T/t.csv"
    run_ok f run -q -t t.csv --cluster 1x4 -p fifo --out f.h5
    # sjf at 100 s: job 4 (5 s), job 3 (30 s) start; job 2 waits for job 4: 105..155.
    run_ok s run -q -t t.csv --cluster 1x4 -p sjf --out s.h5
    $PY "$SRC/analysis/compare.py" f.h5 s.h5 --top 1 --json c.json --jobs-csv c.csv >"$T/c.out" || fail "compare.py"
    $PY - "$T/c.json" "$T/c.csv" <<'PY' || { cat "$T/c.out"; fail "compare values"; }
import csv, json, sys
c = json.load(open(sys.argv[1]))
assert c["workload_differs"] == [], c["workload_differs"]
j = c["jobs"]
assert (j["matched"], j["sooner"], j["later"], j["same"]) == (4, 1, 1, 2), j
assert j["mean_jct_delta"] == -6.25 and j["median_jct_delta"] == 0, j
assert [g["job_id"] for g in c["gained_most"]] == [4] and c["gained_most"][0]["jct_delta"] == -30
assert [g["job_id"] for g in c["lost_most"]] == [2] and c["lost_most"][0]["jct_delta"] == 5
t = {r["tenant"]: r for r in c["tenants"]}
assert t["alice"]["avg_jct_delta"] == 0 and t["bob"]["avg_jct_delta"] == 5 and t["carol"]["avg_jct_delta"] == -30, t
assert c["summary"]["avg_jct"]["delta"] == -6.25, c["summary"]["avg_jct"]
rows = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[2], newline=""))}
assert float(rows["4"]["a_jct"]) == 110 and float(rows["4"]["b_jct"]) == 80 and float(rows["2"]["b_queue_delay"]) == 95
print("hand-computed deltas match")
PY
    ok "compare: job 4 gained 30 s, job 2 lost 5 s, tenants alice 0 / bob +5 / carol -30, mean -6.25 s"
    grep -q "gained most" "$T/c.out" && grep -q "lost most" "$T/c.out" || fail "no gained/lost tables printed"
    ok "printed: gained most / lost most"
    # Another workload is named in a note; a file that is not an output is an error (exit 1).
    run_ok o run -q -t t.csv --cluster 2x4 -p sjf --out o.h5
    $PY "$SRC/analysis/compare.py" f.h5 o.h5 >"$T/o.out" || fail "compare.py f.h5 o.h5"
    grep -q "note: the workloads differ (cluster.nodes)" "$T/o.out" || { cat "$T/o.out"; fail "no note on the differing workload"; }
    ok "differing workload noted (cluster.nodes)"
    ! grep -q "emulator sources\|across builds" "$T/o.out" || fail "a code note for runs of one binary"
    # Runs of other emulator sources, and one continued across builds, are named in notes.
    cp "$T/s.h5" "$T/s2.h5"
    $PY "$SRC/tests/lib/h5_set_attrs.py" "$T/s2.h5" build=v0.0.9-old source_sha256=abababababababababababababababababababababababababababababababab \
        builds=v0.0.8,v0.0.9-old
    $PY "$SRC/analysis/compare.py" f.h5 s2.h5 --json c2.json >"$T/s2.out" || fail "compare.py f.h5 s2.h5"
    grep -q "^note: the runs were computed by different emulator sources (A: build .*, source .*; B: build v0.0.9-old, source abababababab...)" "$T/s2.out" &&
        grep -q "^note: run B was continued across builds (v0.0.8,v0.0.9-old)" "$T/s2.out" ||
        { cat "$T/s2.out"; fail "no notes on the emulator code"; }
    [ "$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["code_notes"]))' c2.json)" = 2 ] ||
        fail "code_notes in the JSON"
    ok "other emulator sources and a run continued across builds noted (text and JSON)"
    rc=0
    $PY "$SRC/analysis/compare.py" f.h5 t.csv >/dev/null 2>"$T/bad.err" || rc=$?
    [ "$rc" -eq 1 ] && grep -q "t.csv" "$T/bad.err" || fail "compare.py on a CSV: exit $rc"
    ok "compare.py on a non-output: exit 1, $(cat "$T/bad.err")"
    ;;

schema_doc)
    # Node failures, so that restarts and lost_work hold values; a 2-rank campaign is not needed:
    # the layout does not depend on ranks.
    run_ok run run -q -p dike --set workload.jobs=300 --set faults.mtbf_s=200000 --out "$T/f.h5"
    $PY "$SRC/tests/cli/schema_doc.py" --check "$SRC/docs/output-schema.md" "$T/f.h5" || fail "docs/output-schema.md and the file differ"
    ok "docs/output-schema.md = the file's layout (both ways), units of every column and attribute"
    $PY -c 'import h5py, sys; a = h5py.File(sys.argv[1], "r")["summary"].attrs; assert a["restarts"] > 0 and a["lost_work"] > 0 and a["goodput"] < 1, dict(a)' "$T/f.h5" \
        || fail "no failure effects in the run"
    ok "restarts > 0, lost_work > 0, goodput < 1 in the checked file"
    # The optional objects ("only with ..." in the doc): the emulating mode's /node_timeseries and
    # a metrics window's /summary/window are checked too when a file has them.
    run_ok opt run -q -p fifo --set workload.jobs=300 --set node_model.interference=0.1 \
        --set output.node_timeseries_s=3600 --out "$T/o.h5"
    $PY "$SRC/tests/cli/schema_doc.py" --check "$SRC/docs/output-schema.md" "$T/o.h5" || fail "docs/output-schema.md and the emulating mode's file differ"
    $PY -c 'import h5py, sys; assert "node_timeseries" in h5py.File(sys.argv[1], "r")' "$T/o.h5" || fail "no /node_timeseries"
    ok "docs/output-schema.md = the layout of a file with /node_timeseries (both ways)"
    ;;

*)
    fail "unknown case '$case_'"
    ;;
esac
