/* las: Tiresias discretized two-dimensional least-attained-service (Gu et al., NSDI'19).
 *
 * Attained service is GPU-seconds (GPUs x time worked, over all runs: a run's launch latency and
 * a resume's restore are not service, dike_sched_attained_gpu_s). The thresholds of
 * las.thresholds_gpu_s split jobs into queues: queue 0 holds jobs below the first threshold, and so
 * on. Lower queues go first; inside a queue, jobs go in submit order (FIFO). At every round
 * boundary the running set is recomputed from that order and jobs that fell out are preempted
 * (lease = scheduler.round_s); between rounds, free GPUs go to queued jobs in the same order.
 * Starvation promotion: a queued job that has waited since its last run for longer than
 * las.promote_knob x the length of that run goes back to queue 0 (its attained service counts from
 * zero again), as in Tiresias.
 *
 * The decision step reads only what can change the schedule. A queued job's key (queue, index)
 * does not change while it waits, except by promotion, which falls due at a time known when it
 * stops (last stop + knob x last run): queued jobs sit in one ordered set per queue
 * (policy/gangtree.h) and a heap of due promotions moves them to queue 0. A fill between rounds
 * then visits, in order, only the queued jobs whose gang fits in the GPUs still free. At a round
 * the running set follows the whole order (running jobs' attained service has grown). With few
 * queued jobs every active job is ranked without sorting (dike_reallocate_ranked, expected
 * O(active)); with a backlog the walk visits only the running jobs, sorted by key, and the queued
 * jobs it chooses, each found in its queue's set by first fit: O(R log R + C log n) for R running
 * and C chosen jobs. Both make the same preemptions and starts in the same sequence (las_round;
 * docs/performance.md, "LAS rounds without the backlog"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dike/sched.h"
#include "base/parse.h"
#include "policy/common.h"
#include "policy/gangtree.h"
#include "policy/jobsets.h"
#include "policy/policy.h"

#define LAS_MAX_QUEUES 16

/** A queued job's promotion, due from @p at on (µs; a little early: the exact test is made then). */
typedef struct las_due {
    dike_time at;        /**< earliest time the promotion can hold */
    dike_time last_stop; /**< the job's last_stop when queued (stale entry if it changed) */
    uint32_t job;        /**< job index */
} las_due;

typedef struct las_state {
    dike_jobsets jobs;          /**< active jobs: running, queued by gang size */
    double thr[LAS_MAX_QUEUES]; /**< thresholds, GPU-s, increasing */
    size_t nthr;
    double knob;
    double *base;               /**< per job: attained service at its last promotion */
    size_t njobs;
    dike_ranked *order;         /**< a round's running jobs by key, then the queued jobs it chose */
    uint8_t *kept;              /**< a round's flags: running job kept (same index as order) */
    size_t order_cap;
    dike_ranked *all;           /**< every active job, keyed (the round with few queued jobs) */
    size_t all_cap;
    dike_rank_scratch scratch;
    dike_gangtree queued[LAS_MAX_QUEUES]; /**< queued jobs of each queue, by index */
    uint8_t *queue;             /**< per job: its queue while queued */
    las_due *due;               /**< min-heap of promotions falling due */
    dike_job **job;             /**< per job index: the job (set on arrival) */
    dike_sched *sched;          /**< the scheduler (for las_load, whose callback does not carry it) */
    size_t ndue, due_cap;
} las_state;

/* ---- options: [las] ---- */

typedef struct las_params {
    char thresholds_gpu_s[DIKE_STR_MAX]; /**< queue thresholds on attained service, GPU-s */
    double promote_knob;                 /**< starvation promotion knob K, 0 = off */
} las_params;

/* The thresholds as numbers: 0, or DIKE_EINVAL with the reason in why. */
static int parse_thresholds(const char *text, double *thr, size_t *n, char *why, size_t whylen)
{
    char *copy = dike_xstrdup(text);
    int rc = 0;
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        char *t = dike_trim(tok);
        if (dike_parse_f64(t, &v) || !(v > 0) || (*n && v <= thr[*n - 1]) || *n == LAS_MAX_QUEUES - 1) {
            snprintf(why, whylen, "expected at most %d increasing positive numbers", LAS_MAX_QUEUES - 1);
            rc = DIKE_EINVAL;
            break;
        }
        thr[(*n)++] = v;
    }
    free(copy);
    return rc;
}

