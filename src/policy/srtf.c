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
 * running jobs the same way at every instant: they sit in treaps by finish, one per GPU type
 * and rate class (dike_fintree; SRTF_CLASSES), entered at start and left at stop, and the victim
 * search walks them in place, merged —
 * it used to pop every job longer than the head from one heap and push it back at each decision.
 * The treaps' GPU counts end a search that cannot succeed in O(log n).
 *
 * Without the oracle two things change. The running jobs' finish times are the truth, which the
 * scheduler does not know: the candidates are the running jobs of the type with more estimated
 * remaining work than the head needs, the largest estimate first. The treaps then hold, per
 * running job, a bound of its estimated time left instead (est_bound): its estimated remaining
 * work falls at its rate until its estimate is outlived and doubles, or its tenant's estimate
 * changes (under none), and the bound is renewed at those moments (an expiry tree, and the
 * tenant's running list; in the predicting mode only those of the tenant's running jobs whose
 * range of the estimate, within which a renewal changes nothing, the new estimate left:
 * range_holds, runkeys.h). The search walks the treaps largest bound of the work left first (the
 * bound of the time left times the rate class's factor, below), stops where it falls to the
 * head's need, and stops earlier once the jobs whose estimates are above every bound left hold
 * enough GPUs: those are the victims a full sort would take. (Until 2026-12-03
 * every running job of the type was estimated at every blocked decision.) And under none
 * a waiting job's estimate moves when a job of its tenant (or, before its tenant has history, any
 * job) finishes: the jobs of a tenant that have never run share its estimate and wait as one
 * group in index order, and a completion moves that group and re-keys the tenant's jobs that ran
 * before, nobody else's (dike_tenantq; until 2026-12-03 the whole queue was re-keyed, O(queue)
 * per completion). Under noisy a waiting job's estimate does not change, so its key taken at
 * enqueue time stays right. */
#include "dike/sched.h"
#include "policy/common.h"
#include "policy/fintree.h"
#include "base/idlist.h"
#include "policy/maxtree.h"
#include "policy/policy.h"
#include "policy/runkeys.h"
#include "policy/tenantq.h"
#include "policy/tenantwatch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rate classes. A running job's remaining work falls at its rate r, its time left at 1, so a tree
 * ordered by finish time (or a bound of it) bounds the work left of a job by its time left: loose
 * by 1/r for a job on a slow placement (r = 0.42 spread over nodes, 0.38 across racks), and the
 * victim search then visited every such job whose time left passed the need while its work did
 * not (375 million visits in a 50,000-job backlog under `none`, 86 % of them at r < 1). So the
 * running jobs of one GPU type sit in one tree per rate: there, work left <= min(r, 1) x time
 * left, each tree's walk stops where that falls to the need, and the walks are merged. The
 * first SRTF_CLASSES rates of a type seen get a tree each, any later one the type's shared tree,
 * judged at factor 1 as before (rates are fixed while a job runs: a placement's locality level
 * and GPU type). The victims are the same; only which jobs are looked at changes. */
#define SRTF_CLASSES 31
#define SRTF_TREES (SRTF_CLASSES + 1)

