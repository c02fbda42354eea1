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
 * tenant index. */
#include <math.h>
#include <string.h>

#include "dike/sched.h"
#include "policy/common.h"
#include "policy/policy.h"

typedef struct gf_state {
    dike_tenants ten;
    dike_active act;
    double *pass;     /**< per tenant */
    double round_s;
    dike_ranked *order;
    size_t order_cap;
    uint8_t *picked;  /**< per active slot */
    size_t *link;     /**< per active slot: next candidate slot of the same tenant */
    size_t *cursor, *tail; /**< per tenant: first / last candidate slot */
} gf_state;

static int gf_init(dike_sched *s, void **state, dike_err *e)
{
    gf_state *st = dike_xcalloc(1, sizeof *st);
    int rc = dike_tenants_init(&st->ten, s, e);
    if (rc) {
        free(st);
        return rc;
    }
    st->pass = dike_xcalloc(st->ten.n + 1, sizeof *st->pass);
    st->round_s = dike_sched_config(s)->scheduler_round_s;
    *state = st;
    return 0;
}

static double min_active_pass(const gf_state *st, uint32_t except)
{
    double m = INFINITY;
    for (uint32_t t = 0; t < st->ten.n; t++)
        if (t != except && st->ten.active[t] > 0 && st->pass[t] < m)
            m = st->pass[t];
    return m;
}

static void gf_arrival(void *state, dike_sched *s, dike_job *j)
{
    gf_state *st = state;
    uint32_t t = j->spec->tenant;
    if (st->ten.active[t] == 0) {
        double m = min_active_pass(st, t);
        if (m != INFINITY && st->pass[t] < m)
            st->pass[t] = m;
    }
    dike_tenants_arrive(&st->ten, j);
    dike_active_add(&st->act, j);
}

static void gf_finish(void *state, dike_sched *s, dike_job *j)
{
    gf_state *st = state;
    dike_tenants_leave(&st->ten, j);
    dike_active_remove(&st->act, j);
}

static void gf_evicted(void *state, dike_sched *s, dike_job *j)
{
}

/* Choose jobs in stride order until nothing more fits in @p budget GPUs. @p queued_only: only
 * queued jobs compete (between rounds). Charges each pick @p charge_s seconds of its gang.
 * Each tenant keeps a cursor over its active jobs in arrival order; the budget only shrinks, so a
 * job that does not fit now never will in this call and the cursor moves past it for good: the
 * whole call is O(active jobs + picks x tenants). */
static size_t stride_order(gf_state *st, dike_sched *s, uint64_t budget, int queued_only,
                           double charge_s)
{
    size_t n = st->act.n;
    uint32_t nt = st->ten.n;
    if (n > st->order_cap) {
        st->order_cap = n;
        st->order = dike_xrealloc(st->order, n * sizeof *st->order);
        st->picked = dike_xrealloc(st->picked, n);
        st->link = dike_xrealloc(st->link, n * sizeof *st->link);
    }
    if (!st->cursor) {
        st->cursor = dike_xmalloc((nt + 1) * sizeof *st->cursor);
        st->tail = dike_xmalloc((nt + 1) * sizeof *st->tail);
    }
    memset(st->picked, 0, n);
    /* per-tenant lists of candidate slots, in arrival order */
    for (uint32_t t = 0; t < nt; t++)
        st->cursor[t] = st->tail[t] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        dike_job *j = st->act.jobs[i];
        if (queued_only && j->state != DIKE_JOB_QUEUED)
            continue;
        uint32_t t = j->spec->tenant;
        st->link[i] = SIZE_MAX;
        if (st->tail[t] == SIZE_MAX)
            st->cursor[t] = i;
        else
            st->link[st->tail[t]] = i;
        st->tail[t] = i;
    }
    size_t m = 0;
    for (;;) {
        int best_t = -1;
        for (uint32_t t = 0; t < nt; t++) {
            /* move the cursor past jobs that can no longer fit */
            while (st->cursor[t] != SIZE_MAX &&
                   st->act.jobs[st->cursor[t]]->spec->num_gpus > budget)
                st->cursor[t] = st->link[st->cursor[t]];
            if (st->cursor[t] == SIZE_MAX)
                continue;
            if (best_t < 0 || st->pass[t] < st->pass[best_t])
                best_t = (int)t;
        }
        if (best_t < 0)
            break;
        size_t i = st->cursor[best_t];
        dike_job *j = st->act.jobs[i];
        st->cursor[best_t] = st->link[i];
        st->picked[i] = 1;
        st->order[m].key = (double)m;
        st->order[m].job = j;
        m++;
        budget -= j->spec->num_gpus;
        st->pass[best_t] += j->spec->num_gpus * charge_s / st->ten.weight[best_t];
    }
    return m;
}

static void gf_decide(void *state, dike_sched *s)
{
    gf_state *st = state;
    if (dike_sched_is_round(s)) {
        size_t m = stride_order(st, s, dike_sched_gpus_up(s), 0, st->round_s);
        /* jobs that were not picked give their GPUs back first, then the picked ones start */
        for (size_t i = 0; i < st->act.n; i++)
            if (!st->picked[i] && st->act.jobs[i]->state == DIKE_JOB_RUNNING)
                dike_sched_preempt(s, st->act.jobs[i]);
        dike_reallocate(s, st->order, m, dike_preempt_always, st, NULL);
    } else if (dike_sched_free_gpus(s, -1) > 0) {
        double now = dike_time_to_s(dike_sched_now(s));
        double left = st->round_s - fmod(now, st->round_s);
        size_t m = stride_order(st, s, dike_sched_free_gpus(s, -1), 1, left);
        dike_fill(s, st->order, m, st, NULL);
    }
}

static void gf_restore(void *state, dike_sched *s, dike_job *j)
{
    gf_state *st = state;
    dike_tenants_arrive(&st->ten, j);
    dike_active_add(&st->act, j);
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
    return 0;
}

static void gf_free(void *state)
{
    gf_state *st = state;
    dike_tenants_free(&st->ten);
    dike_active_free(&st->act);
    free(st->pass);
    free(st->order);
    free(st->picked);
    free(st->link);
    free(st->cursor);
    free(st->tail);
    free(st);
}

const dike_policy dike_policy_gandiva_fair = {
    .name = "gandiva-fair",
    .summary = "tenant tickets, gang-aware stride scheduling, time slices of scheduler.round_s",
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS,
    .init = gf_init,
    .on_arrival = gf_arrival,
    .on_finish = gf_finish,
    .on_evicted = gf_evicted,
    .decide = gf_decide,
    .free = gf_free,
    .restore_job = gf_restore,
    .save = gf_save,
    .load = gf_load,
};
