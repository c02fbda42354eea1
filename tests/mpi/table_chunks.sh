#!/bin/bash
# Rank 0's tables deflated by every rank (src/io/h5chunks.c): on more than one rank the chunks of
# /jobs are shuffled and deflated by all ranks and stored with H5Dwrite_chunk; on one rank HDF5's
# own filters do it. 150,000 jobs make /jobs 71 chunks of 2,114 rows (124-byte rows, 256 KiB
# chunks), the last one 2,020 rows: two passes of write_filtered (64 chunks each) and, on 3 ranks,
# two batches of 48 in the first. Whatever the rank count, the data read back are the same, the
# dataset carries the shuffle and deflate (level 1) filters, and the stored size is the same to the
# byte: the chunks hold what HDF5's own filters make.
#
#   table_chunks.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_table_chunks
cd "$T"

RUN=(run -q -p fifo --set workload.jobs=150000 --set cluster.nodes=1000 --set workload.load=0.9)
for np in 1 2 3; do
    emu_mpi "$np" "${RUN[@]}" --out "r$np.h5" >"out$np" 2>"err$np" ||
        { show_file stderr "err$np"; fail "$np ranks: the run failed"; }
done
for np in 2 3; do
    for d in /jobs /tenants /timeseries /job_nodes; do
        h5_same r1.h5 "r$np.h5" "$d" || fail "$d of $np ranks differs from 1 rank"
    done
done
ok "/jobs, /tenants, /timeseries and /job_nodes identical on 1, 2 and 3 ranks"
for np in 1 2 3; do
    h5dump -p -H -d /jobs "r$np.h5" >"dump$np" || fail "h5dump of r$np.h5"
    grep -q "CHUNKED ( 2114 )" "dump$np" || { show_file h5dump "dump$np"; fail "$np ranks: /jobs is not in chunks of 2,114 rows"; }
    grep -q "PREPROCESSING SHUFFLE" "dump$np" && grep -q "COMPRESSION DEFLATE { LEVEL 1 }" "dump$np" ||
        { show_file h5dump "dump$np"; fail "$np ranks: /jobs lacks the shuffle and deflate filters"; }
    grep -o "SIZE [0-9]* (" "dump$np" >"size$np"
done
[ -s size1 ] || fail "no stored size in the dump of r1.h5"
cmp -s size1 size2 && cmp -s size1 size3 ||
    fail "stored sizes differ: $(cat size1) / $(cat size2) / $(cat size3)"
ok "/jobs chunked by 2,114 rows, shuffle + deflate 1, stored in $(cut -d' ' -f2 size1) bytes on 1, 2 and 3 ranks"
dike_tmp_cleanup