typedef struct srtf_state {
    dike_tenantq queued;  /**< by remaining work */
    dike_fintree running; /**< per GPU type and rate class, by finish: latest first (work <= time
                               left x rate) */
    double *cls_rate;     /**< [type x SRTF_TREES + k]: the rate of class k of the type */
    uint32_t *cls_n;      /**< per GPU type: its exact-rate classes so far */
    uint32_t cls_max;     /**< classes a type may have (SRTF_CLASSES; tests: fewer) */
    dike_fintree_iter it[SRTF_TREES]; /**< one merged walk's cursors */
    dike_time thr[SRTF_TREES];        /**< their thresholds */
    uint32_t walk_tree[SRTF_TREES];   /**< their trees */
    double walk_ub[SRTF_TREES];       /**< their current jobs' bounds (walk_next_by_bound) */
    int backfill;
    int oracle;        /**< scheduler.duration_knowledge = oracle */
    dike_job **tmp;    /**< scratch: victims of one preempt_for */
    size_t tmp_cap;
    dike_ranked *cand; /**< scratch: victim candidates (without the oracle) */
    size_t cand_cap;
    /* Without the oracle (est_bound): the running jobs' bounds renewed when they may have
     * become too low. */
    dike_maxtree expiry;  /**< per job: -(when its estimate is outlived), -inf if not running */
    uint32_t ntenants;
    int32_t *rhead;       /**< per tenant: its first running job, -1 if none */
    int32_t *rnext, *rprev; /**< per job: the tenant's running list */
    dike_job **jobp;      /**< per job index: the job while it runs */
    dike_tenantwatch watch; /**< tenants whose estimates moved since their bounds were renewed */
    dike_ranked *unsure;  /**< scratch: candidates not yet known to be among the largest */
    size_t unsure_cap;
    /* Under `none` in the predicting mode: per tenant, its running jobs by the range of the
     * tenant's estimate within which their bound and expiry stay as they are (range_set), so
     * bounds_renew visits only the jobs whose range the estimate left. */
    int keyed;
    dike_runkeys rk;
    uint32_t *later;      /**< scratch: jobs renewed whose range does not hold the estimate yet */
    size_t later_cap;
} srtf_state;

static double queued_key(void *ctx, const dike_sched *s, const dike_job *j);
static int queued_shared(void *ctx, const dike_sched *s, const dike_job *j);
static double queued_stable(void *ctx, const dike_sched *s, const dike_job *j);
static double queued_level(void *ctx, const dike_sched *s, const dike_job *j);

static int srtf_keyed_off; /* dike_srtf_keyed_refresh(0) */
static uint32_t srtf_classes = SRTF_CLASSES; /* dike_srtf_rate_classes */

void dike_srtf_rate_classes(unsigned n)
{
    srtf_classes = n < SRTF_CLASSES ? n : SRTF_CLASSES;
}

void dike_srtf_keyed_refresh(int on)
{
    srtf_keyed_off = !on;
}

