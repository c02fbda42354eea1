/* sjf: shortest job first with oracle durations, no preemption. Ties go to the earlier arrival.
 * Head-of-line blocking on the shortest queued job unless scheduler.backfill = true. */
#include "dike/sched.h"
#include "policy/jobq.h"
#include "policy/policy.h"

typedef struct sjf_state {
    dike_jobq q; /**< queued jobs by duration */
    int backfill;
} sjf_state;

static int sjf_init(dike_sched *s, void **state, dike_err *e)
{
    sjf_state *st = dike_xcalloc(1, sizeof *st);
    dike_jobq_init(&st->q);
    st->backfill = dike_sched_config(s)->scheduler_backfill;
    *state = st;
    return 0;
}

static void sjf_arrival(void *state, dike_sched *s, dike_job *j)
{
    sjf_state *st = state;
    dike_jobq_push(&st->q, j, (double)j->spec->duration);
}

static void sjf_decide(void *state, dike_sched *s)
{
    sjf_state *st = state;
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
    free(st);
}

const dike_policy dike_policy_sjf = {
    .name = "sjf",
    .summary = "shortest job first (oracle durations), no preemption",
    .flags = 0,
    .init = sjf_init,
    .on_arrival = sjf_arrival,
    .on_finish = NULL,
    .on_evicted = sjf_arrival,
    .decide = sjf_decide,
    .free = sjf_free,
    .restore_job = sjf_restore,
};