static int check_thresholds(const char *text, char *why, size_t whylen)
{
    double thr[LAS_MAX_QUEUES];
    size_t n;
    return parse_thresholds(text, thr, &n, why, whylen);
}

static const dike_option las_options[] = {
    {"thresholds_gpu_s", DIKE_OPT_STRING, DIKE_OPT_FIELD(las_params, thresholds_gpu_s), "3600,18000",
     DIKE_OPT_ANY, check_thresholds,
     "Tiresias 2D-LAS queue thresholds on attained service, increasing, GPU-seconds"},
    {"promote_knob", DIKE_OPT_DOUBLE, DIKE_OPT_FIELD(las_params, promote_knob), "8",
     DIKE_OPT_AT_LEAST(0, 1e9), NULL,
     "starvation promotion: a job waiting longer than knob x its last run time moves to the top queue; 0 = off"},
    {NULL}};

/* ---- events ---- */

static int las_init(dike_sched *s, void **state, dike_err *e)
{
    las_state *st = dike_xcalloc(1, sizeof *st);
    const las_params *p = dike_policy_params(dike_sched_config(s), &dike_policy_las);
    char why[128];
    /* Checked when the value was set; a config filled by hand may still hold a bad one. */
    if (parse_thresholds(p->thresholds_gpu_s, st->thr, &st->nthr, why, sizeof why)) {
        int rc = dike_err_set(e, DIKE_EINVAL, "[las] thresholds_gpu_s: %s (got '%s')", why,
                              p->thresholds_gpu_s);
        free(st);
        return rc;
    }
    st->knob = p->promote_knob;
    st->njobs = dike_sched_workload(s)->njobs;
    st->base = dike_xcalloc(st->njobs + 1, sizeof *st->base);
    dike_jobsets_init(&st->jobs, dike_sched_workload(s));
    for (size_t q = 0; q <= st->nthr; q++)
        dike_gangtree_init(&st->queued[q], st->njobs);
    st->queue = dike_xcalloc(st->njobs + 1, 1);
    st->job = dike_xcalloc(st->njobs + 1, sizeof *st->job);
    st->sched = s;
    *state = st;
    return 0;
}

static size_t queue_of(const las_state *st, double attained)
{
    size_t q = 0;
    while (q < st->nthr && attained >= st->thr[q])
        q++;
    return q;
}

/* A waiting job whose wait exceeds knob x its last run restarts from queue 0. Returns 1 if it
 * was promoted. */
static int promote(las_state *st, dike_sched *s, dike_job *j)
{
    if (st->knob <= 0 || j->state != DIKE_JOB_QUEUED || j->last_stop < 0)
        return 0;
    double last_run = dike_time_to_s(j->last_stop - j->run_start);
    double waited = dike_time_to_s(dike_sched_now(s) - j->last_stop);
    double attained = dike_sched_attained_gpu_s(s, j);
    if (waited > st->knob * last_run && attained > st->base[j->idx] &&
        queue_of(st, attained - st->base[j->idx]) > 0) {
        st->base[j->idx] = attained;
        return 1;
    }
    return 0;
}

static int due_before(const las_due *a, const las_due *b)
{
    return a->at != b->at ? a->at < b->at : a->job < b->job;
}

static void due_push(las_state *st, las_due d)
{
    if (st->ndue == st->due_cap) {
        st->due_cap = st->due_cap ? 2 * st->due_cap : 256;
        st->due = dike_xrealloc(st->due, st->due_cap * sizeof *st->due);
    }
    size_t i = st->ndue++;
    while (i > 0 && due_before(&d, &st->due[(i - 1) / 2])) {
        st->due[i] = st->due[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    st->due[i] = d;
}

static las_due due_pop(las_state *st)
{
    las_due top = st->due[0], x = st->due[--st->ndue];
    size_t i = 0, n = st->ndue;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && due_before(&st->due[c + 1], &st->due[c]))
            c++;
        if (!due_before(&st->due[c], &x))
            break;
        st->due[i] = st->due[c];
        i = c;
    }
    if (n > 0)
        st->due[i] = x;
    return top;
}

