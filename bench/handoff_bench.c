/* The floor of one emulating-mode window's synchronisation on this machine, without the engine.
 *
 * A window of the emulating mode (src/engine/emulate.c) exchanges three fixed-size blocks: an
 * MPI_Alltoall of factor records between the owner and home steps, an MPI_Gather of reports to
 * rank 0 and an MPI_Scatter of actions from it. This program times ROUNDS such windows with no
 * work between them, two ways:
 *   mpi  the three collectives, with the blocks' real sizes (src/engine/emulate_blocks.h);
 *   shm  the same three exchanges through one MPI-3 shared-memory window (MPI_Win_allocate_shared)
 *        with a sequence counter per rank and phase, written with release and read with acquire
 *        semantics: each handoff is a cache line moving between cores and nothing else.
 * The second is what any hand-made exchange inside one node could reach; the difference between
 * the two bounds what replacing the collectives could save per window (docs/scaling.md, "What one
 * window's synchronisation costs"). The shm variant needs every rank on one node.
 *
 *   mpirun -np P dike-handoff-bench [ROUNDS] */
#include <mpi.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/emulate_blocks.h"

/* the engine's own blocks (src/engine/emulate_blocks.h) */
static const size_t REC_B = sizeof(rec_block);
static const size_t UP_B = sizeof(up_block);
static const size_t DOWN_B = sizeof(down_block);

typedef struct seq {
    _Alignas(64) atomic_long v;
} seq;

/* Spin until the counter reaches @p want; yield now and then, so that more ranks than cores
 * (mpirun --oversubscribe) still make progress. */
static void wait_for(seq *s, long want)
{
    for (unsigned spins = 0; atomic_load_explicit(&s->v, memory_order_acquire) < want;)
        if (++spins % 1024 == 0)
            sched_yield();
}

/* One window's three phases, from the four clock readings around them. */
static void account(double t[3], double a, double b, double c, double d)
{
    t[0] += b - a;
    t[1] += c - b;
    t[2] += d - c;
}

static double run_mpi(int rounds, int rank, int np, double t[3])
{
    char *xs = calloc((size_t)np, REC_B), *xr = calloc((size_t)np, REC_B);
    char *up = calloc(1, UP_B), *up_all = calloc((size_t)np, UP_B);
    char *down = calloc(1, DOWN_B), *down_all = calloc((size_t)np, DOWN_B);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = -100; i < rounds; i++) { /* 100 warm-up rounds */
        if (i == 0) {
            start = MPI_Wtime();
            t[0] = t[1] = t[2] = 0;
        }
        double a = MPI_Wtime();
        MPI_Alltoall(xs, (int)REC_B, MPI_BYTE, xr, (int)REC_B, MPI_BYTE, MPI_COMM_WORLD);
        double b = MPI_Wtime();
        MPI_Gather(up, (int)UP_B, MPI_BYTE, up_all, (int)UP_B, MPI_BYTE, 0, MPI_COMM_WORLD);
        double c = MPI_Wtime();
        MPI_Scatter(down_all, (int)DOWN_B, MPI_BYTE, down, (int)DOWN_B, MPI_BYTE, 0, MPI_COMM_WORLD);
        double d = MPI_Wtime();
        account(t, a, b, c, d);
    }
    double total = MPI_Wtime() - start;
    free(xs);
    free(xr);
    free(up);
    free(up_all);
    free(down);
    free(down_all);
    return total;
}

/* One shared segment (allocated by rank 0): three counters per rank (records written, report
 * written, actions written), then the blocks: records [from][to], reports [from], actions [to].
 * Each phase copies one block's first cache line, as a window with a record or two would. The
 * gather and scatter that follow each exchange order every reuse of a block (a rank writes the
 * next window's blocks only after rank 0 has read this window's), as in emulate.c. */
static double run_shm(int rounds, int rank, int np, double t[3])
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int nnode;
    MPI_Comm_size(node, &nnode);
    if (nnode != np) {
        if (rank == 0)
            printf("shm: skipped, the ranks are on more than one node\n");
        MPI_Comm_free(&node);
        return -1;
    }
    size_t nr = (size_t)np, flags = 3 * nr * sizeof(seq);
    size_t size = flags + nr * nr * REC_B + nr * UP_B + nr * DOWN_B;
    char *base;
    MPI_Win win;
    MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)size : 0, 64, MPI_INFO_NULL, node, &base, &win);
    MPI_Aint qsize;
    int qdisp;
    MPI_Win_shared_query(win, 0, &qsize, &qdisp, &base);
    if (rank == 0)
        memset(base, 0, size);
    MPI_Barrier(node);
    seq *rec_seq = (seq *)base, *rep_seq = rec_seq + nr, *act_seq = rep_seq + nr;
    char *recs = base + flags, *reps = recs + nr * nr * REC_B, *acts = reps + nr * UP_B;
    char line[64] = {0};
    double start = MPI_Wtime();
    for (long w = 1; w <= rounds + 100; w++) { /* 100 warm-up rounds */
        if (w == 101) {
            start = MPI_Wtime();
            t[0] = t[1] = t[2] = 0;
        }
        double a = MPI_Wtime();
        for (size_t d = 0; d < nr; d++)
            memcpy(recs + ((size_t)rank * nr + d) * REC_B, line, sizeof line);
        atomic_store_explicit(&rec_seq[rank].v, w, memory_order_release);
        for (int s = 0; s < np; s++)
            if (s != rank) {
                wait_for(&rec_seq[s], w);
                memcpy(line, recs + ((size_t)s * nr + (size_t)rank) * REC_B, sizeof line);
            }
        double b = MPI_Wtime();
        memcpy(reps + (size_t)rank * UP_B, line, sizeof line);
        atomic_store_explicit(&rep_seq[rank].v, w, memory_order_release);
        if (rank == 0)
            for (int s = 1; s < np; s++) {
                wait_for(&rep_seq[s], w);
                memcpy(line, reps + (size_t)s * UP_B, sizeof line);
            }
        double c = MPI_Wtime();
        if (rank == 0) {
            for (size_t d = 0; d < nr; d++)
                memcpy(acts + d * DOWN_B, line, sizeof line);
            atomic_store_explicit(&act_seq[0].v, w, memory_order_release);
        } else {
            wait_for(&act_seq[0], w);
            memcpy(line, acts + (size_t)rank * DOWN_B, sizeof line);
        }
        double d = MPI_Wtime();
        account(t, a, b, c, d);
    }
    double total = MPI_Wtime() - start;
    MPI_Barrier(node);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    return total;
}

static void print(const char *name, int rank, int np, int rounds, double total, const double t[3])
{
    double all[4] = {total, t[0], t[1], t[2]}, max[4];
    MPI_Reduce(all, max, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-4s %d ranks, %d windows: %.2f us per window (slowest rank's time in the records "
               "%.2f, reports %.2f, actions %.2f us)\n",
               name, np, rounds, 1e6 * max[0] / rounds, 1e6 * max[1] / rounds, 1e6 * max[2] / rounds,
               1e6 * max[3] / rounds);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int rounds = argc > 1 ? atoi(argv[1]) : 200000;
    if (rounds < 1)
        rounds = 1;
    double t[3];
    double total = run_mpi(rounds, rank, np, t);
    print("mpi", rank, np, rounds, total, t);
    total = run_shm(rounds, rank, np, t);
    if (total >= 0)
        print("shm", rank, np, rounds, total, t);
    MPI_Finalize();
    return 0;
}
