#!/bin/bash
# output.window_bound (docs/scaling.md §5, "What the windows allow"): one 1-rank run of the
# emulating mode predicts what its windows would cost on P ranks if communication were free.
#  1. it changes nothing the run computes: /jobs /tenants /timeseries /nodes identical to the run
#     without it;
#  2. the table has the rows the layout gives (`auto`: P ranks, P blocks; with
#     engine.coordinator_owns_nodes = false, 3 ranks: 2 blocks, 4 ranks: 3 blocks, ...), and each row's owner and home parts lie
#     between the perfect split (1 rank's / blocks) and 1 rank's: a window's largest block does no
#     more than all of them and no less than their average;
#  3. with 2 ranks, or in the predicting mode, it is refused with one message.
#
#   window_bound.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_window_bound
cd "$T"
W=(-p fifo --set workload.jobs=20000 --set workload.load=1.0 --set workload.duration_max_s=86400
   --set cluster.nodes=256 --set cluster.nodes_per_rack=8 --set scheduler.decision_latency_s=1
   --set node_model.interference=0.1 --set node_model.network=rack --set node_model.slowdown_mtbf_s=86400)
run_ok plain run -q "${W[@]}" --out plain.h5
run_ok bound run "${W[@]}" --set output.window_bound=true --out bound.h5
same_objects plain.h5 bound.h5 "with the window bound = without" /jobs /tenants /timeseries /nodes
contains "$T/bound.out" "window bound (output.window_bound"
# the rows: ranks blocks owner_s home_s coord_s bound_s speedup heaviest_s rebal_s rebal_x
rows=$(awk '/window bound/ { on = 1; next } on && /ranks +blocks/ { next } on && NF == 10 { print } on && NF != 10 { on = 0 }' "$T/bound.out")
[ -n "$rows" ] || { show_file stdout "$T/bound.out"; fail "no rows in the window bound table"; }
echo "$rows"
got=$(echo "$rows" | awk '{ printf "%s:%s ", $1, $2 }')
# 32 racks: in the emulating mode the coordinator owns a block under `auto`, so P ranks have P
# blocks, up to one rack each
[ "$got" = "1:1 2:2 3:3 4:4 8:8 16:16 32:32 " ] || fail "rows (ranks:blocks) $got"
ok "rows for 2, 3, 4, 8, 16 and 32 ranks (the last: one rack per block)"
# with engine.coordinator_owns_nodes = false: P ranks, P - 1 blocks
run_ok free run "${W[@]}" --set output.window_bound=true --set engine.coordinator_owns_nodes=false --out free.h5
got=$(awk '/window bound/ { on = 1; next } on && /ranks +blocks/ { next } on && NF == 10 { printf "%s:%s ", $1, $2 } on && NF != 10 { on = 0 }' "$T/free.out")
[ "$got" = "1:1 2:1 3:2 4:3 8:7 16:15 32:31 33:32 " ] || fail "coordinator_owns_nodes=false: rows (ranks:blocks) $got"
ok "coordinator_owns_nodes=false: rows for 2, 3, 4, 8, 16, 32 and 33 ranks (P - 1 blocks)"
echo "$rows" | awk 'NR == 1 { o1 = $3; h1 = $4; next }
    { eps = 0.0015; # the table prints milliseconds
      if ($3 > o1 + eps || $3 < o1 / $2 - eps || $4 > h1 + eps || $4 < h1 / $2 - eps) {
          print "ranks " $1 ": owner " $3 " home " $4 " outside [1 rank / blocks, 1 rank] = [" o1 / $2 ", " o1 "], [" h1 / $2 ", " h1 "]"; bad = 1 } }
    END { exit bad }' || fail "a row outside its bounds"
ok "every row between the perfect split and one rank"
# the recut blocks cannot beat the perfect split either: rebal_s >= (owner + home) / blocks + coord
echo "$rows" | awk 'NR == 1 { n1 = $3 + $4; next }
    { if ($9 < n1 / $2 + $5 - 0.0015) { print "ranks " $1 ": rebalanced " $9 " below " n1 / $2 + $5; bad = 1 } }
    END { exit bad }' || fail "a rebalanced bound below the perfect split"
ok "every rebalanced bound at or above the perfect split"
rc=0
emu_mpi 2 run -q "${W[@]}" --set output.window_bound=true --out two.h5 >two.out 2>two.err || rc=$?
[ "$rc" != 0 ] || fail "2 ranks: window_bound accepted"
[ "$(grep -c '^dike-emu:' two.err)" = 1 ] || { show_file stderr two.err; fail "2 ranks: not one message"; }
grep -q 'window_bound: needs 1 rank' two.err || { show_file stderr two.err; fail "2 ranks: message"; }
[ ! -e two.h5 ] || fail "2 ranks: an output file was left"
ok "2 ranks: refused, $(grep '^dike-emu:' two.err)"
refused -F "the predicting mode" "window_bound: needs the emulating mode" run -q -p fifo \
    --set workload.jobs=100 --set output.window_bound=true --out out.h5