/* A job became queued (arrival, preemption, eviction, resume): into its queue's set, and onto the
 * due heap if it can be promoted. Its attained service and base do not change while it waits. */
static void enqueue(las_state *st, dike_sched *s, dike_job *j)
{
    double rel = dike_sched_attained_gpu_s(s, j) - st->base[j->idx];
    size_t q = queue_of(st, rel);
    st->queue[j->idx] = (uint8_t)q;
    dike_gangtree_add(&st->queued[q], j->idx, j->spec->num_gpus);
    if (st->knob <= 0 || j->last_stop < 0 || q == 0)
        return; /* never promoted (or nothing to gain) while it waits */
    /* Due at last_stop + knob x last run; 2 us early so that rounding in the exact test (seconds
     * as doubles) never makes it late. */
    double wait = st->knob * (double)(j->last_stop - j->run_start);
    if (wait > 4e18)
        return;
    dike_time at = j->last_stop + (dike_time)floor(wait) - 2;
    due_push(st, (las_due){at < j->last_stop ? j->last_stop : at, j->last_stop, j->idx});
}

/* Apply the promotions due by now. Entries of jobs that ran since are stale and dropped. */
static void promote_due(las_state *st, dike_sched *s)
{
    dike_time now = dike_sched_now(s);
    while (st->ndue > 0 && st->due[0].at <= now) {
        las_due d = due_pop(st);
        dike_job *j = st->job[d.job];
        if (j->state != DIKE_JOB_QUEUED || j->last_stop != d.last_stop)
            continue;
        if (promote(st, s, j)) {
            dike_gangtree_remove(&st->queued[st->queue[j->idx]], j->idx);
            st->queue[j->idx] = 0;
            dike_gangtree_add(&st->queued[0], j->idx, j->spec->num_gpus);
        } else {
            d.at = now + 1; /* early by rounding: test again at the next decision */
            due_push(st, d);
        }
    }
}

static void las_arrival(void *state, dike_sched *s, dike_job *j)
{
    las_state *st = state;
    st->job[j->idx] = j;
    dike_jobsets_add(&st->jobs, j);
    if (j->state == DIKE_JOB_QUEUED)
        enqueue(st, s, j);
}

static void las_finish(void *state, dike_sched *s, dike_job *j)
{
    dike_jobsets_remove(&((las_state *)state)->jobs, j, 1);
}

/* A queued job finished (its work ended before its preemption took effect); its due promotion,
 * if any, is dropped as stale when it falls due (the job is not QUEUED). */
static void las_withdraw(void *state, dike_sched *s, dike_job *j)
{
    las_state *st = state;
    dike_jobsets_remove(&st->jobs, j, 0);
    dike_gangtree_remove(&st->queued[st->queue[j->idx]], j->idx);
}

/* Keep the sets in step with the job's state (the coordinator changed it just before). */
static void moved(las_state *st, dike_sched *s, dike_job *j, int started)
{
    dike_jobsets_moved(&st->jobs, j, started);
    if (started)
        dike_gangtree_remove(&st->queued[st->queue[j->idx]], j->idx);
    else
        enqueue(st, s, j);
}

/* dike_reallocate_ranked's callback carries no scheduler: the decision's is kept here. */
static void on_change(void *state, dike_job *j, int started)
{
    las_state *st = state;
    moved(st, st->sched, j, started);
}

static void las_evicted(void *state, dike_sched *s, dike_job *j)
{
    moved(state, s, j, 0); /* still active; it competes again from its queue */
}

/* Append @p l's jobs to st->all with their key: queue first, then submit order (the job
 * index); exact in a double below 2^53. A running job's queue follows its attained service now;
 * a queued job's is the one it was queued (or promoted) with. */
