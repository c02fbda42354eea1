/* Conservative windows with lookahead (emulating mode).
 *
 * Every cross-rank change of a job's speed stems from a start or a stop, which take effect
 * L = scheduler.decision_latency_s after the decision, or from node events each owner draws ahead
 * (slowdown episodes, failures). So with T the global next event, nothing decided in [T, T + L)
 * can change what happens on the nodes before T + L, and one window is:
 *
 *   1. owners apply the actions and node events of [T, E), E = T + max(L, 1 us), and send each
 *      changed slice factor to the gang's home (one MPI_Alltoall, only in windows where some rank
 *      hosts a slice of a gang whose home is another rank);
 *   2. homes integrate their jobs' progress over [T, E) and find the completions;
 *   3. completions, stops and failures go to rank 0 (one MPI_Gather), with each rank's next event
 *      time; rank 0 runs its events of [T, E) and decides (actions take effect >= E);
 *   4. the actions go to their owners (one MPI_Scatter), with the next T (the earliest action, node
 *      event, completion or coordinator event anywhere) and the flags (done, stop, records between
 *      ranks next time), so no separate MPI_Allreduce is needed.
 *
 * Each collective moves fixed-size blocks with room for a few records inline (INL_* below); the
 * rare rank with more sends the rest point to point right after it, and the receiver knows how many
 * from the block. That is one collective per step instead of a count collective followed by a
 * v-variant: at L = 1 s a window carries a handful of records, and its cost is the collectives'
 * latency, not their bytes (docs/scaling.md section 5).
 *
 * The schedule of windows depends only on global event times, never on the partition, and each
 * rank's work within a window is a function of its nodes alone, so results do not depend on the
 * number of ranks. With L = 0 a window is one timestamp: the decision's actions apply at T, after
 * the node events of T, in the next window (same T). */
#include "engine/emulate.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dike/run.h"
#include "engine/checkpoint.h"
#include "engine/emulate_blocks.h"

#include "base/mpi.h"

enum { TAG_REP = 7101, TAG_ACT = 7102, TAG_REC = 7103 };

/* Flags of the down block. */
enum { F_RUNNING = 1, F_REMOTE = 2, F_STOP = 4, F_CKPT = 8, F_STALL = 16 };
enum { U_STOP = 1, U_FULL = 2 }; /* up_block.stop */

/* Everything the window loop keeps between its steps. */
typedef struct emu {
    MPI_Comm comm;
    int rank, nranks;
    dike_sched *s; /* rank 0 only */
    dike_part *p;
    dike_nodes *ns;
    const dike_part_layout *l;
    const dike_window_opts *o;
    dike_perf_record *perf;
    MPI_Datatype act_t, rec_t, rep_t, up_t, down_t, recb_t;
    dike_time step;      /* window length: max(L, 1 us) */
    dike_time T;         /* the window's start */
    int running, stop, remote, ckpt, stall;
    dike_time next_ckpt; /* rank 0: the next periodic checkpoint time, or DIKE_TIME_INF */
    double next_wall;    /* rank 0: MPI_Wtime at which run.checkpoint_wall_s falls due */
    int *c1, *d1, *c2, *d2;
    up_block *up_all;    /* rank 0: one per rank */
    down_block *down_all; /* rank 0: one per rank */
    rec_block *xs, *xr;  /* one per rank, sent and received */
    dike_nact *sorted, *recv;
    size_t sorted_cap, recv_cap;
    dike_jrec *rin;
    size_t rin_cap;
    dike_nrep *rall;
    size_t rall_cap, nrall;
    up_block mine;       /* this rank's block of the gather */
    down_block down;     /* this rank's block of the scatter */
    MPI_Request *reqs;   /* 2 per rank: the records' overflow */
    double t_comm, t_node;
    /* where a window's time goes (/perf): owner steps, rank 0's coordinator part, and the wait in
     * each of the three collectives (the rest of t_node is the home steps) */
    double t_owner, t_coord, t_wrec, t_wrep, t_wact;
} emu;

/* memcpy of @p n elements of @p size bytes; nothing when n = 0 (the source may then be NULL, which
 * memcpy itself does not allow). */
