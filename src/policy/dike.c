/* dike: fairness and efficiency together (reconstruction of the ICASSP 2025 Dike policy; see
 * docs/dike.md for what is reconstructed and what is this project's choice).
 *
 * At every decision, for every active job j:
 *   rate_j   the rate of its placement (running) or of the placement it would get now (queued;
 *            1 if nothing fits now),
 *   rem_j    remaining work / rate_j, seconds,
 *   rho_j    estimated finish-time fairness (policy/rho.h),
 *   fair_j   rho_j / (1 + rho_j)                          (0.5 at the fair finish time),
 *   eff_j    (rate_j / max rate) x S / (S + rem_j), S = median rem over active jobs,
 *   score_j  w x fair_j + (1 - w) x eff_j,  w = dike.fairness_weight.
 * Queued jobs are offered GPUs in score order (gangs whole; a job that does not fit is skipped, so
 * the policy is work-conserving). A queued job that does not fit may take GPUs from running jobs
 * that have held them for at least dike.min_lease_s and either
 *   - have rho < 1 (still ahead of their fair finish) and a score lower by dike.hysteresis, or
 *   - belong to another tenant holding more than its entitlement while the job's own tenant holds
 *     less than its entitlement (the tenant guard), as long as the victim's tenant stays at or
 *     above its entitlement.
 * This is tried at every round boundary for every queued job, and between rounds for queued jobs
 * shorter than a round (which would otherwise wait longer for the round than they need to run).
 * Entitlements: weighted max-min water-filling of the GPUs that are up over the active tenants'
 * demand ([tenants] weights). Victims are taken lowest score first, and only if they free enough
 * GPUs for the whole gang; preempted jobs pay scheduler.preemption_cost_s when they resume. */
#include <math.h>
#include <string.h>

#include "dike/sched.h"
#include "policy/common.h"
#include "policy/policy.h"
#include "policy/rho.h"

typedef struct dike_pstate {
    dike_tenants ten;
    dike_active act;
    double w, hysteresis, min_lease_s, round_s;
    double *score, *rho;   /**< per active slot, this decision */
    double *rate, *rem;    /**< per active slot: rate, remaining time (s) */
    double *fair, *eff;    /**< per active slot: normalised signals */
    int running_sorted;    /**< running[] sorted this decision (lazily, when a victim is needed) */
    int restricted;        /**< this decision's candidates are only the jobs that may preempt */
    int32_t stamp;         /**< decision counter; victims of this decision carry it in pol_i */
    dike_ranked *queued;   /**< queued jobs, best score first */
    dike_ranked *running;  /**< running jobs, lowest score first */
    dike_job **victims;
    size_t cap;
} dike_pstate;

static int dk_init(dike_sched *s, void **state, dike_err *e)
{
    dike_pstate *st = dike_xcalloc(1, sizeof *st);
    int rc = dike_tenants_init(&st->ten, s, e);
    if (rc) {
        free(st);
        return rc;
    }
    const dike_config *c = dike_sched_config(s);
    st->w = c->dike_fairness_weight;
    st->hysteresis = c->dike_hysteresis;
    st->min_lease_s = c->dike_min_lease_s;
    st->round_s = c->scheduler_round_s;
    *state = st;
    return 0;
}

static void dk_arrival(void *state, dike_sched *s, dike_job *j)
{
    dike_pstate *st = state;
    dike_tenants_arrive(&st->ten, j);
    dike_active_add(&st->act, j);
}

static void dk_finish(void *state, dike_sched *s, dike_job *j)
{
    dike_pstate *st = state;
    dike_tenants_leave(&st->ten, j);
    dike_tenants_run(&st->ten, j, 0);
    dike_active_remove(&st->act, j);
}

static void dk_evicted(void *state, dike_sched *s, dike_job *j)
{
    dike_tenants_run(&((dike_pstate *)state)->ten, j, 0);
}

/* k-th smallest of v[0..n) by quickselect with a three-way partition (reorders v; afterwards
 * v[0..k) holds the k smallest). O(n): sorting here was the hot spot. */
static double kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        double pivot = v[lo + (hi - lo) / 2], t;
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < pivot) {
                t = v[lt]; v[lt++] = v[i]; v[i++] = t;
            } else if (v[i] > pivot) {
                t = v[--gt]; v[gt] = v[i]; v[i] = t;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return v[lo];
}

static double median(double *v, size_t n)
{
    double hi = kth(v, n, n / 2);
    if (n % 2)
        return hi;
    double lo = v[0]; /* the largest of the n/2 smallest */
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return 0.5 * (lo + hi);
}

