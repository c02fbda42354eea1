/* las: Tiresias discretized two-dimensional least-attained-service (Gu et al., NSDI'19).
 *
 * Attained service is GPU-seconds (GPUs x time held, over all runs). The thresholds of
 * las.thresholds_gpu_s split jobs into queues: queue 0 holds jobs below the first threshold, and so
 * on. Lower queues go first; inside a queue, jobs go in submit order (FIFO). At every round
 * boundary the running set is recomputed from that order and jobs that fell out are preempted
 * (lease = scheduler.round_s); between rounds, free GPUs go to queued jobs in the same order.
 * Starvation promotion: a queued job that has waited since its last run for longer than
 * las.promote_knob x the length of that run goes back to queue 0 (its attained service counts from
 * zero again), as in Tiresias.
 *
 * The decision step reads only what can change the schedule. Between rounds the free GPUs go to
 * queued jobs whose gang fits in them, so only those are keyed (jobsets buckets queued jobs by
 * gang size), and the ones that fill the free GPUs are selected rather than the queue sorted
 * (dike_fill_ranked). At a round every active job is keyed (the running set follows the whole
 * order) but only the jobs that start or are preempted, and those past the prefix that fills the
 * GPUs, are ordered (dike_reallocate_ranked). Promotion is checked on the jobs a decision keys:
 * a queued job's attained service does not change and its wait only grows, so checking it later
 * than at every decision gives the same base before the job can next be ranked. */
#include <math.h>
#include <string.h>

#include "dike/sched.h"
#include "io/parse.h"
#include "policy/common.h"
#include "policy/jobsets.h"
#include "policy/policy.h"

#define LAS_MAX_QUEUES 16

typedef struct las_state {
    dike_jobsets jobs;          /**< active jobs: running, queued by gang size */
    double thr[LAS_MAX_QUEUES]; /**< thresholds, GPU-s, increasing */
    size_t nthr;
    double knob;
    double *base;               /**< per job: attained service at its last promotion */
    size_t njobs;
    dike_ranked *order;
    size_t order_cap;
    dike_rank_scratch scratch;
} las_state;

static int las_init(dike_sched *s, void **state, dike_err *e)
{
    las_state *st = dike_xcalloc(1, sizeof *st);
    const dike_config *c = dike_sched_config(s);
    char *text = dike_xstrdup(c->las_thresholds_gpu_s);
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        char *t = dike__trim(tok);
        if (dike__parse_f64(t, &v) || !(v > 0) || (st->nthr && v <= st->thr[st->nthr - 1]) ||
            st->nthr == LAS_MAX_QUEUES - 1) {
            rc = dike_err_set(e, DIKE_EINVAL,
                              "[las] thresholds_gpu_s: expected at most %d increasing positive numbers (got '%s')",
                              LAS_MAX_QUEUES - 1, c->las_thresholds_gpu_s);
            break;
        }
        st->thr[st->nthr++] = v;
    }
    free(text);
    if (rc) {
        free(st);
        return rc;
    }
    st->knob = c->las_promote_knob;
    st->njobs = dike_sched_workload(s)->njobs;
    st->base = dike_xcalloc(st->njobs + 1, sizeof *st->base);
    dike_jobsets_init(&st->jobs, dike_sched_workload(s));
    *state = st;
    return 0;
}

static void las_arrival(void *state, dike_sched *s, dike_job *j)
{
    dike_jobsets_add(&((las_state *)state)->jobs, j);
}

static void las_finish(void *state, dike_sched *s, dike_job *j)
{
    dike_jobsets_remove(&((las_state *)state)->jobs, j, 1);
}

/* Keep the sets in step with the job's state (the coordinator changed it just before). */
static void on_change(void *state, dike_job *j, int started)
{
    dike_jobsets_moved(&((las_state *)state)->jobs, j, started);
}

static void las_evicted(void *state, dike_sched *s, dike_job *j)
{
    on_change(state, j, 0); /* still active; it competes again from its queue */
}

