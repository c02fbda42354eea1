/* Tenants, entitlements, active sets and reallocation shared by the policies. */
#include "policy/common.h"

#include "policy/rankwalk.h"

#include <stdlib.h>
#include <string.h>

int dike_tenants_init(dike_tenants *t, dike_sched *s, dike_err *e)
{
    const dike_workload *w = dike_sched_workload(s);
    memset(t, 0, sizeof *t);
    t->n = w->ntenants;
    t->weight = dike_xmalloc((t->n + 1) * sizeof *t->weight);
    t->demand = dike_xcalloc(t->n + 1, sizeof *t->demand);
    t->alloc = dike_xcalloc(t->n + 1, sizeof *t->alloc);
    t->active = dike_xcalloc(t->n + 1, sizeof *t->active);
    t->entitled = dike_xcalloc(t->n + 1, sizeof *t->entitled);
    /* [tenants] weights were resolved (and checked) once for the run, whatever the policy. */
    memcpy(t->weight, dike_sched_tenant_weights(s), t->n * sizeof *t->weight);
    (void)e;
    return 0;
}

void dike_tenants_free(dike_tenants *t)
{
    free(t->weight);
    free(t->demand);
    free(t->alloc);
    free(t->active);
    free(t->entitled);
    memset(t, 0, sizeof *t);
}

void dike_tenants_arrive(dike_tenants *t, const dike_job *j)
{
    t->demand[j->spec->tenant] += j->spec->num_gpus;
    t->active[j->spec->tenant]++;
}

void dike_tenants_leave(dike_tenants *t, const dike_job *j)
{
    t->demand[j->spec->tenant] -= j->spec->num_gpus;
    t->active[j->spec->tenant]--;
}

void dike_tenants_run(dike_tenants *t, const dike_job *j, int running)
{
    if (running)
        t->alloc[j->spec->tenant] += j->spec->num_gpus;
    else
        t->alloc[j->spec->tenant] -= j->spec->num_gpus;
}

void dike_waterfill(size_t n, const double *weight, const double *demand, double capacity,
                    double *out)
{
    /* Repeatedly share what is left in proportion to weight among the unsatisfied tenants; any
     * tenant whose demand is below its share is satisfied and leaves. At most n rounds. */
    char *done = dike_xcalloc(n + 1, 1);
    double left = capacity;
    for (size_t i = 0; i < n; i++) {
        out[i] = 0;
        if (demand[i] <= 0)
            done[i] = 1;
    }
    for (;;) {
        double wsum = 0;
        for (size_t i = 0; i < n; i++)
            if (!done[i])
                wsum += weight[i];
        if (wsum <= 0 || left <= 1e-12)
            break;
        int satisfied = 0;
        for (size_t i = 0; i < n; i++)
            if (!done[i] && demand[i] - out[i] <= left * weight[i] / wsum) {
                satisfied = 1;
            }
        if (!satisfied) {
            for (size_t i = 0; i < n; i++)
                if (!done[i])
                    out[i] += left * weight[i] / wsum;
            break;
        }
        double given = 0;
        for (size_t i = 0; i < n; i++)
            if (!done[i] && demand[i] - out[i] <= left * weight[i] / wsum) {
                given += demand[i] - out[i];
                out[i] = demand[i];
                done[i] = 1;
            }
        left -= given;
    }
    free(done);
}

void dike_tenants_waterfill(dike_tenants *t, double capacity)
{
    double *d = dike_xmalloc((t->n + 1) * sizeof *d);
    for (uint32_t i = 0; i < t->n; i++)
        d[i] = t->demand[i];
    dike_waterfill(t->n, t->weight, d, capacity, t->entitled);
    free(d);
}

void dike_active_add(dike_active *a, dike_job *j)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->jobs = dike_xrealloc(a->jobs, a->cap * sizeof *a->jobs);
        a->stamp = dike_xrealloc(a->stamp, a->cap * sizeof *a->stamp);
    }
    if (a->next == INT32_MAX)
        dike_fatal("active set: more than %d arrivals", INT32_MAX);
    if (j->idx >= a->nstamp_of) { /* grows to the largest job index seen */
        size_t n = a->nstamp_of ? a->nstamp_of : 256;
        while (n <= j->idx)
            n *= 2;
        a->stamp_of = dike_xrealloc(a->stamp_of, n * sizeof *a->stamp_of);
        a->nstamp_of = n;
    }
    a->stamp_of[j->idx] = a->next++;
    a->stamp[a->n] = a->stamp_of[j->idx];
    a->jobs[a->n++] = j;
}