/* Signals and scores of every active job; fills the queued (best first) and running (worst
 * first) lists. */
static void score_all(dike_pstate *st, dike_sched *s, size_t *nq, size_t *nr)
{
    size_t n = st->act.n;
    if (n > st->cap) {
        st->cap = n;
        st->score = dike_xrealloc(st->score, n * sizeof *st->score);
        st->rho = dike_xrealloc(st->rho, n * sizeof *st->rho);
        st->rate = dike_xrealloc(st->rate, n * sizeof *st->rate);
        st->rem = dike_xrealloc(st->rem, n * sizeof *st->rem);
        st->fair = dike_xrealloc(st->fair, n * sizeof *st->fair);
        st->eff = dike_xrealloc(st->eff, n * sizeof *st->eff);
        st->queued = dike_xrealloc(st->queued, n * sizeof *st->queued);
        st->running = dike_xrealloc(st->running, n * sizeof *st->running);
        st->victims = dike_xrealloc(st->victims, n * sizeof *st->victims);
    }
    double max_rate = 0;
    for (size_t i = 0; i < n; i++) {
        dike_job *j = st->act.jobs[i];
        st->rho[i] = dike_rho_hat(s, j, &st->rate[i]);
        st->rem[i] = dike_sched_remaining(s, j) / 1e6 / st->rate[i];
        if (st->rem[i] <= 0)
            st->rem[i] = 1e-6;
        if (st->rate[i] > max_rate) max_rate = st->rate[i];
    }
    /* Smooth, bounded signals whose differences mean the same thing in a system of 2 jobs or
     * of 2,000 (so the hysteresis margin does too):
     *   fair = rho / (1 + rho): 0.5 at the fair finish, towards 1 the further behind;
     *   eff  = (rate / max rate) x S / (S + rem), S the median remaining time of the active
     *          jobs: 0.5 for a median job on the fastest placement, towards 1 the shorter. */
    for (size_t i = 0; i < n; i++)
        st->eff[i] = st->rem[i];
    double med = median(st->eff, n);
    for (size_t i = 0; i < n; i++) {
        st->fair[i] = st->rho[i] / (1 + st->rho[i]);
        st->eff[i] = (st->rate[i] / max_rate) * med / (med + st->rem[i]);
    }
    /* Candidates: every queued job when GPUs are free or at a round; otherwise only the queued
     * jobs allowed to preempt between rounds (shorter than a round) — nobody else can move. */
    int all = dike_sched_is_round(s) || dike_sched_free_gpus(s, -1) > 0;
    st->restricted = !all;
    *nq = *nr = 0;
    for (size_t i = 0; i < n; i++) {
        dike_job *j = st->act.jobs[i];
        st->score[i] = st->w * st->fair[i] + (1 - st->w) * st->eff[i];
        if (j->state == DIKE_JOB_QUEUED) {
            if (!all && st->rem[i] > st->round_s)
                continue;
            st->queued[*nq].key = -st->score[i];
            st->queued[(*nq)++].job = j;
        } else {
            st->running[*nr].key = st->score[i];
            st->running[(*nr)++].job = j;
        }
    }
    dike_ranked_sort(st->queued, *nq);
    st->running_sorted = 0;
}

/* Can @p q take GPUs from running jobs? Collect victims, lowest score first; preempt only if they
 * free enough for the whole gang. */
static int make_room(dike_pstate *st, dike_sched *s, dike_job *q, double q_score, size_t nr)
{
    uint32_t g = q->spec->num_gpus, tq = q->spec->tenant;
    uint64_t have = dike_sched_free_for(s, q);
    int guard = st->ten.alloc[tq] < st->ten.entitled[tq];
    dike_time now = dike_sched_now(s);
    size_t nv = 0;
    if (!st->running_sorted) {
        dike_ranked_sort(st->running, nr);
        st->running_sorted = 1;
    }
    for (size_t i = 0; i < nr && have < g; i++) {
        dike_job *v = st->running[i].job;
        if (v->state != DIKE_JOB_RUNNING)
            continue; /* preempted for an earlier candidate */
        if (q->spec->gpu_type >= 0 && v->type != q->spec->gpu_type)
            continue;
        if (dike_time_to_s(now - v->run_start) < st->min_lease_s)
            continue;
        uint32_t tv = v->spec->tenant;
        double v_score = st->running[i].key;
        double v_rho = st->rho[v->pol_j];
        int by_score = v_rho < 1 && v_score + st->hysteresis <= q_score;
        int by_guard = guard && tv != tq &&
                       (double)st->ten.alloc[tv] - v->spec->num_gpus >= st->ten.entitled[tv] - 1e-9;
        if (!by_score && !by_guard)
            continue;
        st->victims[nv++] = v;
        have += v->spec->num_gpus;
    }
    if (have < g)
        return 0;
    for (size_t i = 0; i < nv; i++) {
        dike_sched_preempt(s, st->victims[i]);
        dike_tenants_run(&st->ten, st->victims[i], 0);
        st->victims[i]->pol_i = st->stamp; /* not a candidate again in this decision */
    }
    return 1;
}

