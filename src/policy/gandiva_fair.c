/* gandiva-fair: tenant tickets and gang-aware stride scheduling across the cluster
 * (Chaudhary et al., EuroSys'20), without its trading of heterogeneous GPUs.
 *
 * Each tenant holds tickets = its [tenants] weight and a pass value; stride = 1 / tickets. At every
 * round boundary (scheduler.round_s is the time slice) the running set is rebuilt: repeatedly, the
 * tenant with the smallest pass among those with an active job that still fits is chosen, its
 * earliest such job is scheduled for the round, and its pass grows by stride x GPUs of that job
 * (gang-aware: a tenant pays for every GPU its gang takes). Jobs that are not chosen are preempted.
 * Between rounds, free GPUs go to queued jobs by the same rule and the tenant pays for the part of
 * the round that is left. A tenant that becomes active again starts at the smallest pass of the
 * active tenants, so an idle period earns no credit (standard stride scheduling). Ties: lower
 * tenant index.
 *
 * Incremental shape. Only the chosen tenant's pass moves, so tenants sit in a heap by (pass,
 * index): one for tenants with active jobs (rounds; its top is also the "smallest active pass"),
 * one for tenants with queued jobs (between rounds). "The earliest job that fits" comes from
 * per-tenant structures kept up to date at each arrival, start, stop and finish:
 *   - queued jobs in a jobq keyed by arrival stamp (one heap per gang size): the earliest queued
 *     job with at most b GPUs is the best bucket head among buckets <= b;
 *   - all active jobs in one arrival-ordered list per gang size (intrusive, O(1) unlink): a
 *     round walks them with one cursor per gang size, so a round visits only the jobs it picks.
 * A tenant with nothing that fits is set aside for the rest of the call (budgets only shrink).
 * Costs: arrival / finish / start / stop O(log n); a decision between rounds
 * O((picks + tenants set aside) x (log T + gang sizes) + picks x log n); a round
 * O(T x gang sizes + picks x (log T + gang sizes) + running + preemptions x log). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dike/sched.h"
#include "policy/common.h"
#include "policy/idheap.h"
#include "policy/jobq.h"
#include "policy/policy.h"

/** The active jobs of one tenant with one gang size, in arrival order. */
typedef struct gf_bucket {
    uint32_t gpus;         /**< gang size (the first member: dike_gang_lower_bound) */
    dike_job *head, *tail; /**< first / last active job */
    dike_job *cursor;      /**< next job a round may pick (valid during a round only) */
    uint32_t cursor_stamp; /**< its arrival stamp (UINT32_MAX: none), kept here so choosing
                                among the gang sizes reads no job */
} gf_bucket;
_Static_assert(offsetof(gf_bucket, gpus) == 0, "dike_gang_lower_bound reads the first member");

typedef struct gf_tenant {
    gf_bucket *b;     /**< buckets sorted by gpus (never removed: few gang sizes exist) */
    uint32_t nb;      /**< buckets */
    dike_jobq queued; /**< queued jobs by arrival stamp */
} gf_tenant;

typedef struct gf_state {
    dike_tenants ten;
    gf_tenant *tn;         /**< per tenant */
    double *pass;          /**< per tenant */
    dike_idheap active;    /**< tenants with active jobs, by (pass, index) */
    dike_idheap waiting;   /**< tenants with queued jobs, by (pass, index) */
    double round_s;
    /* per job, by index */
    dike_job **next, **prev; /**< links of the bucket list */
    uint32_t *stamp;       /**< arrival order */
    uint32_t *mark;        /**< round at which a round picked it */
    uint32_t *rslot;       /**< slot in run[] while running */
    int32_t *qslot;        /**< slot in its tenant's queue while queued (one array for all the
                                tenants' queues: a job is only ever in its own tenant's) */
    uint32_t nstamp, round;
    dike_job **run;        /**< running jobs, unordered */
    size_t nrun, run_cap;
    dike_ranked *order;    /**< picks of the current decision */
    size_t order_cap;
    uint32_t *aside;       /**< tenants set aside during a decision */
    dike_ranked *victims;  /**< scratch: running jobs a round keeps first or did not pick */
    size_t victims_cap;
} gf_state;