static size_t queue_of(const las_state *st, double attained)
{
    size_t q = 0;
    while (q < st->nthr && attained >= st->thr[q])
        q++;
    return q;
}

/* Promotion is checked when a job is keyed: a waiting job whose wait exceeds knob x its last run
 * restarts from queue 0. */
static void promote(las_state *st, dike_sched *s, dike_job *j)
{
    if (st->knob <= 0 || j->state != DIKE_JOB_QUEUED || j->last_stop < 0)
        return;
    double last_run = dike_time_to_s(j->last_stop - j->run_start);
    double waited = dike_time_to_s(dike_sched_now(s) - j->last_stop);
    double attained = dike_sched_attained_gpu_s(s, j);
    if (waited > st->knob * last_run && attained > st->base[j->idx] &&
        queue_of(st, attained - st->base[j->idx]) > 0)
        st->base[j->idx] = attained;
}

/* Append @p l's jobs to st->order with their key: queue first, then submit order (the job
 * index); exact in a double below 2^53. */
static size_t key_set(las_state *st, dike_sched *s, const dike_jobset *l, size_t n)
{
    for (size_t i = 0; i < l->n; i++) {
        dike_job *j = l->jobs[i];
        promote(st, s, j);
        size_t q = queue_of(st, dike_sched_attained_gpu_s(s, j) - st->base[j->idx]);
        st->order[n].key = (double)q * 4294967296.0 + (double)j->idx;
        st->order[n].job = j;
        n++;
    }
    return n;
}

/* Key every active job (@p round), or the queued jobs whose gang fits in @p fit GPUs. */
static size_t build_order(las_state *st, dike_sched *s, int round, uint64_t fit)
{
    const dike_jobsets *js = &st->jobs;
    size_t need = js->running.n + js->nqueued;
    if (need > st->order_cap) {
        st->order_cap = need > 2 * st->order_cap ? need : 2 * st->order_cap;
        st->order = dike_xrealloc(st->order, st->order_cap * sizeof *st->order);
    }
    size_t n = 0;
    for (uint32_t b = 0; b < js->nsizes && (round || js->sizes[b] <= fit); b++)
        n = key_set(st, s, &js->queued[b], n);
    if (round)
        n = key_set(st, s, &js->running, n);
    return n;
}

/* At a round boundary the running set follows the whole order (lease = round); between rounds
 * free GPUs go to queued jobs in order. */
static void las_decide(void *state, dike_sched *s)
{
    las_state *st = state;
    if (dike_sched_is_round(s)) {
        size_t n = build_order(st, s, 1, 0);
        dike_reallocate_ranked(s, st->order, n, &st->scratch, st, on_change);
    } else if (dike_sched_free_gpus(s, -1) > 0) {
        size_t n = build_order(st, s, 0, dike_sched_free_gpus(s, -1));
        dike_fill_ranked(s, st->order, n, st, on_change);
    }
}

static void *las_save(void *state, size_t *len)
{
    las_state *st = state;
    *len = st->njobs * sizeof *st->base;
    void *b = dike_xmalloc(*len);
    memcpy(b, st->base, *len);
    return b;
}

static int las_load(void *state, const void *blob, size_t len)
{
    las_state *st = state;
    if (len != st->njobs * sizeof *st->base)
        return DIKE_EINVAL;
    memcpy(st->base, blob, len);
    return 0;
}

static void las_free(void *state)
{
    las_state *st = state;
    dike_jobsets_free(&st->jobs);
    dike_rank_scratch_free(&st->scratch);
    free(st->base);
    free(st->order);
    free(st);
}

const dike_policy dike_policy_las = {
    .name = "las",
    .summary = "Tiresias discretized 2D-LAS: attained GPU-seconds, queue thresholds, starvation promotion",
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS,
    .init = las_init,
    .on_arrival = las_arrival,
    .on_finish = las_finish,
    .on_evicted = las_evicted,
    .decide = las_decide,
    .free = las_free,
    .restore_job = las_arrival,
    .save = las_save,
    .load = las_load,
};