static void copy_n(void *dst, const void *src, size_t n, size_t size)
{
    if (n)
        memcpy(dst, src, n * size);
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    *cap = 2 * need;
    return dike_xrealloc(p, *cap * elem);
}

static void emu_init(emu *m, MPI_Comm comm, dike_sched *s, dike_part *p, dike_nodes *ns,
                     const dike_part_layout *l, dike_time latency_us, const dike_window_opts *o,
                     dike_perf_record *perf)
{
    memset(m, 0, sizeof *m);
    m->comm = comm;
    m->rank = dike_mpi_rank(comm);
    m->nranks = dike_mpi_size(comm);
    m->s = s;
    m->p = p;
    m->ns = ns;
    m->l = l;
    m->o = o;
    m->perf = perf;
    m->act_t = dike_mpi_bytes_type(sizeof(dike_nact));
    m->rec_t = dike_mpi_bytes_type(sizeof(dike_jrec));
    m->rep_t = dike_mpi_bytes_type(sizeof(dike_nrep));
    m->up_t = dike_mpi_bytes_type(sizeof(up_block));
    m->down_t = dike_mpi_bytes_type(sizeof(down_block));
    m->recb_t = dike_mpi_bytes_type(sizeof(rec_block));
    m->step = latency_us > 0 ? latency_us : 1;
    size_t nr = (size_t)m->nranks;
    m->c1 = dike_xcalloc(nr, sizeof(int));
    m->d1 = dike_xcalloc(nr, sizeof(int));
    m->c2 = dike_xcalloc(nr, sizeof(int));
    m->d2 = dike_xcalloc(nr, sizeof(int));
    m->xs = dike_xcalloc(nr, sizeof(rec_block));
    m->xr = dike_xcalloc(nr, sizeof(rec_block));
    m->reqs = dike_xcalloc(2 * nr, sizeof(MPI_Request));
    /* never NULL, so that offsets into them are defined even when nothing is in them */
    m->sorted = grow(NULL, &m->sorted_cap, 1, sizeof *m->sorted);
    m->recv = grow(NULL, &m->recv_cap, 1, sizeof *m->recv);
    m->rin = grow(NULL, &m->rin_cap, 1, sizeof *m->rin);
    m->rall = grow(NULL, &m->rall_cap, 1, sizeof *m->rall);
    if (m->rank == 0) {
        m->up_all = dike_xcalloc(nr, sizeof(up_block));
        m->down_all = dike_xcalloc(nr, sizeof(down_block));
    }
}

static void emu_free(emu *m)
{
    free(m->c1);
    free(m->d1);
    free(m->c2);
    free(m->d2);
    free(m->xs);
    free(m->xr);
    free(m->reqs);
    free(m->up_all);
    free(m->down_all);
    free(m->sorted);
    free(m->recv);
    free(m->rin);
    free(m->rall);
    MPI_Datatype *types[] = {&m->act_t, &m->rec_t, &m->rep_t, &m->up_t, &m->down_t, &m->recb_t};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        MPI_Type_free(types[i]);
}

/* The first window: the earliest thing to do anywhere (later ones come with the actions), and
 * whether gangs span ranks. At the start nothing runs; after a resume the restored state says,
 * and this is the same T and the same flags the scatter of the checkpointed window carried. */
static void first_window(emu *m)
{
    int64_t in[4], out[4];
    in[0] = dike_nodes_next_time(m->ns);
    if (m->rank == 0 && dike_coord_next_time(m->s) < in[0])
        in[0] = dike_coord_next_time(m->s);
    in[1] = (m->rank == 0 && !dike_coord_done(m->s)) ? -1 : 0;
    in[2] = dike_stop_requested ? -1 : 0;
    in[3] = dike_nodes_may_send_remote(m->ns) ? -1 : 0;
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Allreduce(in, out, 4, MPI_INT64_T, MPI_MIN, m->comm));
    m->t_comm += MPI_Wtime() - t0;
    m->T = out[0];
    m->running = out[1] != 0;
    m->stop = out[2] != 0;
    m->remote = out[3] != 0;
    m->ckpt = 0;
    /* Periodic checkpoints: at the first window boundary at or past each multiple of ckpt_every
     * (after a resume, the next multiple). */
    m->next_ckpt = DIKE_TIME_INF;
    if (m->rank == 0 && m->o->ckpt_every > 0)
        m->next_ckpt = (m->s->now / m->o->ckpt_every + 1) * m->o->ckpt_every;
    m->next_wall = dike_wall_ckpt_next(m->rank, m->o, 0);
    /* testing: the stop request comes as a signal would at stop_at: while rank 0 processes an
     * event at or past it, or once the next window would start past it (coordinate) */
    if (m->rank == 0 && m->o->stop_at > 0 && m->o->stop_at > m->s->now)
        m->s->signal_at = m->o->stop_at;
}

