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
    }
    j->pol_j = (int32_t)a->n;
    a->jobs[a->n++] = j;
}

void dike_active_remove(dike_active *a, dike_job *j)
{
    size_t i = (size_t)j->pol_j;
    if (i >= a->n || a->jobs[i] != j)
        dike_fatal("active set: job %u is not in it", j->idx);
    /* Keep arrival order: shifting is O(n) but removals are one per completion, and the order
     * is what makes "FIFO inside a tenant" and every tie-break deterministic. */
    memmove(&a->jobs[i], &a->jobs[i + 1], (a->n - i - 1) * sizeof *a->jobs);
    a->n--;
    for (size_t k = i; k < a->n; k++)
        a->jobs[k]->pol_j = (int32_t)k;
    j->pol_j = -1;
}

void dike_active_free(dike_active *a)
{
    free(a->jobs);
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

/* The same steps as dike_reallocate with every preemption allowed, reading the order only as far as
 * each step needs: the best prefix stops once the GPUs that are up are spent, and the fill once
 * no GPU is free. Running jobs ranked after the prefix are all preempted, in rank order (the
 * order in which GPUs return to the free lists decides later placements), so only they are
 * sorted. */
size_t dike_reallocate_walk(dike_sched *s, dike_rankwalk *w, uint8_t *keep, void *ctx,
                            void (*on_change)(void *ctx, dike_job *j, int started))
{
    uint64_t budget = dike_sched_gpus_up(s);
    size_t prefix = 0;
    const dike_ranked *e;
    /* The best prefix that fits, counting GPUs only. Gangs have at least one GPU, so nothing
     * after the point where the budget is spent is kept. */
    for (; budget > 0 && (e = dike_rankwalk_at(w, prefix)); prefix++) {
        uint32_t g = e->job->spec->num_gpus;
        keep[prefix] = g <= budget;
        if (keep[prefix])
            budget -= g;
    }
    size_t preempted = 0;
    for (size_t i = 0; i < prefix; i++) {
        dike_job *j = dike_rankwalk_at(w, i)->job;
        if (j->state == DIKE_JOB_RUNNING && !keep[i]) {
            dike_sched_preempt(s, j);
            preempted++;
            if (on_change)
                on_change(ctx, j, 0);
        }
    }
    dike_ranked *rest;
    size_t nrest = dike_rankwalk_rest(w, &rest), nrun = 0;
    if (prefix < w->n) {
        dike_ranked *run = dike_xmalloc((nrest + 1) * sizeof *run);
        for (size_t i = 0; i < nrest; i++)
            if (rest[i].job->state == DIKE_JOB_RUNNING)
                run[nrun++] = rest[i];
        dike_ranked_sort(run, nrun);
        for (size_t i = 0; i < nrun; i++) {
            dike_sched_preempt(s, run[i].job);
            preempted++;
            if (on_change)
                on_change(ctx, run[i].job, 0);
        }
        free(run);
    }
    /* Start the chosen queued jobs in order; placement may still refuse one (GPU type,
     * fragmentation), in which case later jobs get the room. */
    for (size_t i = 0; i < prefix; i++) {
        dike_job *j = dike_rankwalk_at(w, i)->job;
        if (keep[i] && j->state == DIKE_JOB_QUEUED && dike_sched_start(s, j) && on_change)
            on_change(ctx, j, 1);
    }
    /* Anything still free goes to the next jobs in order that fit (work conservation). */
    dike_fill_walk(s, w, ctx, on_change);
    return preempted;
}

void dike_fill_walk(dike_sched *s, dike_rankwalk *w, void *ctx,
                    void (*on_change)(void *ctx, dike_job *j, int started))
{
    const dike_ranked *e;
    for (size_t i = 0; dike_sched_free_gpus(s, -1) > 0 && (e = dike_rankwalk_at(w, i)); i++) {
        dike_job *j = e->job;
        if (j->state == DIKE_JOB_QUEUED && j->spec->num_gpus <= dike_sched_free_gpus(s, -1) &&
            dike_sched_start(s, j) && on_change)
            on_change(ctx, j, 1);
    }
}