static int gf_init(dike_sched *s, void **state, dike_err *e)
{
    gf_state *st = dike_xcalloc(1, sizeof *st);
    int rc = dike_tenants_init(&st->ten, s, e);
    if (rc) {
        free(st);
        return rc;
    }
    uint32_t nt = st->ten.n;
    size_t nj = dike_sched_workload(s)->njobs + 1;
    st->pass = dike_xcalloc(nt + 1, sizeof *st->pass);
    st->tn = dike_xcalloc(nt + 1, sizeof *st->tn);
    st->qslot = dike_jobq_slots(nj);
    for (uint32_t t = 0; t < nt; t++)
        dike_jobq_init(&st->tn[t].queued, st->qslot);
    dike_idheap_init(&st->active, nt, st->pass);
    dike_idheap_init(&st->waiting, nt, st->pass);
    st->aside = dike_xmalloc((nt + 1) * sizeof *st->aside);
    st->next = dike_xcalloc(nj, sizeof *st->next);
    st->prev = dike_xcalloc(nj, sizeof *st->prev);
    st->stamp = dike_xcalloc(nj, sizeof *st->stamp);
    st->mark = dike_xcalloc(nj, sizeof *st->mark);
    st->rslot = dike_xcalloc(nj, sizeof *st->rslot);
    st->round_s = dike_sched_config(s)->scheduler_round_s;
    *state = st;
    return 0;
}

/* ---- per-tenant structures ---- */

static gf_bucket *bucket_of(gf_tenant *tn, uint32_t gpus, int create)
{
    uint32_t lo = dike_gang_lower_bound(tn->b, tn->nb, sizeof *tn->b, gpus); /* gpus is first */
    if (lo < tn->nb && tn->b[lo].gpus == gpus)
        return &tn->b[lo];
    if (!create)
        dike_fatal("gandiva-fair: no bucket of %u GPUs", gpus);
    tn->b = dike_xrealloc(tn->b, (tn->nb + 1) * sizeof *tn->b);
    memmove(&tn->b[lo + 1], &tn->b[lo], (tn->nb - lo) * sizeof *tn->b);
    memset(&tn->b[lo], 0, sizeof tn->b[lo]);
    tn->b[lo].gpus = gpus;
    tn->nb++;
    return &tn->b[lo];
}

static void list_append(gf_state *st, dike_job *j)
{
    gf_bucket *b = bucket_of(&st->tn[j->spec->tenant], j->spec->num_gpus, 1);
    st->next[j->idx] = NULL;
    st->prev[j->idx] = b->tail;
    if (b->tail)
        st->next[b->tail->idx] = j;
    else
        b->head = j;
    b->tail = j;
}

static void list_unlink(gf_state *st, dike_job *j)
{
    gf_bucket *b = bucket_of(&st->tn[j->spec->tenant], j->spec->num_gpus, 0);
    dike_job *p = st->prev[j->idx], *n = st->next[j->idx];
    if (p)
        st->next[p->idx] = n;
    else
        b->head = n;
    if (n)
        st->prev[n->idx] = p;
    else
        b->tail = p;
}

/* The tenant is in `waiting` exactly when it has queued jobs (outside a decision's selection). */
static void waiting_sync(gf_state *st, uint32_t t)
{
    int want = st->tn[t].queued.size > 0;
    if (want && !dike_idheap_has(&st->waiting, t))
        dike_idheap_push(&st->waiting, t);
    else if (!want && dike_idheap_has(&st->waiting, t))
        dike_idheap_remove(&st->waiting, t);
}

static void enqueue(gf_state *st, dike_job *j)
{
    dike_jobq_push(&st->tn[j->spec->tenant].queued, j, (double)st->stamp[j->idx]);
    waiting_sync(st, j->spec->tenant);
}

