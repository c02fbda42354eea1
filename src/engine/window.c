/* Conservative window synchronisation (SPEC §3), predicting mode.
 *
 * One window, in the steps below (docs/architecture.md "Windows" names them too):
 *   coordinator_step  rank 0 runs its events up to the horizon (the earliest event a node rank
 *                     could originate, from the last vote), the next checkpoint time, or until
 *                     its action buffer is full (checkpoint_due: the timing of periodic ones);
 *   deliver_actions   the actions go to their owners (Scatter + Scatterv), which apply them;
 *   gather_reports    once rank 0 has reached the horizon, node events there go to rank 0;
 *   vote              one Allreduce: the next horizon, and whether to go on, checkpoint, stop;
 *   checkpoint_or_stop  writes the checkpoint the vote asked for, ends the loop on a stop.
 * After the loop: check_end (every GPU back) and fill_perf (this rank's /perf row). The
 * coordinator can run ahead alone because it predicts every completion itself, so windows are
 * counted in buffer-fulls and node-originated events, not in job events. */
#include "engine/window.h"

#include "dike/run.h"
#include "base/mpi.h"
#include "engine/checkpoint.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

/* Everything one rank's window loop keeps between windows; the steps below share it. */
typedef struct window_state {
    MPI_Comm comm;
    int rank, nranks;
    dike_sched *s;                /* rank 0's coordinator, NULL elsewhere */
    dike_part *p;                 /* this rank's node block */
    const dike_part_layout *l;
    const dike_window_opts *o;
    dike_perf_record *perf;
    MPI_Datatype act_type;        /* one dike_action as bytes */
    int *counts, *displs, *hdr;   /* rank 0: actions per owner, offsets, (count, reached) pairs */
    int *rep_counts, *rep_displs; /* rank 0: report bytes per rank, offsets */
    dike_action *sorted, *recv;   /* rank 0's actions by owner; this rank's actions */
    size_t sorted_cap, recv_cap;
    char *rep, *rep_all;          /* this rank's reports; rank 0: everybody's */
    size_t rep_len, rep_cap, rep_all_cap;
    dike_time horizon;            /* the earliest event a node rank could originate */
    dike_time next_ckpt;          /* rank 0: the next periodic checkpoint time, or DIKE_TIME_INF */
    double next_wall;             /* rank 0: MPI_Wtime at which run.checkpoint_wall_s falls due */
    dike_time stop_at;            /* testing: stop as on a signal at this time, or DIKE_TIME_INF */
    double t_start, t_comm;       /* MPI_Wtime at the start; time in collectives */
} window_state;

/* The vote every window ends with: one MPI_Allreduce (MIN) over five int64. Flags travel as -1
 * so one MIN carries them all. */
enum { V_HORIZON, V_CONTINUE, V_CKPT, V_STOP, V_STALL, V_N };

static void window_init(window_state *ws)
{
    size_t nr = (size_t)ws->nranks;
    ws->act_type = dike_mpi_bytes_type(sizeof(dike_action));
    ws->counts = dike_xcalloc(nr, sizeof *ws->counts);
    ws->displs = dike_xcalloc(nr, sizeof *ws->displs);
    ws->hdr = dike_xcalloc(nr * 2, sizeof *ws->hdr);
    ws->rep_counts = dike_xcalloc(nr, sizeof *ws->rep_counts);
    ws->rep_displs = dike_xcalloc(nr, sizeof *ws->rep_displs);
    ws->t_start = MPI_Wtime();

    /* the first horizon: the earliest node event anywhere */
    int64_t in[V_N] = {dike_part_next_time(ws->p), 0, 0, 0, 0}, out[V_N];
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Allreduce(in, out, V_N, MPI_INT64_T, MPI_MIN, ws->comm));
    ws->t_comm += MPI_Wtime() - t0;
    ws->horizon = out[V_HORIZON];
    /* Periodic checkpoints fall on multiples of ckpt_every; after a resume, the next one. */
    const dike_window_opts *o = ws->o;
    ws->next_ckpt = DIKE_TIME_INF;
    if (ws->rank == 0 && o->ckpt_every > 0)
        ws->next_ckpt = (ws->s->now / o->ckpt_every + 1) * o->ckpt_every;
    ws->next_wall = dike_wall_ckpt_next(ws->rank, o, 0);
    ws->stop_at = o->stop_at > 0 && (ws->rank != 0 || o->stop_at > ws->s->now) ? o->stop_at
                                                                                : DIKE_TIME_INF;
}

static void window_free(window_state *ws)
{
    free(ws->counts);
    free(ws->displs);
    free(ws->hdr);
    free(ws->rep_counts);
    free(ws->rep_displs);
    free(ws->sorted);
    free(ws->recv);
    free(ws->rep);
    free(ws->rep_all);
    DIKE_MPI_CHECK(MPI_Type_free(&ws->act_type));
}