void dike_active_remove(dike_active *a, dike_job *j)
{
    /* Arrival order is what makes "FIFO inside a tenant" and every tie-break deterministic, and
     * readers walk jobs[] directly, so the array stays dense: the slot is found by its stamp and
     * the gap closed by one memmove (a few bytes per later job, no job struct touched). */
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->stamp[mid] < a->stamp_of[j->idx])
            lo = mid + 1;
        else
            hi = mid;
    }
    if (j->idx >= a->nstamp_of || lo >= a->n || a->jobs[lo] != j)
        dike_fatal("active set: job %u is not in it", j->idx);
    memmove(&a->jobs[lo], &a->jobs[lo + 1], (a->n - lo - 1) * sizeof *a->jobs);
    memmove(&a->stamp[lo], &a->stamp[lo + 1], (a->n - lo - 1) * sizeof *a->stamp);
    a->n--;
}

void dike_active_free(dike_active *a)
{
    free(a->jobs);
    free(a->stamp);
    free(a->stamp_of);
    memset(a, 0, sizeof *a);
}

static int ranked_cmp(const void *x, const void *y)
{
    const dike_ranked *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->job->idx < b->job->idx ? -1 : a->job->idx > b->job->idx;
}

void dike_ranked_sort(dike_ranked *r, size_t n)
{
    if (n > 1) /* r may be NULL when there is nothing to sort */
        qsort(r, n, sizeof *r, ranked_cmp);
}

size_t dike_reallocate(dike_sched *s, dike_ranked *order, size_t n, dike_can_preempt_fn can_preempt,
                       void *ctx, void (*on_change)(void *ctx, dike_job *j, int started))
{
    uint64_t budget = dike_sched_gpus_up(s);
    char *keep = dike_xcalloc(n + 1, 1);
    /* Running jobs that may not be preempted hold their GPUs whatever their rank. */
    for (size_t i = 0; i < n; i++) {
        dike_job *j = order[i].job;
        if (j->state == DIKE_JOB_RUNNING && !(can_preempt && can_preempt(ctx, s, j))) {
            keep[i] = 1;
            budget -= j->spec->num_gpus;
        }
    }
    /* The best prefix that fits, counting GPUs only (gang sizes against the GPUs that are up). */
    for (size_t i = 0; i < n; i++) {
        uint32_t g = order[i].job->spec->num_gpus;
        if (!keep[i] && g <= budget) {
            keep[i] = 2;
            budget -= g;
        }
    }
    size_t preempted = 0;
    for (size_t i = 0; i < n; i++) {
        dike_job *j = order[i].job;
        if (j->state == DIKE_JOB_RUNNING && !keep[i]) {
            dike_sched_preempt(s, j);
            preempted++;
            if (on_change)
                on_change(ctx, j, 0);
        }
    }
    /* Start the chosen queued jobs in order; placement may still refuse one (GPU type,
     * fragmentation), in which case later jobs get the room. */
    for (size_t i = 0; i < n; i++) {
        dike_job *j = order[i].job;
        if (keep[i] == 2 && j->state == DIKE_JOB_QUEUED && dike_sched_start(s, j) && on_change)
            on_change(ctx, j, 1);
    }
    free(keep);
    /* Anything still free goes to the next jobs in order that fit (work conservation). */
    dike_fill(s, order, n, ctx, on_change);
    return preempted;
}

void dike_fill(dike_sched *s, dike_ranked *order, size_t n, void *ctx,
               void (*on_change)(void *ctx, dike_job *j, int started))
{
    for (size_t i = 0; i < n && dike_sched_free_gpus(s, -1) > 0; i++) {
        dike_job *j = order[i].job;
        if (j->state == DIKE_JOB_QUEUED && j->spec->num_gpus <= dike_sched_free_gpus(s, -1) &&
            dike_sched_start(s, j) && on_change)
            on_change(ctx, j, 1);
    }
}

int dike_preempt_always(void *ctx, dike_sched *s, const dike_job *running)
{
    return 1;
}

/* Move the entries that pass @p keep to the front, in no particular order; returns how many. */
static size_t compact(dike_ranked *r, size_t n, int (*keep)(const dike_ranked *e, uint64_t arg),
                      uint64_t arg)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (keep(&r[i], arg)) {
            dike_ranked t = r[m];
            r[m++] = r[i];
            r[i] = t;
        }
    return m;
}

static int queued_fits(const dike_ranked *e, uint64_t free)
{
    return e->job->state == DIKE_JOB_QUEUED && e->job->spec->num_gpus <= free;
}

static int fits(const dike_ranked *e, uint64_t budget)
{
    return e->job->spec->num_gpus <= budget;
}

static int is_state(const dike_ranked *e, uint64_t state)
{
    return e->job->state == state;
}

static void grow(dike_rank_scratch *sc, size_t n)
{
    if (n > sc->cap) {
        sc->cap = n > 2 * sc->cap ? n : 2 * sc->cap;
        sc->buf = dike_xrealloc(sc->buf, sc->cap * sizeof *sc->buf);
    }
}