static void dequeue(gf_state *st, dike_job *j)
{
    dike_jobq_remove(&st->tn[j->spec->tenant].queued, j);
    waiting_sync(st, j->spec->tenant);
}

static void run_add(gf_state *st, dike_job *j)
{
    if (st->nrun == st->run_cap) {
        st->run_cap = st->run_cap ? 2 * st->run_cap : 256;
        st->run = dike_xrealloc(st->run, st->run_cap * sizeof *st->run);
    }
    st->rslot[j->idx] = (uint32_t)st->nrun;
    st->run[st->nrun++] = j;
}

static void run_remove(gf_state *st, dike_job *j)
{
    uint32_t i = st->rslot[j->idx];
    if (i >= st->nrun || st->run[i] != j)
        dike_fatal("gandiva-fair: job %u is not running here", j->idx);
    st->run[i] = st->run[--st->nrun];
    st->rslot[st->run[i]->idx] = i;
}

/* A job starts (1) or is preempted (0): move it between the queued and running structures. */
static void on_change(void *ctx, dike_job *j, int started)
{
    gf_state *st = ctx;
    if (started) {
        dequeue(st, j);
        run_add(st, j);
    } else {
        run_remove(st, j);
        enqueue(st, j);
    }
}

/* A job enters the structures (arrival, or resume from a checkpoint). */
static void track(gf_state *st, dike_job *j)
{
    uint32_t t = j->spec->tenant;
    dike_tenants_arrive(&st->ten, j);
    st->stamp[j->idx] = st->nstamp++;
    list_append(st, j);
    if (!dike_idheap_has(&st->active, t))
        dike_idheap_push(&st->active, t);
    if (j->state == DIKE_JOB_RUNNING)
        run_add(st, j);
    else
        enqueue(st, j);
}

static void gf_arrival(void *state, dike_sched *s, dike_job *j)
{
    gf_state *st = state;
    uint32_t t = j->spec->tenant;
    if (st->ten.active[t] == 0) {
        /* t is not in `active`: its top is the smallest pass of the other active tenants */
        uint32_t top = dike_idheap_top(&st->active);
        if (top != DIKE_IDHEAP_NONE && st->pass[t] < st->pass[top])
            st->pass[t] = st->pass[top];
    }
    track(st, j);
}

/* @p j is done: it ran (a finish) or was queued (withdrawn: its work ended before its preemption
 * took effect). */
static void leave(gf_state *st, dike_job *j, int running)
{
    uint32_t t = j->spec->tenant;
    dike_tenants_leave(&st->ten, j);
    list_unlink(st, j);
    if (running)
        run_remove(st, j);
    else
        dequeue(st, j);
    if (st->ten.active[t] == 0)
        dike_idheap_remove(&st->active, t);
}

static void gf_finish(void *state, dike_sched *s, dike_job *j)
{
    leave(state, j, 1);
}

static void gf_withdraw(void *state, dike_sched *s, dike_job *j)
{
    leave(state, j, 0);
}

static void gf_evicted(void *state, dike_sched *s, dike_job *j)
{
    /* the engine stopped it (node failure): it is queued again */
    on_change(state, j, 0);
}

/* ---- the decision step ---- */

static void pick(gf_state *st, size_t *m, dike_job *j, uint64_t *budget, double charge_s)
{
    uint32_t t = j->spec->tenant;
    if (*m == st->order_cap) {
        st->order_cap = st->order_cap ? 2 * st->order_cap : 256;
        st->order = dike_xrealloc(st->order, st->order_cap * sizeof *st->order);
    }
    st->order[*m].key = (double)*m;
    st->order[*m].job = j;
    (*m)++;
    *budget -= j->spec->num_gpus;
    st->pass[t] += j->spec->num_gpus * charge_s / st->ten.weight[t];
    /* only t's pass moved: put it back in place in both heaps */
    if (dike_idheap_has(&st->active, t))
        dike_idheap_update(&st->active, t);
    if (dike_idheap_has(&st->waiting, t))
        dike_idheap_update(&st->waiting, t);
}

