/* Conservative window synchronisation (SPEC §3).
 *
 * Each round: rank 0 runs its events up to the horizon (the earliest event a node rank could
 * originate, from the last Allreduce) or until its action buffer is full; the actions go to the
 * owners with one Scatterv; every rank applies them; one Allreduce carries the next horizon and
 * whether rank 0 is done. The coordinator can run ahead alone because it predicts every
 * completion itself, so rounds are counted in buffer-fulls and node-originated events, not in
 * job events. */
#include "engine/window.h"

#include "dike/run.h"
#include "base/mpi.h"
#include "engine/checkpoint.h"

#include <stdlib.h>
#include <string.h>

/* Reorder rank 0's actions by owner (stable, so each owner sees them in time order). */
static void bucket_by_owner(const dike_part_layout *l, const dike_action *a, size_t n,
                            dike_action *out, int *counts, int *displs)
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

/* Rank 0 turns the gathered node reports into events in its heap. */
static void deliver_reports(dike_sched *s, const char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        dike_node_report r;
        memcpy(&r, buf + off, sizeof r);
        off += sizeof r;
        uint32_t jobs_small[64], *jobs = r.njobs <= 64 ? jobs_small : dike_xmalloc(r.njobs * 4);
        memcpy(jobs, buf + off, r.njobs * sizeof *jobs);
        off += r.njobs * sizeof *jobs;
        dike_coord_node_event(s, r.time, r.kind, r.node, r.seq, jobs, r.njobs);
        if (jobs != jobs_small)
            free(jobs);
    }
}

volatile sig_atomic_t dike_stop_requested = 0;

