/* themis: finish-time fairness (Mahajan et al., NSDI'20), as an auction-free reconstruction.
 *
 * Every round (lease = scheduler.round_s) each active job's estimated rho_hat is computed
 * (policy/rho.h). A tenant's rho is its worst job's. The (1 - f) fraction of tenants with the worst
 * rho (at least one tenant; f = themis.fairness_knob) are offered GPUs first, their jobs worst rho
 * first; then every other job, worst rho first (work-conserving). The running set is recomputed
 * from that order at each round and jobs that fell out are preempted. Between rounds, free GPUs go
 * to queued jobs in the same order. Themis's partial-allocation auction is not modelled: GPUs are
 * offered to whole gangs in order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dike/sched.h"
#include "policy/common.h"
#include "policy/jobsets.h"
#include "policy/policy.h"
#include "policy/rho.h"
#include "policy/rhoindex.h"

/* Every job's rho_hat moves with time, with the number of jobs in the system and (queued jobs)
 * with the free capacity, so no order survives from one decision to the next: each decision
 * computes the rho_hat it needs afresh. What it saves is the rest: the order is read lazily
 * (policy/rankwalk.h), and between rounds only queued jobs whose gang fits in the free GPUs are
 * ranked — the others cannot start before the next decision — and the running jobs are not
 * rated at all: which tenants are behind is decided at the round and kept until the next one.
 * On a long queue a fill rates only the few candidates that bounds on rho_hat cannot rule out
 * (policy/rhoindex.h), in the same order.
 *
 * That is a global pass once per round where the whole-order definition made one per decision
 * (every active job rated for its tenant's rho at every fill). It changes schedules; it was kept
 * because no exact shortcut holds: when the cluster keeps up, nearly every running job has rho_hat
 * = 1 exactly (started at once, at full rate), and the tenants' rho then differ only by rounding
 * (1 + 1e-15 .. 1e-13, measured on a 100,000-job synthetic run), so the tenant the old rule put
 * first was picked by rounding noise that only rating every job reproduces. An exact attempt (per
 * tenant heaps of upper bounds on rho_hat, best-first) gave the same schedules but had to rate
 * every tied job (branch h-themis-bounds-attempt; docs/policies.md). */

typedef struct themis_state {
    double f;
    uint32_t ntenants;
    double *tenant_rho;   /**< per tenant, this round; -1 if it has no job rated */
    uint32_t *tenant_idx; /**< tenants sorted by rho */
    uint8_t *behind;      /**< per tenant: among the (1-f) furthest behind at the last round
                               (every tenant active then, if all were behind) */
    uint32_t *active;     /**< per tenant: active jobs */
    uint32_t tenants_active; /**< tenants with an active job */
    dike_jobsets jobs;    /**< active jobs: running, queued by gang size */
    dike_sched *sched;    /**< the coordinator of the decision in progress (for on_change) */
    dike_ranked *order;
    dike_rank_scratch scratch;
    size_t order_cap;
    int indexed;          /**< fills may read the queue from @p index (see themis_init) */
    dike_rhoindex index;  /**< queued jobs by a bound on rho_hat */
} themis_state;

static int rho_index_mode = 1; /* dike_themis_rho_index */

void dike_themis_rho_index(int mode)
{
    rho_index_mode = mode;
}

/* ---- options: [themis] ---- */

typedef struct themis_params {
    double fairness_knob; /**< f in [0, 1] */
} themis_params;

static const dike_option themis_options[] = {
    {"fairness_knob", DIKE_OPT_DOUBLE, DIKE_OPT_FIELD(themis_params, fairness_knob), "0.8",
     DIKE_OPT_AT_LEAST(0, 1), NULL,
     "f: each round only the (1-f) fraction of tenants with the worst rho are offered GPUs first"},
    {NULL}};

static int themis_init(dike_sched *s, void **state, dike_err *e)
{
    themis_state *st = dike_xcalloc(1, sizeof *st);
    const dike_workload *w = dike_sched_workload(s);
    const themis_params *p = dike_policy_params(dike_sched_config(s), &dike_policy_themis);
    st->f = p->fairness_knob;
    st->ntenants = w->ntenants;
    st->tenant_rho = dike_xcalloc(st->ntenants + 1, sizeof *st->tenant_rho);
    st->tenant_idx = dike_xcalloc(st->ntenants + 1, sizeof *st->tenant_idx);
    st->behind = dike_xcalloc(st->ntenants + 1, 1);
    st->active = dike_xcalloc(st->ntenants + 1, sizeof *st->active);
    dike_jobsets_init(&st->jobs, w);
    /* The index needs a queued job's work left to be known while it waits (not so in the
     * emulating mode, where a stop's work left arrives later) and one placement rate per gang
     * shape (a placement that reads only that). */
    const dike_placement *plc = dike_placement_find(dike_sched_config(s)->scheduler_placement);
    st->indexed = rho_index_mode != 0 && plc && plc->by_shape && !dike_sched_emulating(s);
    dike_rhoindex_init(&st->index, s, &st->jobs);
    *state = st;
    return 0;
}