static int srtf_init(dike_sched *s, void **state, dike_err *e)
{
    srtf_state *st = dike_xcalloc(1, sizeof *st);
    const dike_workload *w = dike_sched_workload(s);
    dike_tenantq_init(&st->queued, w->njobs, w->ntenants, queued_key, queued_shared, st);
    if (dike_sched_duration_knowledge(s) == DIKE_DURATION_NONE)
        dike_tenantq_set_stable(&st->queued, queued_stable, queued_level);
    uint32_t ntypes = dike_sched_cluster(s)->ntypes;
    dike_fintree_init(&st->running, dike_sched_workload(s)->njobs, ntypes * SRTF_TREES);
    st->cls_rate = dike_xcalloc((size_t)ntypes * SRTF_TREES, sizeof *st->cls_rate);
    st->cls_n = dike_xcalloc(ntypes ? ntypes : 1, sizeof *st->cls_n);
    st->cls_max = srtf_classes;
    st->backfill = dike_sched_config(s)->scheduler_backfill;
    st->oracle = dike_sched_duration_knowledge(s) == DIKE_DURATION_ORACLE;
    if (!st->oracle) {
        size_t n = w->njobs ? w->njobs : 1;
        dike_maxtree_init(&st->expiry, n);
        st->ntenants = w->ntenants;
        st->rhead = dike_xcalloc(w->ntenants ? w->ntenants : 1, sizeof *st->rhead);
        for (uint32_t t = 0; t < w->ntenants; t++)
            st->rhead[t] = -1;
        st->rnext = dike_xcalloc(n, sizeof *st->rnext);
        st->rprev = dike_xcalloc(n, sizeof *st->rprev);
        st->jobp = dike_xcalloc(n, sizeof *st->jobp);
        dike_tenantwatch_init(&st->watch, w->ntenants);
    }
    st->keyed = dike_sched_duration_knowledge(s) == DIKE_DURATION_NONE &&
                !dike_sched_emulating(s) && !srtf_keyed_off;
    if (st->keyed) {
        uint32_t *tenant_of = dike_xcalloc(w->njobs ? w->njobs : 1, sizeof *tenant_of);
        for (size_t j = 0; j < w->njobs; j++)
            tenant_of[j] = w->jobs[j].tenant;
        dike_runkeys_init(&st->rk, w->njobs, w->ntenants, tenant_of);
        free(tenant_of);
    }
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

/* Under none a job that has never run has done no work and pays no restore: its time is its
 * tenant's estimate, the same for all of them. */
static int queued_shared(void *ctx, const dike_sched *s, const dike_job *j)
{
    return dike_sched_duration_knowledge(s) == DIKE_DURATION_NONE && j->first_start < 0;
}

/* Under none a job that ran before, with work done d, has estimated remaining d (it outlived the
 * estimate E: as long again) while E <= d, whatever E is; above, E - d. So its key stays while
 * its tenant's estimate stays at or below d (dike_tenantq_set_stable). Not while the work it did
 * in its last run is still on its way from the nodes (emulating mode): d is a guess until then. */
static double queued_stable(void *ctx, const dike_sched *s, const dike_job *j)
{
    return dike_sched_work_known(s, j) ? dike_sched_done_work(s, j) : -INFINITY;
}

static double queued_level(void *ctx, const dike_sched *s, const dike_job *j)
{
    return dike_sched_est_duration(s, j);
}

/* ---- the running jobs ---- */

/* The tree of running job @p j: its GPU type's class of its rate (see SRTF_CLASSES). */
static uint32_t class_of(srtf_state *st, const dike_job *j)
{
    uint32_t t = (uint32_t)j->type, base = t * SRTF_TREES;
    double rate = j->rate;
    if (rate > 0) {
        for (uint32_t k = 0; k < st->cls_n[t]; k++)
            if (st->cls_rate[base + k] == rate)
                return base + k;
        if (st->cls_n[t] < st->cls_max) {
            st->cls_rate[base + st->cls_n[t]] = rate;
            return base + st->cls_n[t]++;
        }
    }
    return base + SRTF_CLASSES;
}

/* A tree's factor a: work left <= a x time left for each of its jobs (1 for the shared tree). */
static double class_factor(const srtf_state *st, uint32_t tree)
{
    if (tree % SRTF_TREES == SRTF_CLASSES)
        return 1.0;
    double r = st->cls_rate[tree];
    return r < 1 ? r : 1.0;
}

/* Renew running job @p r's bound of its estimated time left (without the oracle), us after now.
 * Its estimated remaining work is max(gap, floor), where gap (dike_sched_est_gap_running) falls at
 * the job's rate from its progress start until the estimate is outlived, or until the job reaches
 * its nominal end (j->finish), where the coordinator's count of its work stops (in the emulating
 * mode a job the nodes slowed down runs on past it). The time left at rate 1 is never less. So
 * until the first of those two moments
 *     bound = progress start (or now) + gap / min(rate, 1) + floor + 2 us
 * minus the time is at least the estimated remaining work (the 2 us absorb rounding), and the
 * treap's order by bound stays right as time passes. Past the nominal end the estimate stays as
 * it is while the job runs: its bound is "never" (it is always looked at). The expiry tree says
 * when to renew a bound; a change of the tenant's estimate renews it too (bounds_renew). */
static void est_bound(srtf_state *st, dike_sched *s, dike_job *r, int renew)
{
    dike_time now = dike_sched_now(s), base = r->progress_start > now ? r->progress_start : now;
    double gap = dike_sched_est_gap_running(s, r), rate = r->rate;
    dike_time key = INT64_MAX / 4, until = INT64_MAX / 4;
    if (rate > 0 && now < r->finish && gap / rate < 1e15) {
        key = base + (dike_time)ceil(gap / (rate < 1 ? rate : 1)) + (dike_time)DIKE_EST_REMAINING_FLOOR_US + 2;
        /* Under `none` in the predicting mode the expiry is taken an eighth of the estimated length
         * early; in that last eighth, when half of the gap left is still over a minute, at its
         * half. A fall of the tenant's estimate then leaves the expiry right until that much has
         * gone (range_holds' lo is below the estimate), as the bound's slack does for rises.
         * Without it every expiry was exactly the estimate's end, so lo was the estimate itself
         * and every fall of it, however small, revisited all of the tenant's running jobs: 6.4
         * million of the 7.4 million revisits at 300,000 jobs (load 0.9) changed only an expiry
         * (with it: 2.4 million revisits, 1.8 million expiries; docs/performance.md). An early
         * expiry renews the bound (renew 3), which leaves the treap as it is unless the bound
         * rose. */
        double early = st->keyed ? (gap + dike_sched_done_work(s, r)) / DIKE_EST_ROOM : 0;
        if (early >= gap)
            early = gap > 120e6 ? gap / 2 : 0;
        until = dike_sched_est_gap_at(s, r, early);
        if (until > r->finish)
            until = r->finish;
        if (until <= now)
            until = now + 1;
    }
    double exp = until < INT64_MAX / 4 ? -(double)until : -INFINITY;
    /* A rise of the tenant's estimate moves the job in its treap. Under `none` the estimate is the
     * mean of the tenant's finished jobs, which moves a little at each of their finishes, so the
     * new bound gets an eighth of the gap as slack: the next rises up to that find it still a
     * bound and move nothing. A looser bound only lets the walk look at a job that its exact
     * estimate then decides on, so the victims are the same (docs/performance.md, 2026-12-04). */
    if (renew == 2 && key > st->running.key[r->idx] && key < INT64_MAX / 4)
        key += (dike_time)ceil(gap / DIKE_EST_ROOM / (rate < 1 ? rate : 1));
    if (renew == 2 && key <= st->running.key[r->idx]) {
        /* a new estimate of the tenant's that does not raise the bound: the old one is still a
         * bound (a looser one) until the new estimate is outlived */
        if (exp > dike_maxtree_get(&st->expiry, r->idx))
            dike_maxtree_set(&st->expiry, r->idx, exp);
        return;
    }
    if (renew == 3 && key <= st->running.key[r->idx]) {
        /* an expiry (taken early) before the estimate was outlived: the bound stands, and the
         * next expiry is later than this one */
        dike_maxtree_set(&st->expiry, r->idx, exp);
        return;
    }
    if (renew)
        dike_fintree_remove(&st->running, r);
    dike_fintree_insert_at(&st->running, class_of(st, r), r, key);
    dike_maxtree_set(&st->expiry, r->idx, exp);
}

static void *grow(void *p, size_t *cap, size_t n, size_t size);

/* Under `none`: the range (lo, hi) of its tenant's estimate E within which renewing running job
 * @p r's bound (est_bound with renew 2) changes nothing, from its bound K and expiry U now. Its
 * estimated remaining work is gap = E x 2^k - d (d its work done; est_gap_running).
 * - hi: the renewed bound is base + ceil(gap / min(rate, 1)) + floor + 2; base + gap / min(rate,
 *   1) does not grow with time (d grows at the rate), and a larger E only lowers k. So it stays at
 *   most K while E x 2^k <= d + min(rate, 1) x (K - base - floor - 2).
 * - lo: the estimate runs out at base + floor((E x 2^k - d) / rate) (est_gap_at), not before U
 *   while E x 2^k >= d + rate x (U - base + 1), the work it will have done by then; nor can k grow
 *   before U. Then the expiry is not moved either.
 * A bound or expiry of "never" that a new E could make finite: always renewed (lo = +inf).
 * Returns 1 if the range holds @p e (with the runkeys tolerance). */
#define SRTF_RANGE_TOL 1e-9
static int range_holds(const srtf_state *st, const dike_sched *s, const dike_job *r, double e,
                       double *hi, double *lo)
{
    dike_time now = dike_sched_now(s), base = r->progress_start > now ? r->progress_start : now;
    dike_time key = st->running.key[r->idx];
    double x = -dike_maxtree_get(&st->expiry, r->idx), rate = r->rate;
    *hi = INFINITY;
    *lo = -INFINITY;
    if (!(rate > 0) || now >= r->finish)
        return 1; /* est_bound gives "never" whatever the estimate */
    double est = dike_sched_est_judged(s, r), d = dike_sched_done_work(s, r);
    double mult = dike_sched_est_scale(est, d); /* 2^k */
    dike_time room = key - base - (dike_time)DIKE_EST_REMAINING_FLOOR_US - 2;
    if (key < INT64_MAX / 4)
        *hi = (d + (rate < 1 ? rate : 1) * (double)room) / mult;
    else
        *lo = INFINITY;
    if (x < 9e18 && *lo < INFINITY)
        *lo = (d + rate * (double)(x - (double)base + 1)) / mult;
    else
        *lo = INFINITY;
    return *hi > e * (1 + SRTF_RANGE_TOL) && *lo < e * (1 - SRTF_RANGE_TOL);
}

static void range_set(srtf_state *st, const dike_sched *s, const dike_job *r)
{
    double hi, lo;
    range_holds(st, s, r, 0, &hi, &lo);
    dike_runkeys_set(&st->rk, r->idx, r->spec->tenant, hi, lo);
}

static void run_add(srtf_state *st, dike_sched *s, dike_job *j)
{
    if (st->oracle) {
        dike_fintree_insert(&st->running, class_of(st, j), j);
        return;
    }
    est_bound(st, s, j, 0);
    st->jobp[j->idx] = j;
    dike_idlist_push(&st->rhead[j->spec->tenant], st->rnext, st->rprev, (int32_t)j->idx);
    if (st->keyed)
        range_set(st, s, j);
}

static void run_remove(srtf_state *st, dike_job *j)
{
    dike_fintree_remove(&st->running, j);
    if (st->oracle)
        return;
    dike_maxtree_set(&st->expiry, j->idx, -INFINITY);
    dike_idlist_unlink(&st->rhead[j->spec->tenant], st->rnext, st->rprev, (int32_t)j->idx);
    if (st->keyed)
        dike_runkeys_remove(&st->rk, j->idx, j->spec->tenant);
}

/* Without the oracle, before a decision: renew the bounds of running jobs whose estimate was
 * outlived since, and of every running job of a tenant whose estimates changed. */
static void bounds_renew(srtf_state *st, dike_sched *s)
{
    double now = (double)dike_sched_now(s);
    size_t i;
    while ((i = dike_maxtree_next(&st->expiry, 0, -now)) < st->expiry.n) {
        est_bound(st, s, st->jobp[i], st->keyed ? 3 : 1);
        if (st->keyed)
            range_set(st, s, st->jobp[i]);
    }
    for (uint32_t n = dike_tenantwatch_moved(&st->watch, s), k = 0; k < n; k++) {
        uint32_t t = st->watch.moved[k];
        if (!st->keyed) {
            for (int32_t j = st->rhead[t]; j >= 0; j = st->rnext[j])
                est_bound(st, s, st->jobp[j], 2);
            continue;
        }
        /* only the jobs whose range the estimate left; one renewed whose new range does not
         * hold it either (a bound taken without slack) waits apart until the others are done */
        uint32_t j = dike_runkeys_any(&st->rk, t);
        if (j == UINT32_MAX)
            continue;
        double e = dike_sched_est_judged(s, st->jobp[j]), hi, lo;
        size_t nl = 0;
        while ((j = dike_runkeys_out(&st->rk, t, e, SRTF_RANGE_TOL)) != UINT32_MAX) {
            dike_job *r = st->jobp[j];
            est_bound(st, s, r, 2);
            if (range_holds(st, s, r, e, &hi, &lo)) {
                dike_runkeys_set(&st->rk, j, t, hi, lo);
                continue;
            }
            dike_runkeys_remove(&st->rk, j, t);
            st->later = grow(st->later, &st->later_cap, nl, sizeof *st->later);
            st->later[nl++] = j;
        }
        for (size_t m = 0; m < nl; m++)
            range_set(st, s, st->jobp[st->later[m]]);
    }
}

static void srtf_arrival(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    dike_tenantq_push(&st->queued, s, j);
}

static void srtf_finish(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    run_remove(st, j);
}

/* A queued job finished (its work ended before its preemption took effect). */
static void srtf_withdraw(void *state, dike_sched *s, dike_job *j)
{
    dike_tenantq_remove(&((srtf_state *)state)->queued, j);
}

static void srtf_evicted(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    run_remove(st, j);
    dike_tenantq_push(&st->queued, s, j);
}

static int start(srtf_state *st, dike_sched *s, dike_job *j)
{
    if (!dike_sched_start(s, j))
        return 0;
    dike_tenantq_remove(&st->queued, j);
    run_add(st, s, j);
    return 1;
}

static int fill_start(void *ctx, dike_sched *s, dike_job *j)
{
    return start(ctx, s, j);
}

/* One victim search of preempt_for / preempt_for_estimated. */
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

/* The estimated search's context: what victim_search has, plus the candidates not yet known to
 * be among the largest (a max-heap by estimate in st->unsure) and the GPUs of those that are. */
typedef struct est_search {
    victim_search v;
    size_t nu;       /**< candidates in st->unsure */
    uint64_t sure;   /**< GPUs of the candidates above every bound left */
} est_search;

static int unsure_above(const dike_ranked *x, const dike_ranked *y)
{
    return x->key != y->key ? x->key < y->key : x->job->idx < y->job->idx; /* key = -estimate */
}

static void unsure_push(srtf_state *st, size_t *n, dike_ranked c)
{
    st->unsure = grow(st->unsure, &st->unsure_cap, *n, sizeof *st->unsure);
    size_t i = (*n)++;
    for (; i > 0 && unsure_above(&c, &st->unsure[(i - 1) / 2]); i = (i - 1) / 2)
        st->unsure[i] = st->unsure[(i - 1) / 2];
    st->unsure[i] = c;
}

static void unsure_pop(srtf_state *st, size_t *n)
{
    dike_ranked last = st->unsure[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && unsure_above(&st->unsure[c + 1], &st->unsure[c]))
            c++;
        if (!unsure_above(&st->unsure[c], &last))
            break;
        st->unsure[i] = st->unsure[c];
        i = c;
    }
    if (*n)
        st->unsure[i] = last;
}

