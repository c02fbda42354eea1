/* drf: weighted max-min fair sharing across tenants with the GPU as the dominant resource
 * (Ghodsi et al., NSDI'11), by progressive filling: the next GPU gang goes to the tenant with the
 * smallest GPUs-held / weight among tenants with a queued job that fits, and that tenant's earliest
 * queued job starts (FIFO inside a tenant; if its earliest job does not fit, the tenant waits —
 * no reordering inside a tenant). Work-conserving (a tenant may exceed its share while others have
 * nothing that fits), no preemption. Ties: lower tenant index.
 *
 * The tenants with queued jobs sit in an indexed heap by (GPUs held / weight, index), so each
 * start costs O(log T) for T tenants, not a scan of all of them (with 10,000 tenants the scan made
 * a 100,000-job run take 158 s; docs/performance.md, "Many tenants"). A tenant whose earliest job
 * did not fit leaves the heap for the rest of the decision and comes back at its end. A second heap
 * of the same tenants by their earliest job's GPUs ends the decision once every waiting head wants
 * more GPUs than are free (each would fail to start), instead of trying every tenant in turn. */
#include "dike/sched.h"
#include "policy/common.h"
#include "policy/idheap.h"
#include "policy/jobq.h"
#include "policy/policy.h"

typedef struct drf_state {
    dike_tenants ten;
    dike_jobq *q;     /**< per tenant: queued jobs in submit order */
    int32_t *qslot;   /**< per job: its place in its tenant's queue (one array for all of them) */
    double *key;      /**< per tenant: GPUs held / weight */
    dike_idheap ready; /**< tenants with queued jobs, not blocked in this decision, by (key, index) */
    double *head;     /**< per tenant with queued jobs: its earliest job's GPUs */
    dike_idheap small; /**< the members of ready, by head: the smallest gang any of them could start */
    uint32_t *blocked; /**< tenants whose earliest job did not fit, this decision */
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
    st->key = dike_xcalloc(st->ten.n + 1, sizeof *st->key);
    dike_idheap_init(&st->ready, st->ten.n, st->key);
    st->head = dike_xcalloc(st->ten.n + 1, sizeof *st->head);
    dike_idheap_init(&st->small, st->ten.n, st->head);
    st->blocked = dike_xcalloc(st->ten.n + 1, sizeof *st->blocked);
    *state = st;
    return 0;
}

/* Tenant @p t's GPUs held changed (dike_tenants_run): its key, and its place if it waits. */
static void rekey(drf_state *st, uint32_t t)
{
    st->key[t] = st->ten.alloc[t] / st->ten.weight[t];
    if (dike_idheap_has(&st->ready, t))
        dike_idheap_update(&st->ready, t);
}

/* Tenant @p t (with queued jobs) waits in both heaps, with the GPUs of its earliest job. */
static void wait_in(drf_state *st, uint32_t t)
{
    st->head[t] = dike_jobq_min(&st->q[t])->spec->num_gpus;
    if (dike_idheap_has(&st->ready, t)) {
        dike_idheap_update(&st->small, t);
    } else {
        dike_idheap_push(&st->ready, t);
        dike_idheap_push(&st->small, t);
    }
}

static void leave(drf_state *st, uint32_t t)
{
    dike_idheap_remove(&st->ready, t);
    dike_idheap_remove(&st->small, t);
}

static void enqueue(drf_state *st, dike_job *j)
{
    dike_jobq_push(&st->q[j->spec->tenant], j, (double)j->idx);
    wait_in(st, j->spec->tenant);
}

static void drf_arrival(void *state, dike_sched *s, dike_job *j)
{
    drf_state *st = state;
    dike_tenants_arrive(&st->ten, j);
    enqueue(st, j);
}

static void drf_finish(void *state, dike_sched *s, dike_job *j)
{
    drf_state *st = state;
    dike_tenants_leave(&st->ten, j);
    dike_tenants_run(&st->ten, j, 0);
    rekey(st, j->spec->tenant);
}

static void drf_evicted(void *state, dike_sched *s, dike_job *j)
{
    drf_state *st = state;
    dike_tenants_run(&st->ten, j, 0);
    rekey(st, j->spec->tenant);
    enqueue(st, j);
}

static void drf_decide(void *state, dike_sched *s)
{
    drf_state *st = state;
    uint32_t nblocked = 0;
    for (;;) {
        uint64_t nfree = dike_sched_free_gpus(s, -1);
        uint32_t t = dike_idheap_top(&st->ready);
        /* every waiting head wants more GPUs than are free: none could start */
        if (t == DIKE_IDHEAP_NONE || st->head[dike_idheap_top(&st->small)] > (double)nfree)
            break;
        dike_job *j = dike_jobq_min(&st->q[t]);
        if (dike_sched_start(s, j)) {
            dike_jobq_remove(&st->q[t], j);
            dike_tenants_run(&st->ten, j, 1);
            if (st->q[t].size)
                wait_in(st, t);
            else
                leave(st, t);
            rekey(st, t);
        } else {
            leave(st, t);
            st->blocked[nblocked++] = t;
        }
    }
    while (nblocked)
        wait_in(st, st->blocked[--nblocked]);
}

static void drf_restore(void *state, dike_sched *s, dike_job *j)
{
    drf_state *st = state;
    if (j->state == DIKE_JOB_QUEUED) {
        drf_arrival(state, s, j);
    } else {
        dike_tenants_arrive(&st->ten, j);
        dike_tenants_run(&st->ten, j, 1);
        rekey(st, j->spec->tenant);
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
    free(st->key);
    free(st->head);
    dike_idheap_free(&st->ready);
    dike_idheap_free(&st->small);
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
