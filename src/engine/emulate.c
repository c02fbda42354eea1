/* Conservative windows with lookahead (emulating mode).
 *
 * Every cross-rank change of a job's speed stems from a start or a stop, which take effect
 * L = scheduler.decision_latency_s after the decision, or from node events each owner draws ahead
 * (slowdown episodes, failures). So with T the global next event, nothing decided in [T, T + L)
 * can change what happens on the nodes before T + L, and one window is:
 *
 *   1. owners apply the actions and node events of [T, E), E = T + max(L, 1 us), and send each
 *      changed slice factor to the gang's home (MPI_Alltoall + MPI_Alltoallv, only in windows
 *      where some rank hosts a slice of a gang whose home is another rank);
 *   2. homes integrate their jobs' progress over [T, E) and find the completions;
 *   3. completions, stops and failures go to rank 0 (MPI_Gather + MPI_Gatherv), with each rank's
 *      next event time; rank 0 runs its events of [T, E) and decides (actions take effect >= E);
 *   4. the actions go to their owners (MPI_Scatter + MPI_Scatterv), with the next T (the earliest
 *      action, node event, completion or coordinator event anywhere) and the flags (done, stop,
 *      records between ranks next time), so no separate MPI_Allreduce is needed.
 *
 * The schedule of windows depends only on global event times, never on the partition, and each
 * rank's work within a window is a function of its nodes alone, so results do not depend on the
 * number of ranks. With L = 0 a window is one timestamp: the decision's actions apply at T, after
 * the node events of T, in the next window (same T). */
#include "engine/emulate.h"

#include <stdlib.h>
#include <string.h>

#include "dike/run.h"

#define CHECK_MPI(call)                                                                            \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            dike_fatal("MPI call failed (%d): %s", rc_, #call);                                    \
    } while (0)