/* Step 1b: slice-factor records to their homes. One MPI_Alltoall of fixed blocks; the records
 * beyond a block's INL_REC go point to point (the receiver knows how many from the block).
 * Returns the number of records received, in m->rin in rank order (as MPI_Alltoallv would). */
static size_t exchange_records(emu *m, const dike_jrec *ob)
{
    int nr = m->nranks;
    for (int r = 0; r < nr; r++) {
        int n = m->c1[r];
        m->xs[r].n = n;
        copy_n(m->xs[r].rec, ob + m->d1[r], (size_t)(n < INL_REC ? n : INL_REC), sizeof *ob);
        if (r != m->rank && n) {
            m->perf->remote_records += (uint64_t)n;
            m->perf->messages++;
            m->perf->bytes_sent += (uint64_t)n * sizeof(dike_jrec);
        }
    }
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Alltoall(m->xs, 1, m->recb_t, m->xr, 1, m->recb_t, m->comm));
    size_t nin = 0;
    for (int r = 0; r < nr; r++) {
        m->d2[r] = (int)nin;
        m->c2[r] = (int)m->xr[r].n;
        nin += (size_t)m->c2[r];
    }
    m->rin = grow(m->rin, &m->rin_cap, nin, sizeof *m->rin);
    int nreq = 0;
    for (int r = 0; r < nr; r++) {
        int n = m->c2[r];
        copy_n(m->rin + m->d2[r], m->xr[r].rec, (size_t)(n < INL_REC ? n : INL_REC), sizeof *ob);
        if (n > INL_REC)
            DIKE_MPI_CHECK(MPI_Irecv(m->rin + m->d2[r] + INL_REC, n - INL_REC, m->rec_t, r, TAG_REC,
                                m->comm, &m->reqs[nreq++]));
        if (m->c1[r] > INL_REC)
            DIKE_MPI_CHECK(MPI_Isend(ob + m->d1[r] + INL_REC, m->c1[r] - INL_REC, m->rec_t, r, TAG_REC,
                                m->comm, &m->reqs[nreq++]));
    }
    if (nreq)
        DIKE_MPI_CHECK(MPI_Waitall(nreq, m->reqs, MPI_STATUSES_IGNORE));
    double dt = MPI_Wtime() - t0;
    m->t_comm += dt;
    m->t_wrec += dt;
    return nin;
}

/* Steps 1 and 2: owners apply the actions and node events of [T, E) and send factor records to
 * the homes; homes integrate their runs' progress over [T, E). */
static void node_steps(emu *m, dike_time E)
{
    double t0 = MPI_Wtime();
    dike_nodes_owner_advance(m->ns, E);
    static const dike_jrec no_records[1];
    const dike_jrec *ob = dike_nodes_outbox(m->ns, m->c1, m->d1);
    if (!ob)
        ob = no_records; /* nothing was ever sent: offsets into it stay defined */
    double dt = MPI_Wtime() - t0;
    m->t_node += dt;
    m->t_owner += dt;
    size_t nin = 0;
    if (m->remote) {
        nin = exchange_records(m, ob);
    } else {
        for (int r = 0; r < m->nranks; r++)
            if (m->c1[r])
                dike_fatal("%d factor records for rank %d in a window without records between "
                           "ranks", m->c1[r], r);
    }
    t0 = MPI_Wtime();
    dike_nodes_home_advance(m->ns, m->rin, nin, E);
    m->mine.next = dike_nodes_next_time(m->ns);
    m->mine.may_remote = dike_nodes_may_send_remote(m->ns);
    m->t_node += MPI_Wtime() - t0;
}

