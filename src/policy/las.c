/* las: Tiresias discretized two-dimensional least-attained-service (Gu et al., NSDI'19).
 *
 * Attained service is GPU-seconds (GPUs x time held, over all runs). The thresholds of
 * las.thresholds_gpu_s split jobs into queues: queue 0 holds jobs below the first threshold, and so
 * on. Lower queues go first; inside a queue, jobs go in submit order (FIFO). At every round
 * boundary the running set is recomputed from that order and jobs that fell out are preempted
 * (lease = scheduler.round_s); between rounds, free GPUs go to queued jobs in the same order.
 * Starvation promotion: a queued job that has waited since its last run for longer than
 * las.promote_knob x the length of that run goes back to queue 0 (its attained service counts from
 * zero again), as in Tiresias. */
#include <math.h>
#include <string.h>

#include "dike/sched.h"
#include "io/parse.h"
#include "policy/common.h"
#include "policy/policy.h"

#define LAS_MAX_QUEUES 16

typedef struct las_state {
    dike_active act;
    double thr[LAS_MAX_QUEUES]; /**< thresholds, GPU-s, increasing */
    size_t nthr;
    double knob;
    double *base;               /**< per job: attained service at its last promotion */
    size_t njobs;
    dike_ranked *order;
    size_t order_cap;
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
    *state = st;
    return 0;
}

static void las_arrival(void *state, dike_sched *s, dike_job *j)
{
    dike_active_add(&((las_state *)state)->act, j);
}

static void las_finish(void *state, dike_sched *s, dike_job *j)
{
    dike_active_remove(&((las_state *)state)->act, j);
}

static void las_evicted(void *state, dike_sched *s, dike_job *j)
{
    /* still active; it competes again from its queue */
}

static size_t queue_of(const las_state *st, double attained)
{
    size_t q = 0;
    while (q < st->nthr && attained >= st->thr[q])
        q++;
    return q;
}

/* Promotion is checked when the order is built: a waiting job whose wait exceeds knob x its last
 * run restarts from queue 0. */
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

static size_t build_order(las_state *st, dike_sched *s, int queued_only)
{
    if (st->act.n > st->order_cap) {
        st->order_cap = st->act.n;
        st->order = dike_xrealloc(st->order, st->order_cap * sizeof *st->order);
    }
    size_t n = 0;
    for (size_t i = 0; i < st->act.n; i++) {
        dike_job *j = st->act.jobs[i];
        if (queued_only && j->state != DIKE_JOB_QUEUED)
            continue;
        promote(st, s, j);
        size_t q = queue_of(st, dike_sched_attained_gpu_s(s, j) - st->base[j->idx]);
        /* queue first, then submit order (the job index); exact in a double below 2^53 */
        st->order[n].key = (double)q * 4294967296.0 + (double)j->idx;
        st->order[n].job = j;
        n++;
    }
    dike_ranked_sort(st->order, n);
    return n;
}

static size_t order_fn(void *state, dike_sched *s, int queued_only, dike_ranked **order)
{
    las_state *st = state;
    size_t n = build_order(st, s, queued_only);
    *order = st->order;
    return n;
}

static void las_decide(void *state, dike_sched *s)
{
    dike_ranked *order;
    if (dike_sched_is_round(s)) {
        size_t n = order_fn(state, s, 0, &order);
        dike_reallocate(s, order, n, dike_preempt_always, state, NULL);
    } else if (dike_sched_free_gpus(s, -1) > 0) {
        size_t n = order_fn(state, s, 1, &order);
        dike_fill(s, order, n, state, NULL);
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
    dike_active_free(&st->act);
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