/* The cursor at @p j, or at the first job after it that this round has not picked yet (a round
 * picks the jobs still in their resume before it walks the lists). */
static void cursor_set(gf_state *st, gf_bucket *b, dike_job *j)
{
    while (j && st->mark[j->idx] == st->round)
        j = st->next[j->idx];
    b->cursor = j;
    b->cursor_stamp = j ? st->stamp[j->idx] : UINT32_MAX;
}

/* The earliest not yet picked active job of tenant @p tn with at most @p budget GPUs. */
static gf_bucket *round_candidate(gf_tenant *tn, uint64_t budget)
{
    gf_bucket *best = NULL;
    uint32_t first = UINT32_MAX;
    for (uint32_t i = 0; i < tn->nb && tn->b[i].gpus <= budget; i++)
        if (tn->b[i].cursor_stamp < first) {
            first = tn->b[i].cursor_stamp;
            best = &tn->b[i];
        }
    return best;
}

/* Append running job @p j to the scratch list st->victims (*n entries), keyed by arrival. */
static void by_arrival_add(gf_state *st, size_t *n, dike_job *j)
{
    if (*n == st->victims_cap) {
        st->victims_cap = st->victims_cap ? 2 * st->victims_cap : 64;
        st->victims = dike_xrealloc(st->victims, st->victims_cap * sizeof *st->victims);
    }
    st->victims[*n].key = (double)st->stamp[j->idx];
    st->victims[(*n)++].job = j;
}

/* Round boundary: every active job competes for the GPUs that are up, charged a whole round.
 * First, a running job still in its resume (its launch latency or restore not over: it has not
 * worked since it last started) keeps its GPUs, in arrival order, and its tenant pays the round:
 * its time slice has not begun. Without this, a round no longer than a resume takes every
 * resumed job off its GPUs before it works, and two tenants taking turns never finish
 * (docs/policies.md, "Rounds no longer than a resume"). */
static size_t round_order(gf_state *st, uint64_t budget, dike_time now)
{
    dike_idheap *h = &st->active;
    size_t m = 0, nk = 0;
    uint32_t naside = 0;
    st->round++;
    for (size_t i = 0; i < st->nrun; i++)
        if (st->run[i]->progress_start >= now) /* it has not worked since it started */
            by_arrival_add(st, &nk, st->run[i]);
    dike_ranked_sort(st->victims, nk);
    for (size_t i = 0; i < nk; i++) {
        dike_job *j = st->victims[i].job;
        st->mark[j->idx] = st->round;
        pick(st, &m, j, &budget, st->round_s);
    }
    for (uint32_t k = 0; k < h->n; k++) {
        gf_tenant *tn = &st->tn[h->h[k]];
        for (uint32_t i = 0; i < tn->nb; i++)
            cursor_set(st, &tn->b[i], tn->b[i].head);
    }
    /* every gang has at least one GPU, so nothing fits an empty budget */
    while (h->n && budget > 0) {
        uint32_t t = dike_idheap_top(h);
        gf_bucket *b = round_candidate(&st->tn[t], budget);
        if (!b) {
            dike_idheap_remove(h, t);
            st->aside[naside++] = t;
            continue;
        }
        dike_job *j = b->cursor;
        cursor_set(st, b, st->next[j->idx]);
        st->mark[j->idx] = st->round;
        pick(st, &m, j, &budget, st->round_s);
    }
    for (uint32_t i = 0; i < naside; i++)
        dike_idheap_push(h, st->aside[i]);
    return m;
}