/* Step 3a: reports and next times to rank 0 (one MPI_Gather; a rank with more than INL_REP
 * reports sends the rest point to point). Rank 0 ends with every report in rank order. */
static void gather_reports(emu *m)
{
    size_t nrep;
    const dike_nrep *reps = dike_nodes_reports(m->ns, &nrep);
    m->mine.nrep = (int64_t)nrep;
    m->mine.stop = (dike_stop_requested ? U_STOP : 0) | (dike_nodes_samples_full(m->ns) ? U_FULL : 0);
    copy_n(m->mine.rep, reps, nrep < INL_REP ? nrep : INL_REP, sizeof *reps);
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Gather(&m->mine, 1, m->up_t, m->up_all, 1, m->up_t, 0, m->comm));
    if (m->rank > 0 && nrep > INL_REP)
        DIKE_MPI_CHECK(MPI_Send(reps + INL_REP, (int)(nrep - INL_REP), m->rep_t, 0, TAG_REP, m->comm));
    if (m->rank == 0) {
        size_t total = 0;
        for (int r = 0; r < m->nranks; r++)
            total += (size_t)m->up_all[r].nrep;
        m->rall = grow(m->rall, &m->rall_cap, total, sizeof *m->rall);
        copy_n(m->rall, reps, nrep, sizeof *reps);
        size_t off = nrep;
        for (int r = 1; r < m->nranks; r++) {
            size_t n = (size_t)m->up_all[r].nrep;
            copy_n(m->rall + off, m->up_all[r].rep, n < INL_REP ? n : INL_REP, sizeof *reps);
            if (n > INL_REP)
                DIKE_MPI_CHECK(MPI_Recv(m->rall + off + INL_REP, (int)(n - INL_REP), m->rep_t, r,
                                   TAG_REP, m->comm, MPI_STATUS_IGNORE));
            off += n;
        }
        m->nrall = total;
    }
    double dt = MPI_Wtime() - t0;
    m->t_comm += dt;
    m->t_wrep += dt;
    if (m->rank > 0) {
        m->perf->messages++;
        m->perf->bytes_sent += 4 * sizeof(int64_t) + nrep * sizeof(dike_nrep);
    }
    dike_nodes_clear_reports(m->ns);
}

/* The reports' jobs are handled in time order, and at 400,000 GPUs and more the coordinator's
 * state is far larger than the caches. Ahead of report i, fetch a finished or stopped job's three
 * cache lines PF_REP * 2 reports ahead, and its spec, first slice and that node's entry PF_REP
 * ahead (the job is there by then), so that the handling does not wait on them one by one.
 * always_inline for the reason nodes.c's prefetch_rec gives: GCC drops calls of a function that
 * only prefetches before inlining it. */
enum { PF_REP = 8 };
__attribute__((always_inline)) static inline void
prefetch_rep(const dike_sched *s, const dike_nrep *ra, size_t nra, size_t i)
{
    size_t a = i + 2 * PF_REP, b = i + PF_REP;
    if (a < nra && (ra[a].kind == DIKE_NREP_FINISH || ra[a].kind == DIKE_NREP_STOPPED)) {
        const char *jp = (const char *)&s->jobs[ra[a].entity];
        __builtin_prefetch(jp);
        __builtin_prefetch(jp + 64);
        __builtin_prefetch(jp + 128);
    }
    if (b < nra && (ra[b].kind == DIKE_NREP_FINISH || ra[b].kind == DIKE_NREP_STOPPED)) {
        const dike_job *j = &s->jobs[ra[b].entity];
        __builtin_prefetch(j->spec);
        if (j->nslices) {
            __builtin_prefetch(j->slices);
            if (s->node_jobs)
                __builtin_prefetch(&s->node_jobs[(size_t)j->slices[0].node * s->cl->gpus_per_node],
                                   1);
        }
    }
}

