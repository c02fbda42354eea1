/* sjf: shortest job first, no preemption. Ties go to the earlier arrival. Head-of-line blocking on
 * the shortest queued job unless scheduler.backfill = true.
 *
 * "Shortest" is the job's estimated total length, dike_sched_est_duration: the true duration under
 * scheduler.duration_knowledge = oracle, the noisy draw under noisy, the tenant's finished-job mean
 * under none. A job back in the queue after a node failure keeps its place by total length too, as
 * oracle SJF always did. Under none the estimates of waiting jobs change as jobs finish: all of a
 * tenant's queued jobs share its estimate, so they wait as one group in index order, and a
 * completion moves only its tenant's group (dike_tenantq; until 2026-12-03 the whole queue was
 * re-keyed, O(queue) per completion). */
#include "dike/sched.h"
#include "policy/policy.h"
#include "policy/tenantq.h"

typedef struct sjf_state {
    dike_tenantq q; /**< queued jobs by duration */
    int backfill;
} sjf_state;

static double sjf_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    return dike_sched_est_duration(s, j);
}

/* Under none a job's estimated length is its tenant's (the mean of its finished jobs). */
static int sjf_shared(void *ctx, const dike_sched *s, const dike_job *j)
{
    return dike_sched_duration_knowledge(s) == DIKE_DURATION_NONE;
}

static int sjf_init(dike_sched *s, void **state, dike_err *e)
{
    sjf_state *st = dike_xcalloc(1, sizeof *st);
    const dike_workload *w = dike_sched_workload(s);
    dike_tenantq_init(&st->q, w->njobs, w->ntenants, sjf_key, sjf_shared, st);
    st->backfill = dike_sched_config(s)->scheduler_backfill;
    *state = st;
    return 0;
}

static void sjf_arrival(void *state, dike_sched *s, dike_job *j)
{
    sjf_state *st = state;
    dike_tenantq_push(&st->q, s, j);
}

static int sjf_start(void *ctx, dike_sched *s, dike_job *j)
{
    sjf_state *st = ctx;
    if (!dike_sched_start(s, j))
        return 0;
    dike_tenantq_remove(&st->q, j);
    return 1;
}

static void sjf_decide(void *state, dike_sched *s)
{
    sjf_state *st = state;
    dike_tenantq_refresh(&st->q, s);
    dike_tenantq_start_in_order(&st->q, s, st->backfill, sjf_start, st);
}

static void sjf_restore(void *state, dike_sched *s, dike_job *j)
{
    if (j->state == DIKE_JOB_QUEUED)
        sjf_arrival(state, s, j);
}

static void sjf_free(void *state)
{
    sjf_state *st = state;
    dike_tenantq_free(&st->q);
    free(st);
}

const dike_policy dike_policy_sjf = {
    .name = "sjf",
    .summary = "shortest job first (estimated durations), no preemption",
    .flags = 0,
    .init = sjf_init,
    .on_arrival = sjf_arrival,
    .on_finish = NULL,
    .on_evicted = sjf_arrival,
    .decide = sjf_decide,
    .free = sjf_free,
    .restore_job = sjf_restore,
};