/* ---- the merged walk over a GPU type's rate classes ---- */

/* Open the trees of GPU type @p t for a walk: tree c's threshold st->thr (its jobs with a key
 * at or below it cannot have more work left than @p need), at least @p after (the bound of the
 * single-tree walk: work left <= time left). @p est: keys are est_bound's bounds, whose work left
 * may also be the floor. Returns the trees opened (those with jobs above their threshold) and
 * adds those jobs' GPUs to *@p gpus. The cursors are not started (walk_start). */
static uint32_t walk_open(srtf_state *st, uint32_t t, dike_time now, double need, dike_time after,
                          int est, uint64_t *gpus)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < SRTF_TREES; k++) {
        if (k == st->cls_n[t] && k < SRTF_CLASSES)
            k = SRTF_CLASSES; /* the classes not in use, then the shared tree */
        uint32_t c = t * SRTF_TREES + k;
        if (st->running.root[c] == UINT32_MAX)
            continue;
        dike_time thr = after;
        double a = class_factor(st, c);
        /* oracle: work left = r x (finish - progress start) - r x (now - progress start) <=
         * r x (finish - now), finish rounded up; est_bound: work left <= max(a x (bound - now),
         * floor). 4 us absorb the rounding of the keys and of the work. */
        if (a < 1 && (!est || need >= DIKE_EST_REMAINING_FLOOR_US + 4)) {
            double x = floor((need - 4) / a) - 1;
            if (x < 1e15 && now + (dike_time)x > thr)
                thr = now + (dike_time)x;
        }
        uint64_t g = dike_fintree_gpus_after(&st->running, c, thr);
        if (!g)
            continue;
        *gpus += g;
        st->walk_tree[n] = c;
        st->thr[n++] = thr;
    }
    return n;
}