/* Keep the sets in step with the job's state (the coordinator changed it just before). */
static void on_change(void *state, dike_job *j, int started)
{
    themis_state *st = state;
    dike_jobsets_moved(&st->jobs, j, started);
    if (started)
        dike_rhoindex_remove(&st->index, j);
    else
        dike_rhoindex_add(&st->index, st->sched, j, st->behind[j->spec->tenant] ? 0 : 1);
}

static void themis_arrival(void *state, dike_sched *s, dike_job *j)
{
    themis_state *st = state;
    if (st->active[j->spec->tenant]++ == 0)
        st->tenants_active++;
    dike_jobsets_add(&st->jobs, j);
    if (j->state == DIKE_JOB_QUEUED)
        dike_rhoindex_add(&st->index, s, j, st->behind[j->spec->tenant] ? 0 : 1);
}

/* @p j is done: it ran (a finish) or was queued (withdrawn: its work ended before its preemption
 * took effect). */
static void leave(themis_state *st, dike_job *j, int running)
{
    if (--st->active[j->spec->tenant] == 0)
        st->tenants_active--;
    dike_jobsets_remove(&st->jobs, j, running);
    dike_rhoindex_remove(&st->index, j);
}

static void themis_finish(void *state, dike_sched *s, dike_job *j)
{
    leave(state, j, 1);
}

static void themis_withdraw(void *state, dike_sched *s, dike_job *j)
{
    leave(state, j, 0);
}

static void themis_evicted(void *state, dike_sched *s, dike_job *j)
{
    ((themis_state *)state)->sched = s;
    on_change(state, j, 0);
}

static const double *g_rho; /* qsort context: tenant rho (single-threaded) */

static int tenant_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (g_rho[a] != g_rho[b])
        return g_rho[a] > g_rho[b] ? -1 : 1; /* worst first */
    return a < b ? -1 : a > b;
}

/* How many tenants get first pick: the (1 - f) fraction furthest behind, at least one. */
static uint32_t tenants_behind(const themis_state *st)
{
    uint32_t nt = st->tenants_active;
    uint32_t k = (uint32_t)ceil((1.0 - st->f) * nt);
    return k < 1 && nt > 0 ? 1 : k;
}

static void reserve(themis_state *st, size_t n)
{
    if (n > st->order_cap) {
        st->order_cap = n > 2 * st->order_cap ? n : 2 * st->order_cap;
        st->order = dike_xrealloc(st->order, st->order_cap * sizeof *st->order);
    }
}

/* Append @p l's jobs with their rho_hat (in .key for now) and, at a @p round, raise their
 * tenants' rho (only a round decides who is behind). */
static size_t rate_list(themis_state *st, dike_sched *s, const dike_jobset *l, size_t m, int round)
{
    for (size_t i = 0; i < l->n; i++) {
        dike_job *j = l->jobs[i];
        double rho = dike_rho_hat(s, j, NULL);
        uint32_t t = j->spec->tenant;
        if (round && rho > st->tenant_rho[t])
            st->tenant_rho[t] = rho;
        st->order[m].key = rho;
        st->order[m].job = j;
        m++;
    }
    return m;
}

/* Mark the k tenants with the worst rho (rated at this round) as behind. */
static void mark_behind(themis_state *st, uint32_t k)
{
    uint32_t nt = 0;
    for (uint32_t t = 0; t < st->ntenants; t++)
        if (st->tenant_rho[t] >= 0)
            st->tenant_idx[nt++] = t;
    g_rho = st->tenant_rho;
    qsort(st->tenant_idx, nt, sizeof *st->tenant_idx, tenant_cmp);
    for (uint32_t i = 0; i < k && i < nt; i++)
        st->behind[st->tenant_idx[i]] = 1;
}

/* Rank the active jobs (all at a round, else only the queued ones whose gang fits in @p fit
 * GPUs) into st->order; returns how many. Key: behind tenants' jobs first, then the rest; worst
 * rho first inside each group (rounding of 1e15 - rho and ties by job index included). A round
 * decides who is behind; a fill uses that, unless every tenant active now is behind. */