/* Between rounds: queued jobs compete for the free GPUs, charged what is left of the round. */
static size_t fill_order(gf_state *st, uint64_t budget, double charge_s)
{
    dike_idheap *h = &st->waiting;
    size_t m = 0;
    uint32_t naside = 0;
    while (h->n && budget > 0) {
        uint32_t t = dike_idheap_top(h);
        dike_jobq *q = &st->tn[t].queued;
        dike_job *j = dike_jobq_min_fitting(q, budget, NULL, NULL);
        if (!j) {
            dike_idheap_remove(h, t);
            st->aside[naside++] = t;
            continue;
        }
        dike_jobq_remove(q, j); /* out while the selection runs: picked once */
        pick(st, &m, j, &budget, charge_s);
        if (!q->size) {
            dike_idheap_remove(h, t);
            st->aside[naside++] = t;
        }
    }
    /* the picks are still queued until they start */
    for (size_t i = 0; i < m; i++) {
        dike_job *j = st->order[i].job;
        dike_jobq_push(&st->tn[j->spec->tenant].queued, j, (double)st->stamp[j->idx]);
    }
    for (uint32_t i = 0; i < naside; i++)
        waiting_sync(st, st->aside[i]);
    return m;
}

/* Running jobs a round did not pick give their GPUs back, in arrival order. */
static void preempt_unpicked(gf_state *st, dike_sched *s)
{
    size_t nv = 0;
    for (size_t i = 0; i < st->nrun; i++)
        if (st->mark[st->run[i]->idx] != st->round)
            by_arrival_add(st, &nv, st->run[i]);
    dike_ranked_sort(st->victims, nv);
    for (size_t i = 0; i < nv; i++) {
        dike_sched_preempt(s, st->victims[i].job);
        on_change(st, st->victims[i].job, 0);
    }
}

static void gf_decide(void *state, dike_sched *s)
{
    gf_state *st = state;
    if (dike_sched_is_round(s)) {
        size_t m = round_order(st, dike_sched_gpus_up(s), dike_sched_now(s));
        /* jobs that were not picked give their GPUs back first, then the picked ones start */
        preempt_unpicked(st, s);
        dike_reallocate(s, st->order, m, dike_preempt_always, st, on_change);
    } else if (dike_sched_free_gpus(s, -1) > 0) {
        double now = dike_time_to_s(dike_sched_now(s));
        double left = st->round_s - fmod(now, st->round_s);
        size_t m = fill_order(st, dike_sched_free_gpus(s, -1), left);
        dike_fill(s, st->order, m, st, on_change);
    }
}

static void gf_restore(void *state, dike_sched *s, dike_job *j)
{
    track(state, j);
}

static void *gf_save(void *state, size_t *len)
{
    gf_state *st = state;
    *len = st->ten.n * sizeof *st->pass;
    void *b = dike_xmalloc(*len + 1);
    memcpy(b, st->pass, *len);
    return b;
}

static int gf_load(void *state, const void *blob, size_t len)
{
    gf_state *st = state;
    if (len != st->ten.n * sizeof *st->pass)
        return DIKE_EINVAL;
    memcpy(st->pass, blob, len);
    /* the tenant heaps were filled (by restore_job) before the passes came back */
    dike_idheap_rebuild(&st->active);
    dike_idheap_rebuild(&st->waiting);
    return 0;
}

static void gf_free(void *state)
{
    gf_state *st = state;
    for (uint32_t t = 0; t < st->ten.n; t++) {
        free(st->tn[t].b);
        dike_jobq_free(&st->tn[t].queued);
    }
    dike_idheap_free(&st->active);
    dike_idheap_free(&st->waiting);
    dike_tenants_free(&st->ten);
    free(st->tn);
    free(st->qslot);
    free(st->pass);
    free(st->next);
    free(st->prev);
    free(st->stamp);
    free(st->mark);
    free(st->rslot);
    free(st->run);
    free(st->order);
    free(st->aside);
    free(st->victims);
    free(st);
}

const dike_policy dike_policy_gandiva_fair = {
    .name = "gandiva-fair",
    .summary = "tenant tickets, gang-aware stride scheduling, time slices of scheduler.round_s",
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS | DIKE_POLICY_LEASE_ROUND,
    .init = gf_init,
    .on_arrival = gf_arrival,
    .on_finish = gf_finish,
    .on_evicted = gf_evicted,
    .decide = gf_decide,
    .free = gf_free,
    .restore_job = gf_restore,
    .save = gf_save,
    .load = gf_load,
    .on_withdraw = gf_withdraw,
};