static void walk_start(srtf_state *st, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        dike_fintree_iter_start(&st->running, &st->it[i], st->walk_tree[i], st->thr[i]);
}

/* The single-tree walk's order: later key first, then lower job index. */
static int key_before(const dike_fintree *f, uint32_t a, uint32_t b)
{
    return f->key[a] != f->key[b] ? f->key[a] > f->key[b] : a < b;
}

/* The next job of the merged walk in the single-tree order (the oracle search's order, which
 * decides its victims), or NULL. */
static dike_job *walk_next_by_key(srtf_state *st, uint32_t n)
{
    int best = -1;
    for (uint32_t i = 0; i < n; i++)
        if (st->it[i].cur != UINT32_MAX &&
            (best < 0 || key_before(&st->running, st->it[i].cur, st->it[best].cur)))
            best = (int)i;
    if (best < 0)
        return NULL;
    dike_job *r = st->running.job[st->it[best].cur];
    dike_fintree_iter_next(&st->running, &st->it[best]);
    return r;
}

/* Upper bound of the estimated work left of the job at cursor @p i (est_bound's keys). */
static double walk_bound(const srtf_state *st, uint32_t i, dike_time now)
{
    dike_time key = st->running.key[st->it[i].cur];
    if (key >= INT64_MAX / 4)
        return INFINITY;
    double w = class_factor(st, st->walk_tree[i]) * (double)(key - now);
    return (w > DIKE_EST_REMAINING_FLOOR_US ? w : DIKE_EST_REMAINING_FLOOR_US) + 4;
}