/* All queued jobs, best score first, into st->queued; returns how many. */
static size_t all_queued(dike_pstate *st)
{
    size_t nq = 0;
    for (size_t i = 0; i < st->act.n; i++) {
        dike_job *j = st->act.jobs[i];
        if (j->state == DIKE_JOB_QUEUED && j->pol_i != st->stamp) {
            st->queued[nq].key = -st->score[i];
            st->queued[nq++].job = j;
        }
    }
    dike_ranked_sort(st->queued, nq);
    return nq;
}

static void dk_decide(void *state, dike_sched *s)
{
    dike_pstate *st = state;
    size_t nq, nr;
    st->stamp++;
    score_all(st, s, &nq, &nr);
    if (!nq)
        return;
    /* Entitlements change only with demand (arrivals, completions) and capacity (failures). */
    dike_tenants_waterfill(&st->ten, (double)dike_sched_gpus_up(s));
    int round = dike_sched_is_round(s);
    /* GPUs that preemption could ever free in this decision: those of running jobs past their
     * lease. A candidate needing more than that plus the free GPUs is not worth a victim walk (the
     * walk would fail); this bound is what keeps a round from costing queued x running. */
    uint64_t reclaimable = 0;
    dike_time now = dike_sched_now(s);
    for (size_t i = 0; i < nr; i++)
        if (dike_time_to_s(now - st->running[i].job->run_start) >= st->min_lease_s)
            reclaimable += st->running[i].job->spec->num_gpus;
    for (size_t i = 0; i < nq; i++) {
        dike_job *q = st->queued[i].job;
        uint64_t freeg = dike_sched_free_for(s, q);
        if (q->spec->num_gpus <= freeg && dike_sched_start(s, q)) {
            dike_tenants_run(&st->ten, q, 1);
            continue;
        }
        /* Preemption is reconsidered at every round; between rounds only for jobs shorter than a
         * round, which would otherwise wait longer for the next round than they need to run. */
        if (!(round || st->rem[q->pol_j] <= st->round_s) || q->spec->num_gpus > freeg + reclaimable ||
            !make_room(st, s, q, -st->queued[i].key, nr))
            continue;
        if (dike_sched_start(s, q))
            dike_tenants_run(&st->ten, q, 1);
        if (st->restricted) {
            /* The preemption may leave GPUs over: from here on every queued job after q in score
             * order is a candidate again, exactly as if all had been listed. */
            double qkey = st->queued[i].key;
            uint32_t qidx = q->idx;
            nq = all_queued(st);
            st->restricted = 0;
            size_t k = 0;
            while (k < nq && (st->queued[k].key < qkey ||
                              (st->queued[k].key == qkey && st->queued[k].job->idx <= qidx)))
                k++;
            i = k - 1; /* the loop's i++ lands on the first job after q */
        }
    }
}

static void dk_restore(void *state, dike_sched *s, dike_job *j)
{
    dike_pstate *st = state;
    dk_arrival(state, s, j);
    if (j->state == DIKE_JOB_RUNNING)
        dike_tenants_run(&st->ten, j, 1);
}

static void dk_free(void *state)
{
    dike_pstate *st = state;
    dike_tenants_free(&st->ten);
    dike_active_free(&st->act);
    free(st->score);
    free(st->rho);
    free(st->rate);
    free(st->rem);
    free(st->fair);
    free(st->eff);
    free(st->queued);
    free(st->running);
    free(st->victims);
    free(st);
}

const dike_policy dike_policy_dike = {
    .name = "dike",
    .summary = "fairness + efficiency: score = w x finish-time fairness + (1-w) x efficiency, tenant guard",
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS,
    .init = dk_init,
    .on_arrival = dk_arrival,
    .on_finish = dk_finish,
    .on_evicted = dk_evicted,
    .decide = dk_decide,
    .free = dk_free,
    .restore_job = dk_restore,
};