/* Checkpoint timing (rank 0): is a periodic checkpoint due at the end of this window? The
 * window ends at the checkpoint time (see coordinator_step), so it is due once rank 0's next
 * event is at or past it. */
static int checkpoint_due(window_state *ws)
{
    const dike_sched *s = ws->s;
    if (dike_coord_done(s))
        return 0;
    int due = 0;
    if (ws->next_ckpt != DIKE_TIME_INF && dike_coord_next_time(s) >= ws->next_ckpt) {
        ws->next_ckpt += ws->o->ckpt_every;
        due = 1;
    }
    return due || dike_wall_ckpt_due(ws->next_wall);
}

/* Rank 0: run the events before the window's end, then order the buffered actions by owner and
 * fill each rank's header (its action count, and whether rank 0 has reached the horizon). */
static void coordinator_step(window_state *ws, int *ckpt_due)
{
    dike_sched *s = ws->s;
    /* The window also ends at the next checkpoint time (the state is consistent at every window
     * boundary, and the boundary does not change any result). */
    dike_time end = ws->horizon < ws->next_ckpt ? ws->horizon : ws->next_ckpt;
    dike_coord_run(s, end < ws->stop_at ? end : ws->stop_at, ws->o->window_actions);
    *ckpt_due = checkpoint_due(ws);
    int reached = ws->horizon != DIKE_TIME_INF && dike_coord_next_time(s) >= ws->horizon;
    if (!dike_coord_done(s) && dike_coord_next_time(s) == DIKE_TIME_INF && ws->horizon == DIKE_TIME_INF)
        dike_fatal("policy %s left %zu jobs that can never start", s->pol->name, s->w->njobs - s->finished);
    if (s->nact > ws->sorted_cap) {
        ws->sorted_cap = s->nact;
        ws->sorted = dike_xrealloc(ws->sorted, ws->sorted_cap * sizeof *ws->sorted);
    }
    dike_part_bucket(ws->l, s->act, s->nact, sizeof *s->act, offsetof(dike_action, node), ws->sorted,
                     ws->counts, ws->displs);
    for (int r = 0; r < ws->nranks; r++) {
        ws->hdr[2 * r] = ws->counts[r];
        ws->hdr[2 * r + 1] = reached;
        if (r > 0 && ws->counts[r]) {
            ws->perf->messages++;
            ws->perf->bytes_sent += (uint64_t)ws->counts[r] * sizeof(dike_action);
        }
    }
}

/* Exchange 1: the actions to their owners (MPI_Scatter of the headers + MPI_Scatterv), which
 * apply them. Returns the "reached" flag of this rank's header. */
static int deliver_actions(window_state *ws)
{
    double t0 = MPI_Wtime();
    int mine[2] = {0, 0};
    DIKE_MPI_CHECK(MPI_Scatter(ws->hdr, 2, MPI_INT, mine, 2, MPI_INT, 0, ws->comm));
    if ((size_t)mine[0] > ws->recv_cap) {
        ws->recv_cap = (size_t)mine[0];
        ws->recv = dike_xrealloc(ws->recv, ws->recv_cap * sizeof *ws->recv);
    }
    DIKE_MPI_CHECK(MPI_Scatterv(ws->sorted, ws->counts, ws->displs, ws->act_type, ws->recv, mine[0],
                                ws->act_type, 0, ws->comm));
    ws->t_comm += MPI_Wtime() - t0;
    if (ws->rank == ws->o->inject_fatal_rank)
        dike_fatal("injected failure (engine.inject_fatal_rank = %d)", ws->rank);
    dike_part_apply(ws->p, ws->recv, (size_t)mine[0]);
    if (ws->rank == 0)
        ws->s->nact = 0;
    return mine[1];
}

/* Exchange 2, once rank 0 has caught up with the horizon: every rank processes its node events
 * at the horizon and sends the reports to rank 0 (MPI_Gather of sizes + MPI_Gatherv), which
 * turns them into events. */
static void gather_reports(window_state *ws)
{
    ws->rep_len = 0;
    dike_part_process(ws->p, ws->horizon, &ws->rep, &ws->rep_len, &ws->rep_cap);
    int len = (int)ws->rep_len;
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, ws->rep_counts, 1, MPI_INT, 0, ws->comm));
    size_t total = 0;
    if (ws->rank == 0)
        for (int r = 0; r < ws->nranks; r++) {
            ws->rep_displs[r] = (int)total;
            total += (size_t)ws->rep_counts[r];
        }
    if (ws->rank == 0 && total > ws->rep_all_cap) {
        ws->rep_all_cap = total;
        ws->rep_all = dike_xrealloc(ws->rep_all, ws->rep_all_cap);
    }
    DIKE_MPI_CHECK(MPI_Gatherv(ws->rep, len, MPI_BYTE, ws->rep_all, ws->rep_counts, ws->rep_displs,
                               MPI_BYTE, 0, ws->comm));
    ws->t_comm += MPI_Wtime() - t0;
    if (ws->rank > 0 && len) {
        ws->perf->messages++;
        ws->perf->bytes_sent += (uint64_t)len;
    }
    if (ws->rank == 0)
        deliver_reports(ws->s, ws->rep_all, total);
}