static void walk_start_bound(srtf_state *st, uint32_t n, dike_time now)
{
    walk_start(st, n);
    for (uint32_t i = 0; i < n; i++)
        if (st->it[i].cur != UINT32_MAX)
            st->walk_ub[i] = walk_bound(st, i, now);
}

/* The next job of the merged walk by that bound, largest first (ties: the single-tree order),
 * with its bound in *@p left: no job not returned yet has more estimated work left. */
static dike_job *walk_next_by_bound(srtf_state *st, uint32_t n, dike_time now, double *left)
{
    int best = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (st->it[i].cur == UINT32_MAX)
            continue;
        if (best < 0 || st->walk_ub[i] > st->walk_ub[best] ||
            (st->walk_ub[i] == st->walk_ub[best] &&
             key_before(&st->running, st->it[i].cur, st->it[best].cur)))
            best = (int)i;
    }
    if (best < 0)
        return NULL;
    dike_job *r = st->running.job[st->it[best].cur];
    *left = st->walk_ub[best];
    dike_fintree_iter_next(&st->running, &st->it[best]);
    if (st->it[best].cur != UINT32_MAX)
        st->walk_ub[best] = walk_bound(st, (uint32_t)best, now);
    return r;
}

/* Visit running job @p r, largest bound first. Every job not visited yet has an estimated
 * remaining of at most @p left (r's bound), so a candidate estimated above it comes before all of
 * them in the full order; once such candidates hold the GPUs still missing, the victims are
 * known. */