static size_t key_set(las_state *st, dike_sched *s, const dike_jobset *l, size_t n)
{
    for (size_t i = 0; i < l->n; i++) {
        dike_job *j = l->jobs[i];
        size_t q = j->state == DIKE_JOB_RUNNING
                       ? queue_of(st, dike_sched_attained_gpu_s(s, j) - st->base[j->idx])
                       : st->queue[j->idx];
        st->all[n].key = (double)q * 4294967296.0 + (double)j->idx;
        st->all[n].job = j;
        n++;
    }
    return n;
}

/* Every active job, keyed. */
static size_t build_order(las_state *st, dike_sched *s)
{
    const dike_jobsets *js = &st->jobs;
    size_t need = js->running.n + js->nqueued;
    if (need > st->all_cap) {
        st->all_cap = need > 2 * st->all_cap ? need : 2 * st->all_cap;
        st->all = dike_xrealloc(st->all, st->all_cap * sizeof *st->all);
    }
    size_t n = key_set(st, s, &js->running, 0);
    for (uint32_t b = 0; b < js->nsizes; b++)
        n = key_set(st, s, &js->queued[b], n);
    return n;
}

static void fill(las_state *st, dike_sched *s);

/* A running job's key: its queue by the attained service it has now, then submit order (the job
 * index); exact in a double below 2^53. */
static double running_key(las_state *st, dike_sched *s, const dike_job *j)
{
    size_t q = queue_of(st, dike_sched_attained_gpu_s(s, j) - st->base[j->idx]);
    return (double)q * 4294967296.0 + (double)j->idx;
}

/* A round: the running set follows the whole (queue, index) order over every active job, as
 * dike_reallocate with every preemption allowed would make it (walk the order, keep or choose
 * each job whose gang still fits in the GPUs that are up; preempt, in order, the running jobs
 * not kept; start the chosen queued ones in order; then fill). With a backlog, since queued jobs
 * keep their key while they wait and sit in one index-ordered set per queue, the walk visits only
 * the running jobs (sorted by key) and the queued jobs it chooses, each found by first fit in
 * O(log n): O(R log R + C log n) for R running and C chosen jobs, not O(active). */
static void las_round(las_state *st, dike_sched *s)
{
    const dike_jobset *run = &st->jobs.running;
    size_t nrun = run->n;
    if (nrun + st->jobs.nqueued == 0)
        return;
    /* With few queued jobs against the running ones, ranking every active job without sorting
     * them (dike_reallocate_ranked, expected O(R + Q)) is cheaper than the sort of the running
     * ones below: the two make the same decision, so the cheaper is taken. */
    if (st->jobs.nqueued < nrun * (size_t)(1 + log2((double)nrun + 1))) {
        size_t n = build_order(st, s);
        dike_reallocate_ranked(s, st->all, n, &st->scratch, st, on_change);
        return;
    }
    /* st->order: the running jobs sorted by key, then (after them) the queued jobs chosen. */
    size_t need = 2 * nrun + 2 * (size_t)dike_sched_gpus_up(s) + 1;
    if (need > st->order_cap) {
        st->order_cap = need > 2 * st->order_cap ? need : 2 * st->order_cap;
        st->order = dike_xrealloc(st->order, st->order_cap * sizeof *st->order);
        st->kept = dike_xrealloc(st->kept, st->order_cap);
    }
    dike_ranked *r = st->order, *chosen = st->order + nrun;
    for (size_t i = 0; i < nrun; i++) {
        r[i].job = run->jobs[i];
        r[i].key = running_key(st, s, run->jobs[i]);
    }
    dike_ranked_sort(r, nrun);
    memset(st->kept, 0, nrun);
    uint64_t budget = dike_sched_gpus_up(s);
    size_t nchosen = 0, k = 0;
    for (size_t q = 0; q <= st->nthr && budget > 0; q++) {
        double lo = (double)q * 4294967296.0, hi = lo + 4294967296.0;
        size_t from = 0;
        while (budget > 0) {
            size_t i = dike_gangtree_first_fit(&st->queued[q], from, budget);
            if (k < nrun && r[k].key < hi && (i == SIZE_MAX || r[k].job->idx < i)) {
                uint32_t g = r[k].job->spec->num_gpus;
                if (g <= budget) {
                    st->kept[k] = 1;
                    budget -= g;
                }
                k++;
                continue;
            }
            if (i == SIZE_MAX)
                break;
            chosen[nchosen].job = st->job[i];
            chosen[nchosen].key = lo + (double)i;
            nchosen++;
            budget -= st->job[i]->spec->num_gpus;
            from = i + 1;
        }
        while (k < nrun && r[k].key < hi)
            k++; /* running jobs of this queue past the walk's end */
    }
    /* Running jobs not kept are preempted, in order; the chosen queued ones start in order
     * (placement may still refuse one, in which case later jobs get the room); what is still
     * free goes to the next queued jobs in order that fit. */
    for (size_t i = 0; i < nrun; i++)
        if (!st->kept[i]) {
            dike_sched_preempt(s, r[i].job);
            moved(st, s, r[i].job, 0);
        }
    for (size_t i = 0; i < nchosen; i++) {
        dike_job *j = chosen[i].job;
        if (j->state == DIKE_JOB_QUEUED && dike_sched_start(s, j))
            moved(st, s, j, 1);
    }
    fill(st, s);
}