/* Rank 0, after the window's events: the coordinator's own later events (arrivals, rounds) that
 * emit no action need no window of their own. Until @p node_next, the earliest time a node rank
 * has something to do (its next action, node event or completion, gathered with the reports;
 * slowdown starts only slow jobs down and report nothing), no report can come, so the state at
 * those events is what a window there would have given it; it decides them now, one timestamp at
 * a time, and stops after the first that emits an action (whose effect, L later, then bounds the
 * next window as usual). Results do not depend on where windows fall; the window count does: at
 * decision_latency_s = 0 every event time was a window (random_configs seed 1328: themis's rounds
 * every second made 83.4 million; docs/scaling.md). Periodic checkpoints and the testing stop
 * keep their simulated times; a stop requested on any rank (@p any_stop) or a run that must end
 * with an error does not run ahead. */
static void run_ahead(emu *m, dike_time node_next, int any_stop)
{
    dike_sched *s = m->s;
    if (s->neact || m->o->no_run_ahead || any_stop)
        return;
    dike_time h = node_next < m->next_ckpt ? node_next : m->next_ckpt;
    if (s->signal_at && !s->signal_fired && s->signal_at < h)
        h = s->signal_at;
    for (;;) {
        dike_time t = dike_coord_next_time(s);
        if (s->neact || t >= h || dike_coord_done(s) || s->stalled || dike_stop_requested)
            return;
        dike_coord_run(s, t + 1, SIZE_MAX);
    }
}

/* Step 3b (rank 0): run the coordinator's events of [T, E) with the reports, decide, and fill each
 * rank's down block: its actions, the next window (the earliest node-side time, new action or
 * coordinator event) and the flags. */
static void coordinate(emu *m, dike_time E)
{
    double t0 = MPI_Wtime();
    dike_sched *s = m->s;
    for (size_t i = 0; i < m->nrall; i++) {
        prefetch_rep(s, m->rall, m->nrall, i);
        dike_coord_report(s, &m->rall[i]);
    }
    dike_coord_run(s, E, SIZE_MAX);
    int64_t node_next = DIKE_TIME_INF, any_remote = 0, any_stop = 0;
    for (int r = 0; r < m->nranks; r++) {
        if (m->up_all[r].next < node_next)
            node_next = m->up_all[r].next;
        any_remote |= m->up_all[r].may_remote;
        any_stop |= m->up_all[r].stop & U_STOP;
        if ((m->up_all[r].stop & U_FULL) && !s->stalled)
            s->stalled = DIKE_STALL_NODE_TIMESERIES; /* every rank ends with the error (F_STALL) */
    }
    run_ahead(m, node_next, (int)any_stop);
    m->sorted = grow(m->sorted, &m->sorted_cap, s->neact, sizeof *m->sorted);
    /* rank 0's actions by owner (stable: each owner gets them in decision order) */
    dike_part_bucket(m->l, s->eact, s->neact, sizeof *s->eact, offsetof(dike_nact, node), m->sorted,
                     m->c1, m->d1);
    int64_t next = dike_coord_next_time(s);
    if (node_next < next)
        next = node_next;
    for (size_t i = 0; i < s->neact; i++) {
        if (s->eact[i].time < next)
            next = s->eact[i].time;
        if (s->eact[i].kind == DIKE_ACT_START &&
            dike_part_owner(m->l, s->eact[i].node) != dike_part_owner(m->l, s->eact[i].home_node))
            any_remote = 1;
    }
    /* testing: engine.inject_stop_s is a signal at that simulated time. Once the next window would
     * start at or past it, the "signal" has arrived: in this window, or in the empty time that
     * windows skip. Until 2026-12-05 it came only with an event of rank 0's at or past it (in
     * dike_coord_run), and on 2026-12-05 also when this window held it; a stop in skipped time
     * before the run's last window was missed, and the run ended with status 0. */
    if (s->signal_at && !s->signal_fired && next >= s->signal_at && !dike_coord_done(s)) {
        dike_stop_requested = 1;
        s->signal_fired = 1;
    }
    /* rank 0's own stop request (that one, or a signal during this window) stops the run at this
     * boundary; the other ranks' come with the next gather */
    if (dike_stop_requested && !dike_coord_done(s))
        any_stop = 1;
    /* a checkpoint falls between this window and the next one, whose start is `next` */
    int ckpt = 0;
    if (!dike_coord_done(s) && next >= m->next_ckpt) {
        ckpt = 1;
        m->next_ckpt = (next / m->o->ckpt_every + 1) * m->o->ckpt_every;
    }
    if (!dike_coord_done(s) && dike_wall_ckpt_due(m->next_wall))
        ckpt = 1;
    int64_t flags = (dike_coord_done(s) ? 0 : F_RUNNING) | (any_remote ? F_REMOTE : 0) |
                    (any_stop ? F_STOP : 0) | (ckpt ? F_CKPT : 0) | (s->stalled ? F_STALL : 0);
    for (int r = 0; r < m->nranks; r++) {
        down_block *d = &m->down_all[r];
        int n = m->c1[r];
        d->nact = n;
        d->next = next;
        d->flags = flags;
        copy_n(d->act, m->sorted + m->d1[r], (size_t)(n < INL_ACT ? n : INL_ACT), sizeof *d->act);
        if (r > 0 && n) {
            m->perf->messages++;
            m->perf->bytes_sent += (uint64_t)n * sizeof(dike_nact);
        }
    }
    s->neact = 0;
    m->t_coord += MPI_Wtime() - t0;
}