static size_t build_order(themis_state *st, dike_sched *s, int round, uint64_t fit)
{
    uint32_t k = tenants_behind(st);
    int everyone_behind = k >= st->tenants_active;
    const dike_jobsets *js = &st->jobs;
    reserve(st, js->running.n + js->nqueued);
    for (uint32_t t = 0; round && t < st->ntenants; t++) /* O(tenants): at rounds only */
        st->tenant_rho[t] = -1;
    size_t m = 0;
    for (uint32_t b = 0; b < js->nsizes && (round || js->sizes[b] <= fit); b++)
        m = rate_list(st, s, &js->queued[b], m, round);
    if (round) {
        m = rate_list(st, s, &js->running, m, 1);
        memset(st->behind, 0, st->ntenants);
        if (everyone_behind)
            for (uint32_t t = 0; t < st->ntenants; t++)
                st->behind[t] = st->active[t] > 0;
        else
            mark_behind(st, k);
    }
    if (everyone_behind) {
        for (size_t i = 0; i < m; i++)
            st->order[i].key = dike_rho_key(st->order[i].key, 1);
        return m;
    }
    for (size_t i = 0; i < m; i++)
        st->order[i].key =
            dike_rho_key(st->order[i].key, st->behind[st->order[i].job->spec->tenant]);
    return m;
}

/* The index pays where the queue is long: a short one is cheaper to rate whole than to keep in
 * buckets (on TitanSched Philly at 512 GPUs, a few hundred queued jobs, fills from the index took
 * twice as long). Both give the same order, so the switch changes no schedule. */
#define INDEX_FROM 4096 /* queued jobs at which fills start using the index */
#define INDEX_UNTIL 1024 /* ... and below which they stop (and it is dropped) */

static int use_index(themis_state *st)
{
    if (!st->indexed)
        return 0;
    if (rho_index_mode == 2 || st->jobs.nqueued >= (st->index.valid ? INDEX_UNTIL : INDEX_FROM))
        return 1;
    dike_rhoindex_invalidate(&st->index);
    return 0;
}

/* A fill from the index: the order of build_order(round = 0) and dike_fill_ranked's greedy walk
 * over it (every job that fits the GPUs still free, in order), read from a few jobs. */
static void fill_indexed(themis_state *st, dike_sched *s)
{
    if (!st->index.valid)
        dike_rhoindex_build(&st->index, s, st->behind);
    uint32_t k = tenants_behind(st);
    uint64_t fit = dike_sched_free_gpus(s, -1);
    dike_rhoindex_begin(&st->index, s, fit, k >= st->tenants_active);
    dike_job *j;
    while (dike_sched_free_gpus(s, -1) > 0 &&
           (j = dike_rhoindex_next(&st->index, s, dike_sched_free_gpus(s, -1))))
        if (dike_sched_start(s, j))
            on_change(st, j, 1);
    dike_rhoindex_end(&st->index, s);
}

/* At a round boundary the running set follows the whole order (lease = round); between rounds
 * free GPUs go to queued jobs in order. */
static void themis_decide(void *state, dike_sched *s)
{
    themis_state *st = state;
    st->sched = s;
    if (dike_sched_is_round(s)) {
        dike_rhoindex_invalidate(&st->index); /* the groups move */
        size_t n = build_order(st, s, 1, 0);
        dike_reallocate_ranked(s, st->order, n, &st->scratch, st, on_change);
    } else if (dike_sched_free_gpus(s, -1) > 0 && use_index(st)) {
        fill_indexed(st, s);
    } else if (dike_sched_free_gpus(s, -1) > 0) {
        size_t n = build_order(st, s, 0, dike_sched_free_gpus(s, -1));
        dike_fill_ranked(s, st->order, n, st, on_change);
    }
}

/* The behind tenants are the one thing not recomputed from the jobs before the next round. */
static void *themis_save(void *state, size_t *len)
{
    themis_state *st = state;
    *len = st->ntenants;
    void *b = dike_xmalloc(*len + 1);
    memcpy(b, st->behind, *len);
    return b;
}

static int themis_load(void *state, const void *blob, size_t len)
{
    themis_state *st = state;
    if (len != st->ntenants)
        return DIKE_EINVAL;
    memcpy(st->behind, blob, len);
    dike_rhoindex_invalidate(&st->index);
    return 0;
}

static void themis_free(void *state)
{
    themis_state *st = state;
    free(st->tenant_rho);
    free(st->tenant_idx);
    free(st->behind);
    free(st->active);
    dike_jobsets_free(&st->jobs);
    free(st->order);
    dike_rank_scratch_free(&st->scratch);
    dike_rhoindex_free(&st->index);
    free(st);
}

const dike_policy dike_policy_themis = {
    .name = "themis",
    .summary = "finish-time fairness: each round the (1-f) tenants furthest behind get GPUs first",
    .options = themis_options,
    .params_size = sizeof(themis_params),
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS | DIKE_POLICY_LEASE_ROUND,
    .init = themis_init,
    .on_arrival = themis_arrival,
    .on_finish = themis_finish,
    .on_evicted = themis_evicted,
    .decide = themis_decide,
    .free = themis_free,
    .restore_job = themis_arrival,
    .save = themis_save,
    .load = themis_load,
    .on_withdraw = themis_withdraw,
};