/* Free GPUs to queued jobs in (queue, index) order, skipping gangs that do not fit: each queue's
 * set finds the next job that fits in O(log n). */
static void fill(las_state *st, dike_sched *s)
{
    for (size_t q = 0; q <= st->nthr; q++) {
        size_t i = 0;
        uint64_t free_gpus;
        while ((free_gpus = dike_sched_free_gpus(s, -1)) > 0 &&
               (i = dike_gangtree_first_fit(&st->queued[q], i, free_gpus)) != SIZE_MAX) {
            dike_job *j = st->job[i++];
            if (dike_sched_start(s, j))
                moved(st, s, j, 1);
        }
    }
}

/* At a round boundary the running set follows the whole order (lease = round); between rounds
 * free GPUs go to queued jobs in order. Promotions are applied first, as the whole-order build
 * did at every decision that ranked jobs. */
static void las_decide(void *state, dike_sched *s)
{
    las_state *st = state;
    st->sched = s;
    if (dike_sched_is_round(s)) {
        promote_due(st, s);
        las_round(st, s);
    } else if (dike_sched_free_gpus(s, -1) > 0) {
        promote_due(st, s);
        fill(st, s);
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
    /* restore_job queued the jobs before their base was known: queue them again. */
    st->ndue = 0;
    for (uint32_t b = 0; b < st->jobs.nsizes; b++)
        for (size_t i = 0; i < st->jobs.queued[b].n; i++) {
            dike_job *j = st->jobs.queued[b].jobs[i];
            dike_gangtree_remove(&st->queued[st->queue[j->idx]], j->idx);
            enqueue(st, st->sched, j);
        }
    return 0;
}

static void las_free(void *state)
{
    las_state *st = state;
    dike_jobsets_free(&st->jobs);
    for (size_t q = 0; q <= st->nthr; q++)
        dike_gangtree_free(&st->queued[q]);
    free(st->queue);
    free(st->job);
    free(st->due);
    free(st->kept);
    free(st->all);
    dike_rank_scratch_free(&st->scratch);
    free(st->base);
    free(st->order);
    free(st);
}

const dike_policy dike_policy_las = {
    .name = "las",
    .summary = "Tiresias discretized 2D-LAS: attained GPU-seconds, queue thresholds, starvation promotion",
    .options = las_options,
    .params_size = sizeof(las_params),
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS | DIKE_POLICY_LEASE_ROUND,
    .init = las_init,
    .on_arrival = las_arrival,
    .on_finish = las_finish,
    .on_evicted = las_evicted,
    .decide = las_decide,
    .free = las_free,
    .restore_job = las_arrival,
    .save = las_save,
    .load = las_load,
    .on_withdraw = las_withdraw,
};
