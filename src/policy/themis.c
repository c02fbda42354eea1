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
#include <string.h>

#include "dike/sched.h"
#include "policy/common.h"
#include "policy/policy.h"
#include "policy/rho.h"

typedef struct themis_state {
    dike_active act;
    double f;
    uint32_t ntenants;
    double *tenant_rho;   /**< per tenant, this decision */
    uint32_t *tenant_idx; /**< tenants sorted by rho */
    uint8_t *behind;      /**< per tenant: among the (1-f) furthest behind */
    double *job_rho;      /**< per active slot */
    dike_ranked *order;
    size_t order_cap;
} themis_state;

static int themis_init(dike_sched *s, void **state, dike_err *e)
{
    themis_state *st = dike_xcalloc(1, sizeof *st);
    st->f = dike_sched_config(s)->themis_fairness_knob;
    st->ntenants = dike_sched_workload(s)->ntenants;
    st->tenant_rho = dike_xcalloc(st->ntenants + 1, sizeof *st->tenant_rho);
    st->tenant_idx = dike_xcalloc(st->ntenants + 1, sizeof *st->tenant_idx);
    st->behind = dike_xcalloc(st->ntenants + 1, 1);
    *state = st;
    return 0;
}

static void themis_arrival(void *state, dike_sched *s, dike_job *j)
{
    dike_active_add(&((themis_state *)state)->act, j);
}

static void themis_finish(void *state, dike_sched *s, dike_job *j)
{
    dike_active_remove(&((themis_state *)state)->act, j);
}

static void themis_evicted(void *state, dike_sched *s, dike_job *j)
{
}

static const double *g_rho; /* qsort context: tenant rho (single-threaded) */

static int tenant_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (g_rho[a] != g_rho[b])
        return g_rho[a] > g_rho[b] ? -1 : 1; /* worst first */
    return a < b ? -1 : a > b;
}

static size_t build_order(themis_state *st, dike_sched *s, int queued_only)
{
    size_t n = st->act.n;
    if (n > st->order_cap) {
        st->order_cap = n;
        st->order = dike_xrealloc(st->order, n * sizeof *st->order);
        st->job_rho = dike_xrealloc(st->job_rho, n * sizeof *st->job_rho);
    }
    for (uint32_t t = 0; t < st->ntenants; t++) {
        st->tenant_rho[t] = -1;
        st->behind[t] = 0;
    }
    uint32_t nt = 0;
    for (size_t i = 0; i < n; i++) {
        dike_job *j = st->act.jobs[i];
        st->job_rho[i] = dike_rho_hat(s, j, NULL);
        uint32_t t = j->spec->tenant;
        if (st->tenant_rho[t] < 0)
            st->tenant_idx[nt++] = t;
        if (st->job_rho[i] > st->tenant_rho[t])
            st->tenant_rho[t] = st->job_rho[i];
    }
    g_rho = st->tenant_rho;
    qsort(st->tenant_idx, nt, sizeof *st->tenant_idx, tenant_cmp);
    uint32_t k = (uint32_t)ceil((1.0 - st->f) * nt);
    if (k < 1 && nt > 0)
        k = 1;
    for (uint32_t i = 0; i < k && i < nt; i++)
        st->behind[st->tenant_idx[i]] = 1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        dike_job *j = st->act.jobs[i];
        if (queued_only && j->state != DIKE_JOB_QUEUED)
            continue;
        /* behind tenants' jobs first, then the rest; worst rho first inside each group */
        st->order[m].key = (st->behind[j->spec->tenant] ? 0.0 : 1e15) - st->job_rho[i];
        st->order[m].job = j;
        m++;
    }
    dike_ranked_sort(st->order, m);
    return m;
}

static size_t order_fn(void *state, dike_sched *s, int queued_only, dike_ranked **order)
{
    themis_state *st = state;
    size_t n = build_order(st, s, queued_only);
    *order = st->order;
    return n;
}

static void themis_decide(void *state, dike_sched *s)
{
    dike_decide_by_rounds(state, s, order_fn);
}

static void themis_free(void *state)
{
    themis_state *st = state;
    dike_active_free(&st->act);
    free(st->tenant_rho);
    free(st->tenant_idx);
    free(st->behind);
    free(st->job_rho);
    free(st->order);
    free(st);
}

const dike_policy dike_policy_themis = {
    .name = "themis",
    .summary = "finish-time fairness: each round the (1-f) tenants furthest behind get GPUs first",
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS,
    .init = themis_init,
    .on_arrival = themis_arrival,
    .on_finish = themis_finish,
    .on_evicted = themis_evicted,
    .decide = themis_decide,
    .free = themis_free,
    .restore_job = themis_arrival,
};