static MPI_Datatype bytes_type(size_t n)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous((int)n, MPI_BYTE, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

/* Rank 0's actions by owner (stable: each owner gets them in decision order). */
static void bucket(const dike_part_layout *l, const dike_nact *a, size_t n, dike_nact *out,
                   int *counts, int *displs)
{
    memset(counts, 0, (size_t)l->nranks * sizeof *counts);
    for (size_t i = 0; i < n; i++)
        counts[dike_part_owner(l, a[i].node)]++;
    int off = 0;
    for (int r = 0; r < l->nranks; r++) {
        displs[r] = off;
        off += counts[r];
    }
    int *pos = dike_xmalloc((size_t)l->nranks * sizeof *pos);
    memcpy(pos, displs, (size_t)l->nranks * sizeof *pos);
    for (size_t i = 0; i < n; i++)
        out[pos[dike_part_owner(l, a[i].node)]++] = a[i];
    free(pos);
}

int dike_emulate_loop(MPI_Comm comm, dike_sched *s, dike_part *p, dike_nodes *ns,
                      const dike_part_layout *l, dike_time latency_us, const dike_window_opts *o,
                      dike_perf_record *perf, dike_err *e)
{
    int status = 0, rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    MPI_Datatype act_t = bytes_type(sizeof(dike_nact)), rec_t = bytes_type(sizeof(dike_jrec)),
                 rep_t = bytes_type(sizeof(dike_nrep));
    size_t nr = (size_t)nranks;
    int *c1 = dike_xcalloc(nr, sizeof(int)), *d1 = dike_xcalloc(nr, sizeof(int));
    int *c2 = dike_xcalloc(nr, sizeof(int)), *d2 = dike_xcalloc(nr, sizeof(int));
    int64_t *up = dike_xcalloc(4 * nr, sizeof(int64_t));   /* gathered: per rank 4 values */
    int64_t *down = dike_xcalloc(4 * nr, sizeof(int64_t)); /* scattered: per rank 4 values */
    dike_nact *sorted = NULL, *recv = NULL;
    size_t sorted_cap = 0, recv_cap = 0;
    dike_jrec *rin = NULL;
    size_t rin_cap = 0;
    dike_nrep *rall = NULL;
    size_t rall_cap = 0;
    double t_start = MPI_Wtime(), t_comm = 0, t_node = 0, t0;
    dike_time step = latency_us > 0 ? latency_us : 1;

    /* The first window: the earliest thing to do anywhere (later ones come with the actions). */
    int64_t in[3], out[3];
    in[0] = dike_nodes_next_time(ns);
    if (rank == 0 && dike_coord_next_time(s) < in[0])
        in[0] = dike_coord_next_time(s);
    in[1] = (rank == 0 && !dike_coord_done(s)) ? -1 : 0;
    in[2] = dike_stop_requested ? -1 : 0;
    t0 = MPI_Wtime();
    CHECK_MPI(MPI_Allreduce(in, out, 3, MPI_INT64_T, MPI_MIN, comm));
    t_comm += MPI_Wtime() - t0;
    dike_time T = out[0];
    int running = out[1] != 0, stop = out[2] != 0, remote = 0;

    while (running) {
        if (stop) {
            status = dike_err_set(e, DIKE_ESTOPPED, "stopped on request; the emulating mode "
                                  "(node_model.*) writes no checkpoint, the run must start again");
            break;
        }
        if (T == DIKE_TIME_INF)
            dike_fatal("policy %s left jobs that can never start", rank == 0 ? s->pol->name : "?");
        dike_time E = T > DIKE_TIME_INF - step ? DIKE_TIME_INF : T + step;
        perf->windows++;
        if (rank == o->inject_fatal_rank)
            dike_fatal("injected failure (engine.inject_fatal_rank = %d)", rank);

        /* 1. owners: actions and node events of the window; factor records to the homes */
        t0 = MPI_Wtime();
        dike_nodes_owner_advance(ns, E);
        const dike_jrec *ob = dike_nodes_outbox(ns, c1, d1);
        t_node += MPI_Wtime() - t0;
        size_t nin = 0;
        if (remote) {
            t0 = MPI_Wtime();
            CHECK_MPI(MPI_Alltoall(c1, 1, MPI_INT, c2, 1, MPI_INT, comm));
            int off = 0;
            for (int r = 0; r < nranks; r++) {
                d2[r] = off;
                off += c2[r];
                if (r != rank && c1[r]) {
                    perf->remote_records += (uint64_t)c1[r];
                    perf->messages++;
                    perf->bytes_sent += (uint64_t)c1[r] * sizeof(dike_jrec);
                }
            }
            nin = (size_t)off;
            if (nin > rin_cap) {
                rin_cap = 2 * nin;
                rin = dike_xrealloc(rin, rin_cap * sizeof *rin);
            }
            CHECK_MPI(MPI_Alltoallv(ob, c1, d1, rec_t, rin, c2, d2, rec_t, comm));
            t_comm += MPI_Wtime() - t0;
        } else {
            for (int r = 0; r < nranks; r++)
                if (c1[r])
                    dike_fatal("%d factor records for rank %d in a window without records between "
                               "ranks", c1[r], r);
        }

        /* 2. homes: progress over the window */
        t0 = MPI_Wtime();
        dike_nodes_home_advance(ns, rin, nin, E);
        int64_t mine[4];
        mine[1] = dike_nodes_next_time(ns);
        mine[2] = dike_nodes_may_send_remote(ns);
        t_node += MPI_Wtime() - t0;

        /* 3. reports and next times to rank 0, which runs its events of the window */
        size_t nrep;
        const dike_nrep *reps = dike_nodes_reports(ns, &nrep);
        mine[0] = (int64_t)nrep;
        mine[3] = dike_stop_requested;
        t0 = MPI_Wtime();
        CHECK_MPI(MPI_Gather(mine, 4, MPI_INT64_T, up, 4, MPI_INT64_T, 0, comm));
        size_t total = 0;
        if (rank == 0)
            for (int r = 0; r < nranks; r++) {
                c2[r] = (int)up[4 * r];
                d2[r] = (int)total;
                total += (size_t)c2[r];
            }
        if (rank == 0 && total > rall_cap) {
            rall_cap = 2 * total;
            rall = dike_xrealloc(rall, rall_cap * sizeof *rall);
        }
        CHECK_MPI(MPI_Gatherv(reps, (int)nrep, rep_t, rall, c2, d2, rep_t, 0, comm));
        t_comm += MPI_Wtime() - t0;
        if (rank > 0) {
            perf->messages++;
            perf->bytes_sent += sizeof mine + nrep * sizeof(dike_nrep);
        }
        dike_nodes_clear_reports(ns);
        if (rank == 0) {
            for (size_t i = 0; i < total; i++)
                dike_coord_report(s, &rall[i]);
            dike_coord_run(s, E, SIZE_MAX);
            if (s->neact > sorted_cap) {
                sorted_cap = 2 * s->neact;
                sorted = dike_xrealloc(sorted, sorted_cap * sizeof *sorted);
            }
            bucket(l, s->eact, s->neact, sorted, c1, d1);
            /* the next window: the earliest node-side time, new action or coordinator event */
            int64_t next = dike_coord_next_time(s), any_remote = 0, any_stop = 0;
            for (int r = 0; r < nranks; r++) {
                if (up[4 * r + 1] < next)
                    next = up[4 * r + 1];
                any_remote |= up[4 * r + 2];
                any_stop |= up[4 * r + 3];
            }
            for (size_t i = 0; i < s->neact; i++) {
                if (s->eact[i].time < next)
                    next = s->eact[i].time;
                if (s->eact[i].kind == DIKE_ACT_START &&
                    dike_part_owner(l, s->eact[i].node) != dike_part_owner(l, s->eact[i].home_node))
                    any_remote = 1;
            }
            for (int r = 0; r < nranks; r++) {
                down[4 * r] = c1[r];
                down[4 * r + 1] = next;
                down[4 * r + 2] = (dike_coord_done(s) ? 0 : 1) | (any_remote ? 2 : 0) | (any_stop ? 4 : 0);
                down[4 * r + 3] = 0;
                if (r > 0 && c1[r]) {
                    perf->messages++;
                    perf->bytes_sent += (uint64_t)c1[r] * sizeof(dike_nact);
                }
            }
            s->neact = 0;
        }

        /* 4. actions to their owners, with the next window */
        int64_t hdr[4];
        t0 = MPI_Wtime();
        CHECK_MPI(MPI_Scatter(down, 4, MPI_INT64_T, hdr, 4, MPI_INT64_T, 0, comm));
        if ((size_t)hdr[0] > recv_cap) {
            recv_cap = 2 * (size_t)hdr[0];
            recv = dike_xrealloc(recv, recv_cap * sizeof *recv);
        }
        CHECK_MPI(MPI_Scatterv(sorted, c1, d1, act_t, recv, (int)hdr[0], act_t, 0, comm));
        t_comm += MPI_Wtime() - t0;
        dike_nodes_enqueue(ns, recv, (size_t)hdr[0]);
        T = hdr[1];
        running = (hdr[2] & 1) != 0;
        remote = (hdr[2] & 2) != 0;
        stop = (hdr[2] & 4) != 0;
    }

    if (!status) {
        /* the last releases, and the samples up to the last event */
        int64_t last = rank == 0 ? s->now : 0;
        CHECK_MPI(MPI_Bcast(&last, 1, MPI_INT64_T, 0, comm));
        t0 = MPI_Wtime();
        dike_nodes_finish(ns, last);
        t_node += MPI_Wtime() - t0;
        for (uint32_t i = 0; i < p->n; i++)
            if (p->free[i] != dike_cluster_node_gpus(p->cl, p->first + i))
                dike_fatal("node %u ends with %u of %u GPUs free", p->first + i, p->free[i],
                           dike_cluster_node_gpus(p->cl, p->first + i));
    }

    perf->rank = rank;
    perf->events = dike_nodes_events(ns) + (rank == 0 ? s->events : 0);
    perf->decisions = rank == 0 ? s->decisions : 0;
    perf->nodes_owned = p->n;
    perf->wall_seconds = MPI_Wtime() - t_start;
    perf->comm_seconds = t_comm;
    perf->node_seconds = t_node;
    perf->decide_seconds = rank == 0 ? s->decide_seconds : 0;
    if (rank == 0)
        dike_coord_perf_decide(s, perf);
    perf->compute_seconds = perf->wall_seconds - t_comm - perf->decide_seconds;
    free(c1);
    free(d1);
    free(c2);
    free(d2);
    free(sorted);
    free(recv);
    free(rin);
    free(rall);
    free(up);
    free(down);
    MPI_Type_free(&act_t);
    MPI_Type_free(&rec_t);
    MPI_Type_free(&rep_t);
    return status;
}
