/* Cost of one window round of the engine's protocol, without the engine: MPI_Scatter of the
 * per-rank header, MPI_Scatterv of the actions (A actions of 32 bytes per node rank), MPI_Gather +
 * MPI_Gatherv of node reports (R bytes per rank) and the MPI_Allreduce of the next horizon.
 * Prints microseconds per round for the given sizes; docs/scaling.md uses these constants.
 *
 *   mpirun -np P dike-window-bench [ROUNDS] [ACTIONS_PER_RANK] [REPORT_BYTES_PER_RANK] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int rounds = argc > 1 ? atoi(argv[1]) : 20000;
    int acts = argc > 2 ? atoi(argv[2]) : 0;
    int rep = argc > 3 ? atoi(argv[3]) : 0;
    const int asz = 32;
    int *hdr = calloc((size_t)np * 2, sizeof *hdr), *counts = calloc((size_t)np, sizeof *counts);
    int *displs = calloc((size_t)np, sizeof *displs), *rc = calloc((size_t)np, sizeof *rc);
    int *rd = calloc((size_t)np, sizeof *rd);
    char *send = calloc((size_t)np * (size_t)(acts + 1), asz), *recv = calloc((size_t)acts + 1, asz);
    char *rbuf = calloc((size_t)rep + 1, 1), *rall = calloc((size_t)np * (size_t)(rep + 1), 1);
    for (int r = 0; r < np; r++) {
        counts[r] = acts * asz;
        displs[r] = r * acts * asz;
        hdr[2 * r] = acts;
        hdr[2 * r + 1] = rep > 0;
    }
    double t[4] = {0};
    for (int i = -100; i < rounds; i++) { /* 100 warm-up rounds */
        int mine[2];
        double t0 = MPI_Wtime();
        MPI_Scatter(hdr, 2, MPI_INT, mine, 2, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Scatterv(send, counts, displs, MPI_BYTE, recv, mine[0] * asz, MPI_BYTE, 0, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (mine[1]) {
            int len = rep, total = 0;
            MPI_Gather(&len, 1, MPI_INT, rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (rank == 0)
                for (int r = 0; r < np; r++) {
                    rd[r] = total;
                    total += rc[r];
                }
            MPI_Gatherv(rbuf, len, MPI_BYTE, rall, rc, rd, MPI_BYTE, 0, MPI_COMM_WORLD);
        }
        double t2 = MPI_Wtime();
        int64_t in[2] = {i, rank == 0 ? -1 : 0}, out[2];
        MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
        double t3 = MPI_Wtime();
        if (i >= 0) {
            t[0] += t1 - t0;
            t[1] += t2 - t1;
            t[2] += t3 - t2;
            t[3] += t3 - t0;
        }
    }
    double mx[4];
    MPI_Reduce(t, mx, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d  actions/rank %d  report B/rank %d  us/round: scatter %.2f  gather %.2f  allreduce %.2f  total %.2f\n",
               np, acts, rep, 1e6 * mx[0] / rounds, 1e6 * mx[1] / rounds, 1e6 * mx[2] / rounds,
               1e6 * mx[3] / rounds);
    free(hdr); free(counts); free(displs); free(rc); free(rd); free(send); free(recv); free(rbuf); free(rall);
    MPI_Finalize();
    return 0;
}