/* Exchange 3, the vote: the next horizon, and the flags continue (rank 0 not done), checkpoint
 * due (rank 0) and stop requested (any rank: Slurm signals them all; or the testing stop time
 * reached on rank 0). */
static void vote(window_state *ws, int ckpt_due, int64_t out[V_N])
{
    const dike_sched *s = ws->s;
    int stop = dike_stop_requested || (ws->rank == 0 && ws->stop_at != DIKE_TIME_INF &&
                                       !dike_coord_done(s) && dike_coord_next_time(s) >= ws->stop_at);
    int64_t in[V_N];
    in[V_HORIZON] = dike_part_next_time(ws->p);
    in[V_CONTINUE] = ws->rank == 0 && !dike_coord_done(s) ? -1 : 0;
    in[V_CKPT] = ckpt_due ? -1 : 0;
    in[V_STOP] = stop ? -1 : 0;
    in[V_STALL] = ws->rank == 0 && s->stalled ? -1 : 0;
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Allreduce(in, out, V_N, MPI_INT64_T, MPI_MIN, ws->comm));
    ws->t_comm += MPI_Wtime() - t0;
    ws->perf->messages++;
    ws->perf->bytes_sent += sizeof in;
    ws->perf->windows++;
    ws->horizon = out[V_HORIZON];
}

/* Stop handling: write the checkpoint the vote asked for. Returns 1 if the loop ends (a stop
 * request, or a failed checkpoint on one), with *status set. */
static int checkpoint_or_stop(window_state *ws, const int64_t out[V_N], int *status, dike_err *e)
{
    const dike_window_opts *o = ws->o;
    double tc = MPI_Wtime();
    int end = dike_checkpoint_step(o->ckpt_path, ws->comm, ws->s, ws->p, NULL, o->config_ini,
                                   o->trace_sha256, &o->build, out[V_STOP] != 0, status, e);
    ws->t_comm += MPI_Wtime() - tc;
    ws->next_wall = dike_wall_ckpt_next(ws->rank, o, MPI_Wtime() - tc);
    return end;
}

/* End-of-run check: every node has all its GPUs back (a GPU still held is a bug). */
static void check_end(const dike_part *p)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (p->free[i] != dike_cluster_node_gpus(p->cl, p->first + i))
            dike_fatal("node %u ends with %u of %u GPUs free", p->first + i, p->free[i],
                       dike_cluster_node_gpus(p->cl, p->first + i));
}

/* Statistics: this rank's /perf row. */
static void fill_perf(const window_state *ws)
{
    dike_perf_record *perf = ws->perf;
    const dike_sched *s = ws->s;
    const dike_part *p = ws->p;
    int coord = ws->rank == 0;
    perf->rank = ws->rank;
    perf->events = p->applied + p->node_events + (coord ? s->events : 0);
    perf->decisions = coord ? s->decisions : 0;
    perf->nodes_owned = p->n;
    perf->wall_seconds = MPI_Wtime() - ws->t_start;
    perf->comm_seconds = ws->t_comm;
    perf->decide_seconds = coord ? s->decide_seconds : 0;
    if (coord)
        dike_coord_perf_decide(s, perf);
    perf->compute_seconds = perf->wall_seconds - ws->t_comm - perf->decide_seconds;
}

int dike_window_loop(MPI_Comm comm, dike_sched *s, dike_part *p, const dike_part_layout *l,
                     const dike_window_opts *o, dike_perf_record *perf, dike_err *e)
{
    window_state ws = {.comm = comm, .s = s, .p = p, .l = l, .o = o, .perf = perf};
    ws.rank = dike_mpi_rank(comm);
    ws.nranks = dike_mpi_size(comm);
    window_init(&ws);
    int status = 0;
    for (;;) {
        int ckpt_due = 0;
        if (ws.rank == 0)
            coordinator_step(&ws, &ckpt_due);
        if (deliver_actions(&ws))
            gather_reports(&ws);
        int64_t out[V_N];
        vote(&ws, ckpt_due, out);
        /* the run cannot finish, or passed a bound (coord.c, advance_to; also in the window that
         * finished the last job): an error, on every rank, and no output */
        if (out[V_STALL]) {
            status = dike_coord_stall_status(ws.rank, s, e);
            break;
        }
        if (out[V_CONTINUE] == 0)
            break;
        if ((out[V_CKPT] || out[V_STOP]) && checkpoint_or_stop(&ws, out, &status, e))
            break;
    }
    if (!status)
        check_end(p);
    fill_perf(&ws);
    window_free(&ws);
    return status;
}
