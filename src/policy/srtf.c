/* srtf: shortest remaining time first, preemptive.
 *
 * Remaining work is what the scheduler believes, dike_sched_est_remaining (scheduler.
 * duration_knowledge): exact under oracle; under noisy and none the estimate minus the work done,
 * and for a job that has outlived its estimate as much again as it has done. Below, "remaining"
 * means that estimate.
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
 * instant is never preempted at the same instant.
 *
 * A running job's finish time is fixed while it runs, so time left (finish - now) orders the
 * running jobs the same way at every instant: they sit in per-type treaps by finish
 * (dike_fintree), entered at start and left at stop, and the victim search walks them in place —
 * it used to pop every job longer than the head from one heap and push it back at each decision.
 * The treaps' GPU counts end a search that cannot succeed in O(log n).
 *
 * Without the oracle two things change. The running jobs' finish times are the truth, so they
 * neither prune nor order the victim search: every running job of the type is a candidate, the
 * largest estimated remaining first (O(running jobs of the type) when the queue head is blocked). And under none
 * a waiting job's estimate moves when a job of its tenant (or, before its tenant has history, any
 * job) finishes, so the queue is re-keyed at the first decision after a completion (O(queue));
 * under noisy a waiting job's estimate does not change, so its key taken at enqueue time stays
 * right. */
#include "dike/sched.h"
#include "policy/common.h"
#include "policy/fintree.h"
#include "policy/jobq.h"
#include "policy/policy.h"

#include <math.h>
#include <string.h>

typedef struct srtf_state {
    dike_jobq queued;     /**< by remaining work */
    int32_t *slot;        /**< per job: its place in queued */
    dike_fintree running; /**< per GPU type, by finish: latest first (work <= time left) */
    int backfill;
    int oracle;        /**< scheduler.duration_knowledge = oracle */
    uint64_t epoch;    /**< dike_sched_est_epoch when the queued keys were computed */
    dike_job **tmp;    /**< scratch: victims of one preempt_for */
    size_t tmp_cap;
    dike_ranked *cand; /**< scratch: victim candidates (without the oracle) */
    size_t cand_cap;
} srtf_state;

static int srtf_init(dike_sched *s, void **state, dike_err *e)
{
    srtf_state *st = dike_xcalloc(1, sizeof *st);
    st->slot = dike_jobq_slots(dike_sched_workload(s)->njobs);
    dike_jobq_init(&st->queued, st->slot);
    dike_fintree_init(&st->running, dike_sched_workload(s)->njobs, dike_sched_cluster(s)->ntypes);
    st->backfill = dike_sched_config(s)->scheduler_backfill;
    st->oracle = dike_sched_duration_knowledge(s) == DIKE_DURATION_ORACLE;
    *state = st;
    return 0;
}

/* Time the job would need if it started now on its best placement, by the estimate. */
static double queued_time(const dike_sched *s, const dike_job *j)
{
    double restore = j->first_start >= 0 ? dike_sched_config(s)->scheduler_preemption_cost_s * 1e6 : 0;
    return dike_sched_est_remaining(s, j) + restore;
}

static double queued_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    return queued_time(s, j);
}

static void srtf_arrival(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    dike_jobq_push(&st->queued, j, queued_time(s, j));
}

static void srtf_finish(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    dike_fintree_remove(&st->running, j);
}

static void srtf_evicted(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    dike_fintree_remove(&st->running, j);
    dike_jobq_push(&st->queued, j, queued_time(s, j));
}

static int start(srtf_state *st, dike_sched *s, dike_job *j)
{
    if (!dike_sched_start(s, j))
        return 0;
    dike_jobq_remove(&st->queued, j);
    dike_fintree_insert(&st->running, (uint32_t)j->type, j);
    return 1;
}

static int fill_start(void *ctx, dike_sched *s, dike_job *j)
{
    return start(ctx, s, j);
}

/* One victim search of preempt_for / preempt_for_estimated (dike_fintree_walk context). */
typedef struct victim_search {
    srtf_state *st;
    dike_sched *s;
    dike_time now;
    double need_time; /**< what the queued job needs, us */
    uint64_t have;    /**< free GPUs of the type + the victims' so far */
    uint32_t g;       /**< the queued job's gang */
    size_t n;         /**< victims (preempt_for) / candidates (estimated) so far */
} victim_search;

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? 2 * *cap : 64;
    return dike_xrealloc(p, *cap * size);
}

static int collect_estimated(void *ctx, dike_job *r)
{
    victim_search *v = ctx;
    if (r->run_start >= v->now)
        return 0;
    double rem = dike_sched_est_remaining_running(v->s, r);
    if (rem <= v->need_time)
        return 0;
    v->st->cand = grow(v->st->cand, &v->st->cand_cap, v->n, sizeof *v->st->cand);
    v->st->cand[v->n].key = -rem;
    v->st->cand[v->n++].job = r;
    return 0;
}

/* preempt_for without the oracle: the candidates are every running job of type @p t that started
 * before now and has more estimated remaining work (dike_sched_est_remaining_running) than @p q needs, taken
 * largest estimate first (ties: lower job index) until the gang fits. */