static int collect_estimated(est_search *e, dike_job *r, double left)
{
    victim_search *v = &e->v;
    srtf_state *st = v->st;
    while (e->nu && -st->unsure[0].key > left) {
        e->sure += st->unsure[0].job->spec->num_gpus;
        unsure_pop(st, &e->nu);
    }
    if (v->have + e->sure >= v->g)
        return 1;
    if (r->run_start >= v->now)
        return 0;
    double rem = dike_sched_est_remaining_running(v->s, r);
    if (rem <= v->need_time)
        return 0;
    dike_ranked c = {.key = -rem, .job = r};
    st->cand = grow(st->cand, &st->cand_cap, v->n, sizeof *st->cand);
    st->cand[v->n++] = c;
    unsure_push(st, &e->nu, c);
    return 0;
}

/* preempt_for without the oracle: the candidates are the running jobs of type @p t that started
 * before now and have more estimated remaining work (dike_sched_est_remaining_running) than @p q
 * needs, taken largest estimate first (ties: lower job index) until the gang fits. The walk
 * visits only jobs whose bound (est_bound, scaled by the rate class) exceeds the need, and ends
 * when the victims are known (collect_estimated): the victims are those of a sort of every
 * candidate. */
static int preempt_for_estimated(srtf_state *st, dike_sched *s, dike_job *q, int t)
{
    dike_time now = dike_sched_now(s);
    uint64_t have = dike_sched_free_gpus(s, t);
    uint32_t g = q->spec->num_gpus;
    double need_time = queued_time(s, q);
    est_search es = {{st, s, now, need_time, have, g, 0}, 0, 0};
    /* estimate <= bound - now - 2 us: bound - now <= floor(need) gives estimate < need */
    dike_time after = now + (dike_time)floor(need_time);
    uint64_t above = 0;
    uint32_t nw = walk_open(st, (uint32_t)t, now, need_time, after, 1, &above);
    if (have + above < g)
        return 0;
    walk_start_bound(st, nw, now);
    dike_job *r;
    double left;
    while ((r = walk_next_by_bound(st, nw, now, &left)))
        if (collect_estimated(&es, r, left))
            break;
    size_t nc = es.v.n;
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
        run_remove(st, v);
        dike_sched_preempt(s, v);
        dike_tenantq_push(&st->queued, s, v);
    }
    return start(st, s, q);
}