int dike_window_loop(MPI_Comm comm, dike_sched *s, dike_part *p, const dike_part_layout *l,
                     const dike_window_opts *o, dike_perf_record *perf, dike_err *e)
{
    int status = 0;
    int rank = dike_mpi_rank(comm), nranks = dike_mpi_size(comm);
    MPI_Datatype act_type = dike_mpi_bytes_type(sizeof(dike_action));

    int *counts = dike_xcalloc((size_t)nranks, sizeof *counts);
    int *displs = dike_xcalloc((size_t)nranks, sizeof *displs);
    int *hdr = dike_xcalloc((size_t)nranks * 2, sizeof *hdr);
    int *rep_counts = dike_xcalloc((size_t)nranks, sizeof *rep_counts);
    int *rep_displs = dike_xcalloc((size_t)nranks, sizeof *rep_displs);
    dike_action *sorted = NULL, *recv = NULL;
    size_t sorted_cap = 0, recv_cap = 0;
    char *rep = NULL, *rep_all = NULL;
    size_t rep_len = 0, rep_cap = 0, rep_all_cap = 0;
    double t_start = MPI_Wtime(), t_comm = 0;

    int64_t in[4], out[4];
    in[0] = dike_part_next_time(p);
    in[1] = in[2] = in[3] = 0;
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Allreduce(in, out, 4, MPI_INT64_T, MPI_MIN, comm));
    t_comm += MPI_Wtime() - t0;
    dike_time horizon = out[0];
    /* Periodic checkpoints fall on multiples of ckpt_every; after a resume, the next one. */
    dike_time next_ckpt = DIKE_TIME_INF;
    if (rank == 0 && o->ckpt_every > 0)
        next_ckpt = (s->now / o->ckpt_every + 1) * o->ckpt_every;
    dike_time stop_at = o->stop_at > 0 && (rank != 0 || o->stop_at > s->now) ? o->stop_at : DIKE_TIME_INF;

    for (;;) {
        int reached = 0; /* rank 0 has processed every event before the horizon */
        int ckpt_due = 0;
        if (rank == 0) {
            /* The window also ends at the next checkpoint time (the state is consistent at every
             * window boundary, and the boundary does not change any result). */
            dike_time end = horizon < next_ckpt ? horizon : next_ckpt;
            dike_coord_run(s, end < stop_at ? end : stop_at, o->window_actions);
            if (next_ckpt != DIKE_TIME_INF && !dike_coord_done(s) && dike_coord_next_time(s) >= next_ckpt) {
                ckpt_due = 1;
                next_ckpt += o->ckpt_every;
            }
            reached = horizon != DIKE_TIME_INF && dike_coord_next_time(s) >= horizon;
            if (!dike_coord_done(s) && dike_coord_next_time(s) == DIKE_TIME_INF &&
                horizon == DIKE_TIME_INF)
                dike_fatal("policy %s left %zu jobs that can never start", s->pol->name,
                           s->w->njobs - s->finished);
            if (s->nact > sorted_cap) {
                sorted_cap = s->nact;
                sorted = dike_xrealloc(sorted, sorted_cap * sizeof *sorted);
            }
            bucket_by_owner(l, s->act, s->nact, sorted, counts, displs);
            for (int r = 0; r < nranks; r++) {
                hdr[2 * r] = counts[r];
                hdr[2 * r + 1] = reached;
                if (r > 0 && counts[r]) {
                    perf->messages++;
                    perf->bytes_sent += (uint64_t)counts[r] * sizeof(dike_action);
                }
            }
        }
        /* 1. actions to their owners (with the "reached" flag in the count message) */
        t0 = MPI_Wtime();
        int mine[2] = {0, 0};
        DIKE_MPI_CHECK(MPI_Scatter(hdr, 2, MPI_INT, mine, 2, MPI_INT, 0, comm));
        if ((size_t)mine[0] > recv_cap) {
            recv_cap = (size_t)mine[0];
            recv = dike_xrealloc(recv, recv_cap * sizeof *recv);
        }
        DIKE_MPI_CHECK(MPI_Scatterv(sorted, counts, displs, act_type, recv, mine[0], act_type, 0, comm));
        t_comm += MPI_Wtime() - t0;
        if (rank == o->inject_fatal_rank)
            dike_fatal("injected failure (engine.inject_fatal_rank = %d)", rank);
        dike_part_apply(p, recv, (size_t)mine[0]);
        if (rank == 0)
            s->nact = 0;

        /* 2. node events at the horizon, once rank 0 has caught up with it: reports to rank 0 */
        if (mine[1]) {
            rep_len = 0;
            dike_part_process(p, horizon, &rep, &rep_len, &rep_cap);
            int len = (int)rep_len;
            t0 = MPI_Wtime();
            DIKE_MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, rep_counts, 1, MPI_INT, 0, comm));
            size_t total = 0;
            if (rank == 0)
                for (int r = 0; r < nranks; r++) {
                    rep_displs[r] = (int)total;
                    total += (size_t)rep_counts[r];
                }
            if (rank == 0 && total > rep_all_cap) {
                rep_all_cap = total;
                rep_all = dike_xrealloc(rep_all, rep_all_cap);
            }
            DIKE_MPI_CHECK(MPI_Gatherv(rep, len, MPI_BYTE, rep_all, rep_counts, rep_displs, MPI_BYTE, 0,
                                  comm));
            t_comm += MPI_Wtime() - t0;
            if (rank > 0 && len) {
                perf->messages++;
                perf->bytes_sent += (uint64_t)len;
            }
            if (rank == 0)
                deliver_reports(s, rep_all, total);
        }

        /* 3. next horizon; flags travel as -1 so one MIN carries them all: continue (rank 0
         * not done), checkpoint due (rank 0), stop requested (any rank: Slurm signals them all) */
        in[0] = dike_part_next_time(p);
        in[1] = (rank == 0 && !dike_coord_done(s)) ? -1 : 0;
        in[2] = ckpt_due ? -1 : 0;
        in[3] = dike_stop_requested ||
                        (rank == 0 && stop_at != DIKE_TIME_INF && !dike_coord_done(s) &&
                         dike_coord_next_time(s) >= stop_at)
                    ? -1
                    : 0;
        t0 = MPI_Wtime();
        DIKE_MPI_CHECK(MPI_Allreduce(in, out, 4, MPI_INT64_T, MPI_MIN, comm));
        t_comm += MPI_Wtime() - t0;
        perf->messages++;
        perf->bytes_sent += sizeof in;
        perf->windows++;
        horizon = out[0];
        if (out[1] == 0)
            break;
        if (out[2] || out[3]) {
            double tc = MPI_Wtime();
            int rc = dike_checkpoint_write(o->ckpt_path, comm, s, p, o->cfg, o->trace_sha256, e);
            t_comm += MPI_Wtime() - tc;
            if (rc && !out[3]) {
                /* A periodic checkpoint is insurance, not output: losing one costs nothing if the
                 * run goes on, so it is a warning (rank 0, one line with errno's text) and the
                 * old checkpoint, if any, stays in place. Every rank got the same status. */
                if (rank == 0)
                    dike_eprint("dike-emu: warning: periodic checkpoint not written, the run "
                                "continues: ", e->msg);
                memset(e, 0, sizeof *e);
            } else if (rc) {
                status = rc;
                break;
            }
            if (out[3]) {
                status = dike_err_set(e, DIKE_ESTOPPED, "stopped on request; checkpoint written to %s "
                                      "(continue with: dike-emu resume %s)", o->ckpt_path, o->ckpt_path);
                break;
            }
        }
    }
    for (uint32_t i = 0; i < p->n && !status; i++)
        if (p->free[i] != dike_cluster_node_gpus(p->cl, p->first + i))
            dike_fatal("node %u ends with %u of %u GPUs free", p->first + i, p->free[i],
                       dike_cluster_node_gpus(p->cl, p->first + i));

    perf->rank = rank;
    perf->events = p->applied + p->node_events + (rank == 0 ? s->events : 0);
    perf->decisions = rank == 0 ? s->decisions : 0;
    perf->nodes_owned = p->n;
    perf->wall_seconds = MPI_Wtime() - t_start;
    perf->comm_seconds = t_comm;
    perf->decide_seconds = rank == 0 ? s->decide_seconds : 0;
    if (rank == 0)
        dike_coord_perf_decide(s, perf);
    perf->compute_seconds = perf->wall_seconds - t_comm - perf->decide_seconds;
    free(counts);
    free(displs);
    free(hdr);
    free(rep_counts);
    free(rep_displs);
    free(sorted);
    free(recv);
    free(rep);
    free(rep_all);
    DIKE_MPI_CHECK(MPI_Type_free(&act_type));
    return status;
}