void dike_rank_scratch_free(dike_rank_scratch *sc)
{
    free(sc->buf);
    memset(sc, 0, sizeof *sc);
}

/* The steps of dike_reallocate with every preemption allowed, on an unsorted order. The best
 * jobs whose gangs fit in the GPUs that are up all keep or get GPUs whatever their order among
 * themselves, so they are only selected (dike_rank_prefix); the order matters after them (the
 * greedy walk that skips what does not fit), among the running jobs preempted (the order in which
 * GPUs go back to the free lists decides later placements) and among the jobs started, and only
 * those are ordered. */
size_t dike_reallocate_ranked(dike_sched *s, dike_ranked *r, size_t n, dike_rank_scratch *sc,
                              void *ctx, void (*on_change)(void *ctx, dike_job *j, int started))
{
    if (n == 0)
        return 0; /* no active job: nothing runs, nothing to start (and r may be NULL) */
    uint64_t used;
    size_t p = dike_rank_prefix(r, n, dike_sched_gpus_up(s), &used);
    uint64_t budget = dike_sched_gpus_up(s) - used;
    grow(sc, 2 * n + 1);
    dike_ranked *kept = sc->buf, *other = sc->buf + n;
    size_t nkept = 0;
    /* After the prefix, the greedy walk keeps what still fits, in order. */
    dike_rankwalk w;
    dike_rankwalk_init(&w, r + p, compact(r + p, n - p, fits, budget));
    const dike_ranked *e;
    for (size_t i = 0; budget > 0 && (e = dike_rankwalk_at(&w, i)); i++)
        if (e->job->spec->num_gpus <= budget) {
            kept[nkept++] = *e;
            budget -= e->job->spec->num_gpus;
        }
    /* Running jobs after the prefix and not kept by the walk are preempted, in order. The kept
     * running ones are a subsequence of them, in the same order. */
    size_t nrun = compact(memcpy(other, r + p, (n - p) * sizeof *r), n - p, is_state,
                          DIKE_JOB_RUNNING);
    dike_ranked_sort(other, nrun);
    size_t preempted = 0;
    for (size_t i = 0, k = 0; i < nrun; i++) {
        while (k < nkept && kept[k].job->state != DIKE_JOB_RUNNING)
            k++;
        if (k < nkept && kept[k].job == other[i].job) {
            k++;
            continue;
        }
        dike_sched_preempt(s, other[i].job);
        preempted++;
        if (on_change)
            on_change(ctx, other[i].job, 0);
    }
    /* Start the chosen queued jobs in order (the prefix's, then the walk's); placement may still
     * refuse one (GPU type, fragmentation), in which case later jobs get the room. */
    size_t nq = compact(memcpy(other, r, p * sizeof *r), p, is_state, DIKE_JOB_QUEUED);
    dike_ranked_sort(other, nq);
    for (size_t i = 0; i < nq; i++)
        if (dike_sched_start(s, other[i].job) && on_change)
            on_change(ctx, other[i].job, 1);
    for (size_t i = 0; i < nkept; i++) {
        dike_job *j = kept[i].job;
        if (j->state == DIKE_JOB_QUEUED && dike_sched_start(s, j) && on_change)
            on_change(ctx, j, 1);
    }
    /* Anything still free goes to the next jobs in order that fit (work conservation). */
    memcpy(other, r, n * sizeof *r);
    dike_fill_ranked(s, other, n, ctx, on_change);
    return preempted;
}

void dike_fill_ranked(dike_sched *s, dike_ranked *r, size_t n, void *ctx,
                      void (*on_change)(void *ctx, dike_job *j, int started))
{
    /* Only queued jobs that fit now can start, and the free GPUs only shrink during the fill. */
    size_t m = compact(r, n, queued_fits, dike_sched_free_gpus(s, -1));
    uint64_t used;
    size_t p = dike_rank_prefix(r, m, dike_sched_free_gpus(s, -1), &used);
    dike_ranked_sort(r, p);
    for (size_t i = 0; i < p; i++) {
        dike_job *j = r[i].job;
        if (j->spec->num_gpus <= dike_sched_free_gpus(s, -1) && dike_sched_start(s, j) &&
            on_change)
            on_change(ctx, j, 1);
    }
    /* What is left of the order, for the GPUs placement refused to the prefix (and its rest). */
    dike_rankwalk w;
    dike_rankwalk_init(&w, r + p, compact(r + p, m - p, fits, dike_sched_free_gpus(s, -1)));
    const dike_ranked *e;
    for (size_t i = 0; dike_sched_free_gpus(s, -1) > 0 && (e = dike_rankwalk_at(&w, i)); i++) {
        dike_job *j = e->job;
        if (j->spec->num_gpus <= dike_sched_free_gpus(s, -1) && dike_sched_start(s, j) &&
            on_change)
            on_change(ctx, j, 1);
    }
}
