/* srtf: shortest remaining time first, preemptive, oracle durations.
 *
 * "Remaining time" is measured as remaining reference work (seconds at rate 1, the job's best
 * placement on the reference GPU type) plus, for a job that would resume, the restore cost.
 * Using work rather than wall time to finish keeps the order consistent between queued and
 * running jobs: a job on a slow placement does not look longer than it is, so two jobs cannot
 * preempt each other back and forth (each preemption raises the victim's key by the restore
 * cost, and running only lowers keys).
 *
 * The shortest queued job starts if it fits. If not, running jobs with more remaining work are
 * preempted, the longest-running-to-finish first, but only when that frees enough GPUs of one
 * type for it: a preemption that cannot start the job is never made. A job started at this
 * instant is never preempted at the same instant. */
#include "dike/sched.h"
#include "policy/jobq.h"
#include "policy/policy.h"

#include <string.h>

typedef struct srtf_state {
    dike_jobq queued;  /**< by remaining work */
    dike_jobq running; /**< by -finish: head = the job that finishes last (work <= time left) */
    int backfill;
    dike_job **tmp;    /**< scratch for popped running jobs */
    size_t tmp_cap;
} srtf_state;

static int srtf_init(dike_sched *s, void **state, dike_err *e)
{
    srtf_state *st = dike_xcalloc(1, sizeof *st);
    dike_jobq_init(&st->queued);
    dike_jobq_init(&st->running);
    st->backfill = dike_sched_config(s)->scheduler_backfill;
    *state = st;
    return 0;
}

/* Time the job would need if it started now on its best placement. */
static double queued_time(const dike_sched *s, const dike_job *j)
{
    double restore = j->first_start >= 0 ? dike_sched_config(s)->scheduler_preemption_cost_s * 1e6 : 0;
    return j->remaining + restore;
}

static void srtf_arrival(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    dike_jobq_push(&st->queued, j, queued_time(s, j));
}

static void srtf_finish(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    dike_jobq_remove(&st->running, j);
}

static void srtf_evicted(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    dike_jobq_remove(&st->running, j);
    dike_jobq_push(&st->queued, j, queued_time(s, j));
}

static int start(srtf_state *st, dike_sched *s, dike_job *j)
{
    if (!dike_sched_start(s, j))
        return 0;
    dike_jobq_remove(&st->queued, j);
    dike_jobq_push(&st->running, j, -(double)j->finish);
    return 1;
}

/* Try to make room for @p q on GPU type @p t by preempting longer running jobs of that type. */
static int preempt_for(srtf_state *st, dike_sched *s, dike_job *q, int t)
{
    dike_time now = dike_sched_now(s);
    uint64_t have = dike_sched_free_gpus(s, t);
    uint32_t g = q->spec->num_gpus;
    size_t npop = 0, nvictims = 0;
    dike_job *r;
    /* Pop running jobs, latest finish first, while they are longer than q. */
    double need_time = queued_time(s, q);
    /* Remaining work never exceeds time to finish (rates <= 1 on the reference type), so once
     * the time to finish drops to need_time no later job can be a victim. */
    while (have < g && (r = dike_jobq_min(&st->running)) && (double)(r->finish - now) > need_time) {
        dike_jobq_remove(&st->running, r);
        if (npop == st->tmp_cap) {
            st->tmp_cap = st->tmp_cap ? 2 * st->tmp_cap : 64;
            st->tmp = dike_xrealloc(st->tmp, st->tmp_cap * sizeof *st->tmp);
        }
        if (r->type == t && r->run_start < now && dike_sched_remaining(s, r) > need_time) {
            /* victims are kept at the front of tmp, in pop order */
            st->tmp[npop] = st->tmp[nvictims];
            st->tmp[nvictims++] = r;
            have += r->spec->num_gpus;
        } else {
            st->tmp[npop] = r;
        }
        npop++;
    }
    int ok = have >= g;
    for (size_t i = 0; i < npop; i++) {
        dike_job *v = st->tmp[i];
        if (ok && i < nvictims) {
            dike_sched_preempt(s, v);
            dike_jobq_push(&st->queued, v, queued_time(s, v));
        } else {
            dike_jobq_push(&st->running, v, -(double)v->finish);
        }
    }
    return ok && start(st, s, q);
}

static void srtf_decide(void *state, dike_sched *s)
{
    srtf_state *st = state;
    const dike_cluster *cl = dike_sched_cluster(s);
    dike_job *q;
    while ((q = dike_jobq_min(&st->queued))) {
        if (start(st, s, q))
            continue;
        int started = 0;
        for (uint32_t t = 0; t < cl->ntypes && !started; t++)
            if (q->spec->gpu_type < 0 || q->spec->gpu_type == (int)t)
                started = preempt_for(st, s, q, (int)t);
        if (!started)
            break;
    }
    if (!st->backfill || !q)
        return;
    /* Fill-in without preemption: shorter-first among the jobs that fit. */
    uint8_t *skip = NULL;
    uint32_t nskip = 0, bi;
    while ((q = dike_jobq_min_fitting(&st->queued, dike_sched_free_gpus(s, -1), skip, &bi))) {
        if (start(st, s, q))
            continue;
        if (bi >= nskip) {
            skip = dike_xrealloc(skip, st->queued.nb);
            memset(skip + nskip, 0, st->queued.nb - nskip);
            nskip = st->queued.nb;
        }
        skip[bi] = 1;
    }
    free(skip);
}

static void srtf_restore(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    if (j->state == DIKE_JOB_QUEUED)
        dike_jobq_push(&st->queued, j, queued_time(s, j));
    else
        dike_jobq_push(&st->running, j, -(double)j->finish);
}

static void srtf_free(void *state)
{
    srtf_state *st = state;
    dike_jobq_free(&st->queued);
    dike_jobq_free(&st->running);
    free(st->tmp);
    free(st);
}

const dike_policy dike_policy_srtf = {
    .name = "srtf",
    .summary = "shortest remaining time first (oracle), preemptive",
    .flags = DIKE_POLICY_PREEMPTIVE,
    .init = srtf_init,
    .on_arrival = srtf_arrival,
    .on_finish = srtf_finish,
    .on_evicted = srtf_evicted,
    .decide = srtf_decide,
    .free = srtf_free,
    .restore_job = srtf_restore,
};
