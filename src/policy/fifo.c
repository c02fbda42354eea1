/* fifo: arrival order, head-of-line blocking, no preemption. With scheduler.backfill = true,
 * later jobs that fit may fill in (no reservation for the head). */
#include "dike/sched.h"
#include "policy/jobq.h"
#include "policy/policy.h"

typedef struct fifo_state {
    dike_jobq q; /**< queued jobs by arrival index */
    int32_t *slot; /**< per job: its place in q */
    int backfill;
} fifo_state;

static int fifo_init(dike_sched *s, void **state, dike_err *e)
{
    fifo_state *st = dike_xcalloc(1, sizeof *st);
    st->slot = dike_jobq_slots(dike_sched_workload(s)->njobs);
    dike_jobq_init(&st->q, st->slot);
    st->backfill = dike_sched_config(s)->scheduler_backfill;
    *state = st;
    return 0;
}

static void fifo_arrival(void *state, dike_sched *s, dike_job *j)
{
    fifo_state *st = state;
    dike_jobq_push(&st->q, j, (double)j->idx);
}

static void fifo_decide(void *state, dike_sched *s)
{
    fifo_state *st = state;
    dike_jobq_start_in_order(&st->q, s, st->backfill);
}

static void fifo_restore(void *state, dike_sched *s, dike_job *j)
{
    if (j->state == DIKE_JOB_QUEUED)
        fifo_arrival(state, s, j);
}

static void fifo_free(void *state)
{
    fifo_state *st = state;
    dike_jobq_free(&st->q);
    free(st->slot);
    free(st);
}

const dike_policy dike_policy_fifo = {
    .name = "fifo",
    .summary = "arrival order, head-of-line blocking (scheduler.backfill: fill-in), no preemption",
    .flags = 0,
    .init = fifo_init,
    .on_arrival = fifo_arrival,
    .on_finish = NULL,
    .on_evicted = fifo_arrival, /* back to its place in arrival order */
    .decide = fifo_decide,
    .free = fifo_free,
    .restore_job = fifo_restore,
};
