/* sjf: shortest job first, no preemption. Ties go to the earlier arrival. Head-of-line blocking on
 * the shortest queued job unless scheduler.backfill = true.
 *
 * "Shortest" is the job's estimated total length, dike_sched_est_duration: the true duration under
 * scheduler.duration_knowledge = oracle, the noisy draw under noisy, the tenant's finished-job mean
 * under none. A job back in the queue after a node failure keeps its place by total length too, as
 * oracle SJF always did. Under none the estimates of waiting jobs change as jobs finish, so the
 * queue is re-keyed at the first decision after a completion (O(queue)). */
#include "dike/sched.h"
#include "policy/jobq.h"
#include "policy/policy.h"

typedef struct sjf_state {
    dike_jobq q; /**< queued jobs by duration */
    int32_t *slot; /**< per job: its place in q */
    int backfill;
    uint64_t epoch; /**< dike_sched_est_epoch when the keys were computed */
} sjf_state;

static double sjf_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    return dike_sched_est_duration(s, j);
}

static int sjf_init(dike_sched *s, void **state, dike_err *e)
{
    sjf_state *st = dike_xcalloc(1, sizeof *st);
    st->slot = dike_jobq_slots(dike_sched_workload(s)->njobs);
    dike_jobq_init(&st->q, st->slot);
    st->backfill = dike_sched_config(s)->scheduler_backfill;
    *state = st;
    return 0;
}

static void sjf_arrival(void *state, dike_sched *s, dike_job *j)
{
    sjf_state *st = state;
    dike_jobq_push(&st->q, j, sjf_key(st, s, j));
}

static void sjf_decide(void *state, dike_sched *s)
{
    sjf_state *st = state;
    if (dike_sched_est_epoch(s) != st->epoch) {
        st->epoch = dike_sched_est_epoch(s);
        dike_jobq_rekey(&st->q, s, sjf_key, st);
    }
    dike_jobq_start_in_order(&st->q, s, st->backfill);
}

static void sjf_restore(void *state, dike_sched *s, dike_job *j)
{
    if (j->state == DIKE_JOB_QUEUED)
        sjf_arrival(state, s, j);
}

static void sjf_free(void *state)
{
    sjf_state *st = state;
    dike_jobq_free(&st->q);
    free(st->slot);
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
