/* Tenants, entitlements, active sets and reallocation shared by the policies. */
#include "policy/common.h"

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
    j->pol_j = a->next++;
    a->stamp[a->n] = j->pol_j;
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
        if (a->stamp[mid] < j->pol_j)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= a->n || a->jobs[lo] != j)
        dike_fatal("active set: job %u is not in it", j->idx);
    memmove(&a->jobs[lo], &a->jobs[lo + 1], (a->n - lo - 1) * sizeof *a->jobs);
    memmove(&a->stamp[lo], &a->stamp[lo + 1], (a->n - lo - 1) * sizeof *a->stamp);
    a->n--;
    j->pol_j = -1;
}

void dike_active_free(dike_active *a)
{
    free(a->jobs);
    free(a->stamp);
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

void dike_decide_by_rounds(void *state, dike_sched *s, dike_order_fn build)
{
    dike_ranked *order;
    if (dike_sched_is_round(s)) {
        size_t n = build(state, s, 0, &order);
        dike_reallocate(s, order, n, dike_preempt_always, state, NULL);
    } else if (dike_sched_free_gpus(s, -1) > 0) {
        size_t n = build(state, s, 1, &order);
        dike_fill(s, order, n, state, NULL);
    }
}