/* Step 4: actions to their owners with the next window (one MPI_Scatter; actions beyond a block's
 * INL_ACT go point to point), queued for the next owner step. */
static void scatter_actions(emu *m)
{
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Scatter(m->down_all, 1, m->down_t, &m->down, 1, m->down_t, 0, m->comm));
    const dike_nact *acts;
    size_t n = (size_t)m->down.nact;
    if (m->rank == 0) {
        for (int r = 1; r < m->nranks; r++)
            if (m->c1[r] > INL_ACT)
                DIKE_MPI_CHECK(MPI_Send(m->sorted + m->d1[r] + INL_ACT, m->c1[r] - INL_ACT, m->act_t, r,
                                   TAG_ACT, m->comm));
        acts = m->sorted + m->d1[0];
    } else {
        m->recv = grow(m->recv, &m->recv_cap, n, sizeof *m->recv);
        copy_n(m->recv, m->down.act, n < INL_ACT ? n : INL_ACT, sizeof *m->recv);
        if (n > INL_ACT)
            DIKE_MPI_CHECK(MPI_Recv(m->recv + INL_ACT, (int)(n - INL_ACT), m->act_t, 0, TAG_ACT,
                               m->comm, MPI_STATUS_IGNORE));
        acts = m->recv;
    }
    double dt = MPI_Wtime() - t0;
    m->t_comm += dt;
    m->t_wact += dt;
    dike_nodes_enqueue(m->ns, acts, n);
    m->T = m->down.next;
    m->running = (m->down.flags & F_RUNNING) != 0;
    m->remote = (m->down.flags & F_REMOTE) != 0;
    m->stop = (m->down.flags & F_STOP) != 0;
    m->ckpt = (m->down.flags & F_CKPT) != 0;
    m->stall = (m->down.flags & F_STALL) != 0;
}

/* Between windows (after the scatter) every rank's state is consistent: the checkpoint the flags
 * ask for (a periodic one, or one on a stop request). Returns 1 if the loop ends, with *status. */
static int checkpoint_or_stop(emu *m, int *status, dike_err *e)
{
    if (!m->stop && !m->ckpt)
        return 0;
    const dike_window_opts *o = m->o;
    double t0 = MPI_Wtime();
    int end = dike_checkpoint_step(o->ckpt_path, m->comm, m->s, m->p, m->ns, o->config_ini,
                                   o->trace_sha256, &o->build, m->stop, status, e);
    m->t_comm += MPI_Wtime() - t0;
    m->ckpt = 0;
    m->next_wall = dike_wall_ckpt_next(m->rank, o, MPI_Wtime() - t0);
    return end;
}

/* After the last window: the last releases, the samples up to the last event, and the check that
 * every GPU came back. */
