/* drf: weighted max-min fair sharing across tenants with the GPU as the dominant resource
 * (Ghodsi et al., NSDI'11), by progressive filling: the next GPU gang goes to the tenant with the
 * smallest GPUs-held / weight among tenants with a queued job that fits, and that tenant's earliest
 * queued job starts (FIFO inside a tenant; if its earliest job does not fit, the tenant waits —
 * no reordering inside a tenant). Work-conserving (a tenant may exceed its share while others have
 * nothing that fits), no preemption. Ties: lower tenant index. */
#include <string.h>

#include "dike/sched.h"
#include "policy/common.h"
#include "policy/jobq.h"
#include "policy/policy.h"

typedef struct drf_state {
    dike_tenants ten;
    dike_jobq *q;     /**< per tenant: queued jobs in submit order */
    int32_t *qslot;   /**< per job: its place in its tenant's queue (one array for all of them) */
    uint8_t *blocked; /**< per tenant, this decision */
} drf_state;

static int drf_init(dike_sched *s, void **state, dike_err *e)
{
    drf_state *st = dike_xcalloc(1, sizeof *st);
    int rc = dike_tenants_init(&st->ten, s, e);
    if (rc) {
        free(st);
        return rc;
    }
    st->q = dike_xcalloc(st->ten.n + 1, sizeof *st->q);
    st->qslot = dike_jobq_slots(dike_sched_workload(s)->njobs);
    for (uint32_t t = 0; t < st->ten.n; t++)
        dike_jobq_init(&st->q[t], st->qslot);
    st->blocked = dike_xcalloc(st->ten.n + 1, 1);
    *state = st;
    return 0;
}

static void drf_arrival(void *state, dike_sched *s, dike_job *j)
{
    drf_state *st = state;
    dike_tenants_arrive(&st->ten, j);
    dike_jobq_push(&st->q[j->spec->tenant], j, (double)j->idx);
}

static void drf_finish(void *state, dike_sched *s, dike_job *j)
{
    drf_state *st = state;
    dike_tenants_leave(&st->ten, j);
    dike_tenants_run(&st->ten, j, 0);
}

static void drf_evicted(void *state, dike_sched *s, dike_job *j)
{
    drf_state *st = state;
    dike_tenants_run(&st->ten, j, 0);
    dike_jobq_push(&st->q[j->spec->tenant], j, (double)j->idx);
}

static void drf_decide(void *state, dike_sched *s)
{
    drf_state *st = state;
    memset(st->blocked, 0, st->ten.n);
    while (dike_sched_free_gpus(s, -1) > 0) {
        int best = -1;
        for (uint32_t t = 0; t < st->ten.n; t++) {
            if (st->blocked[t] || !st->q[t].size)
                continue;
            if (best < 0 || st->ten.alloc[t] / st->ten.weight[t] <
                                st->ten.alloc[best] / st->ten.weight[best])
                best = (int)t;
        }
        if (best < 0)
            return;
        dike_job *j = dike_jobq_min(&st->q[best]);
        if (dike_sched_start(s, j)) {
            dike_jobq_remove(&st->q[best], j);
            dike_tenants_run(&st->ten, j, 1);
        } else {
            st->blocked[best] = 1;
        }
    }
}

static void drf_restore(void *state, dike_sched *s, dike_job *j)
{
    drf_state *st = state;
    if (j->state == DIKE_JOB_QUEUED) {
        drf_arrival(state, s, j);
    } else {
        dike_tenants_arrive(&st->ten, j);
        dike_tenants_run(&st->ten, j, 1);
    }
}

static void drf_free(void *state)
{
    drf_state *st = state;
    for (uint32_t t = 0; t < st->ten.n; t++)
        dike_jobq_free(&st->q[t]);
    free(st->q);
    free(st->qslot);
    free(st->blocked);
    dike_tenants_free(&st->ten);
    free(st);
}

const dike_policy dike_policy_drf = {
    .name = "drf",
    .summary = "weighted max-min fair share across tenants (GPU dominant), FIFO inside a tenant",
    .flags = 0,
    .init = drf_init,
    .on_arrival = drf_arrival,
    .on_finish = drf_finish,
    .on_evicted = drf_evicted,
    .decide = drf_decide,
    .free = drf_free,
    .restore_job = drf_restore,
};