static int collect_victim(victim_search *v, dike_job *r)
{
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
 * work never exceeds time to finish times the rate (at most 1 on the reference type), so once
 * that drops to what q needs no later job of the rate class can be a victim: each class's walk
 * stops there (walk_open), and when the GPUs of all the jobs before those points would not be
 * enough, the walk is not made at all. */
static int preempt_for(srtf_state *st, dike_sched *s, dike_job *q, int t)
{
    victim_search v = {st, s, dike_sched_now(s), queued_time(s, q), dike_sched_free_gpus(s, t),
                       q->spec->num_gpus, 0};
    if (v.have < v.g) {
        /* "finish - now > need_time" in whole us: finish > now + floor(need_time) */
        dike_time after = v.now + (dike_time)floor(v.need_time);
        uint64_t above = 0;
        uint32_t nw = walk_open(st, (uint32_t)t, v.now, v.need_time, after, 0, &above);
        if (v.have + above < v.g)
            return 0;
        walk_start(st, nw);
        dike_job *r;
        while ((r = walk_next_by_key(st, nw)))
            if (collect_victim(&v, r))
                break;
    }
    if (v.have < v.g)
        return 0;
    for (size_t i = 0; i < v.n; i++) {
        dike_job *r = st->tmp[i];
        run_remove(st, r);
        dike_sched_preempt(s, r);
        dike_tenantq_push(&st->queued, s, r);
    }
    return start(st, s, q);
}

static void srtf_decide(void *state, dike_sched *s)
{
    srtf_state *st = state;
    const dike_cluster *cl = dike_sched_cluster(s);
    dike_tenantq_refresh(&st->queued, s);
    /* The bounds only speed up the victim search, so with nothing queued they are left stale:
     * the next decision with a queue renews every bound that expired or whose range the tenant's
     * estimate left since (the expiry tree and the tenant watch keep both until then). A bound
     * whose range holds the estimate again by then is an upper bound again, so it is not renewed:
     * the victims, decided by the exact order, are the same (docs/performance.md, "srtf with
     * nothing queued"). */
    if (!st->oracle && dike_tenantq_min(&st->queued))
        bounds_renew(st, s);
    dike_job *q;
    while ((q = dike_tenantq_min(&st->queued))) {
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
    dike_tenantq_start_in_order(&st->queued, s, 1, fill_start, st);
}

static void srtf_restore(void *state, dike_sched *s, dike_job *j)
{
    srtf_state *st = state;
    if (j->state == DIKE_JOB_QUEUED) {
        dike_tenantq_push(&st->queued, s, j);
        return;
    }
    run_add(st, s, j);
    dike_tenantwatch_reset(&st->watch); /* renew every bound at the first decision, with the
                                           estimates restored */
    if (st->keyed) /* its range too, then */
        dike_runkeys_set(&st->rk, j->idx, j->spec->tenant, -INFINITY, INFINITY);
}

static void srtf_free(void *state)
{
    srtf_state *st = state;
    dike_tenantq_free(&st->queued);
    dike_fintree_free(&st->running);
    free(st->cls_rate);
    free(st->cls_n);
    for (uint32_t i = 0; i < SRTF_TREES; i++)
        dike_fintree_iter_free(&st->it[i]);
    free(st->tmp);
    free(st->cand);
    free(st->unsure);
    if (!st->oracle) {
        dike_maxtree_free(&st->expiry);
        free(st->rhead);
        free(st->rnext);
        free(st->rprev);
        free(st->jobp);
        dike_tenantwatch_free(&st->watch);
    }
    if (st->keyed)
        dike_runkeys_free(&st->rk);
    free(st->later);
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
    .on_withdraw = srtf_withdraw,
};