static void finish_nodes(emu *m)
{
    int64_t last = m->rank == 0 ? m->s->now : 0;
    DIKE_MPI_CHECK(MPI_Bcast(&last, 1, MPI_INT64_T, 0, m->comm));
    double t0 = MPI_Wtime();
    dike_nodes_finish(m->ns, last);
    m->t_node += MPI_Wtime() - t0;
    dike_part *p = m->p;
    for (uint32_t i = 0; i < p->n; i++)
        if (p->free[i] != dike_cluster_node_gpus(p->cl, p->first + i))
            dike_fatal("node %u ends with %u of %u GPUs free", p->first + i, p->free[i],
                       dike_cluster_node_gpus(p->cl, p->first + i));
}

/* After finish_nodes: are some rank's node samples full (output.timeseries_max_gib)? On every rank. */
static int nodes_full_anywhere(emu *m)
{
    int mine = dike_nodes_samples_full(m->ns), any = 0;
    double t0 = MPI_Wtime();
    DIKE_MPI_CHECK(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, m->comm));
    m->t_comm += MPI_Wtime() - t0;
    return any;
}

static void fill_perf(emu *m, double t_start)
{
    dike_perf_record *perf = m->perf;
    dike_sched *s = m->s;
    perf->rank = m->rank;
    perf->events = dike_nodes_events(m->ns) + (m->rank == 0 ? s->events : 0);
    perf->decisions = m->rank == 0 ? s->decisions : 0;
    perf->nodes_owned = m->p->n;
    perf->wall_seconds = MPI_Wtime() - t_start;
    perf->comm_seconds = m->t_comm;
    perf->node_seconds = m->t_node;
    perf->owner_seconds = m->t_owner;
    perf->coord_seconds = m->t_coord;
    perf->wait_records_seconds = m->t_wrec;
    perf->wait_reports_seconds = m->t_wrep;
    perf->wait_actions_seconds = m->t_wact;
    perf->decide_seconds = m->rank == 0 ? s->decide_seconds : 0;
    if (m->rank == 0)
        dike_coord_perf_decide(s, perf);
    perf->compute_seconds = perf->wall_seconds - m->t_comm - perf->decide_seconds;
}

int dike_emulate_loop(MPI_Comm comm, dike_sched *s, dike_part *p, dike_nodes *ns,
                      const dike_part_layout *l, dike_time latency_us, const dike_window_opts *o,
                      dike_perf_record *perf, dike_err *e)
{
    emu m;
    int status = 0;
    double t_start = MPI_Wtime();
    emu_init(&m, comm, s, p, ns, l, latency_us, o, perf);
    first_window(&m);
    while (m.running) {
        if (m.stall) { /* the run cannot finish: an error, on every rank, and no output */
            status = dike_coord_stall_status(m.rank, s, e);
            break;
        }
        if (checkpoint_or_stop(&m, &status, e))
            break;
        if (m.T == DIKE_TIME_INF)
            dike_fatal("policy %s left jobs that can never start", m.rank == 0 ? s->pol->name : "?");
        dike_time E = m.T > DIKE_TIME_INF - m.step ? DIKE_TIME_INF : m.T + m.step;
        perf->windows++;
        if (m.rank == o->inject_fatal_rank)
            dike_fatal("injected failure (engine.inject_fatal_rank = %d)", m.rank);
        node_steps(&m, E);
        gather_reports(&m);
        if (m.rank == 0) {
            double tc = m.t_coord;
            coordinate(&m, E);
            dike_nodes_window_end(ns, m.t_coord - tc);
        }
        scatter_actions(&m);
    }
    /* a bound passed in the window that finished the last job (the time series': coord.c,
     * advance_to) still ends the run with the error */
    if (!status && m.stall)
        status = dike_coord_stall_status(m.rank, s, e);
    if (m.rank == 0 && s->signal_fired)
        dike_stop_requested = 0; /* the injected "signal" ends with this run (tests run several) */
    if (!status)
        finish_nodes(&m);
    /* the last samples, taken by finish_nodes, may not fit either: then no output either */
    if (!status && m.ns && nodes_full_anywhere(&m)) {
        if (m.rank == 0)
            s->stalled = DIKE_STALL_NODE_TIMESERIES;
        status = dike_coord_stall_status(m.rank, s, e);
    }
    fill_perf(&m, t_start);
    emu_free(&m);
    return status;
}