static int preempt_for_estimated(srtf_state *st, dike_sched *s, dike_job *q, int t)
{
    dike_time now = dike_sched_now(s);
    uint64_t have = dike_sched_free_gpus(s, t);
    uint32_t g = q->spec->num_gpus;
    double need_time = queued_time(s, q);
    victim_search vs = {st, s, now, need_time, have, g, 0};
    dike_fintree_walk(&st->running, (uint32_t)t, INT64_MIN, collect_estimated, &vs);
    size_t nc = vs.n;
    size_t nv = 0;
    uint64_t avail = have;
    for (uint64_t i = 0; i < nc && avail < g; i++)
        avail += st->cand[i].job->spec->num_gpus; /* enough candidates at all? */
    if (avail < g)
        return 0;
    dike_ranked_sort(st->cand, nc);
    while (have < g) {
        have += st->cand[nv].job->spec->num_gpus;
        nv++;
    }
    for (size_t i = 0; i < nv; i++) {
        dike_job *v = st->cand[i].job;
        dike_fintree_remove(&st->running, v);
        dike_sched_preempt(s, v);
        dike_jobq_push(&st->queued, v, queued_time(s, v));
    }
    return start(st, s, q);
}

static int collect_victim(void *ctx, dike_job *r)
{
    victim_search *v = ctx;
    if (r->run_start < v->now && dike_sched_est_remaining(v->s, r) > v->need_time) {
        v->st->tmp = grow(v->st->tmp, &v->st->tmp_cap, v->n, sizeof *v->st->tmp);
        v->st->tmp[v->n++] = r;
        v->have += r->spec->num_gpus;
    }
    return v->have >= v->g;
}

/* Try to make room for @p q on GPU type @p t by preempting longer running jobs of that type:
 * the running jobs of type t are walked latest finish first while they are longer than q, and
 * those with more remaining work than q needs are the victims, until q's gang fits. Remaining
 * work never exceeds time to finish (rates <= 1 on the reference type), so once the time to
 * finish drops to what q needs no later job can be a victim: the walk stops there, and when
 * the GPUs of all the jobs before that point would not be enough, it is not made at all. */
static int preempt_for(srtf_state *st, dike_sched *s, dike_job *q, int t)
{
    victim_search v = {st, s, dike_sched_now(s), queued_time(s, q), dike_sched_free_gpus(s, t),
                       q->spec->num_gpus, 0};
    if (v.have < v.g) {
        /* "finish - now > need_time" in whole us: finish > now + floor(need_time) */
        dike_time after = v.now + (dike_time)floor(v.need_time);
        if (v.have + dike_fintree_gpus_after(&st->running, (uint32_t)t, after) < v.g)
            return 0;
        dike_fintree_walk(&st->running, (uint32_t)t, after, collect_victim, &v);
    }
    if (v.have < v.g)
        return 0;
    for (size_t i = 0; i < v.n; i++) {
        dike_job *r = st->tmp[i];
        dike_fintree_remove(&st->running, r);
        dike_sched_preempt(s, r);
        dike_jobq_push(&st->queued, r, queued_time(s, r));
    }
    return start(st, s, q);
}

static void srtf_decide(void *state, dike_sched *s)
{
    srtf_state *st = state;
    const dike_cluster *cl = dike_sched_cluster(s);
    if (dike_sched_est_epoch(s) != st->epoch) {
        st->epoch = dike_sched_est_epoch(s);
        dike_jobq_rekey(&st->queued, s, queued_key, st);
    }
    dike_job *q;
    while ((q = dike_jobq_min(&st->queued))) {
        if (start(st, s, q))
            continue;
        int started = 0;
        for (uint32_t t = 0; t < cl->ntypes && !started; t++)
            if (q->spec->gpu_type < 0 || q->spec->gpu_type == (int)t)
                started = st->oracle ? preempt_for(st, s, q, (int)t)
                                     : preempt_for_estimated(st, s, q, (int)t);
        if (!started)
            break;
    }
    if (!st->backfill || !q)
        return;
    /* Fill-in without preemption: shorter-first among the jobs that fit. */
    dike_jobq_fill(&st->queued, s, fill_start, st);
}

static void srtf_restore(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    if (j->state == DIKE_JOB_QUEUED)
        dike_jobq_push(&st->queued, j, queued_time(s, j));
    else
        dike_fintree_insert(&st->running, (uint32_t)j->type, j);
}

static void srtf_free(void *state)
{
    srtf_state *st = state;
    dike_jobq_free(&st->queued);
    free(st->slot);
    dike_fintree_free(&st->running);
    free(st->tmp);
    free(st->cand);
    free(st);
}

const dike_policy dike_policy_srtf = {
    .name = "srtf",
    .summary = "shortest remaining time first (estimated remaining work), preemptive",
    .flags = DIKE_POLICY_PREEMPTIVE,
    .init = srtf_init,
    .on_arrival = srtf_arrival,
    .on_finish = srtf_finish,
    .on_evicted = srtf_evicted,
    .decide = srtf_decide,
    .free = srtf_free,
    .restore_job = srtf_restore,
};
