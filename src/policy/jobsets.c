/* Running jobs and queued jobs by gang size, unordered, O(1) updates. */
#include "policy/jobsets.h"

#include <stdlib.h>
#include <string.h>

static void set_add(dike_jobset *l, int32_t *slot, dike_job *j)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->jobs = dike_xrealloc(l->jobs, l->cap * sizeof *l->jobs);
    }
    slot[j->idx] = (int32_t)l->n;
    l->jobs[l->n++] = j;
}

static void set_remove(dike_jobset *l, int32_t *slot, dike_job *j)
{
    size_t i = (size_t)slot[j->idx];
    if (slot[j->idx] < 0 || i >= l->n || l->jobs[i] != j)
        dike_fatal("jobsets: job %u is not in its set", j->idx);
    l->jobs[i] = l->jobs[--l->n];
    slot[l->jobs[i]->idx] = (int32_t)i;
    slot[j->idx] = -1;
}

static int u32_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

void dike_jobsets_init(dike_jobsets *js, const dike_workload *w)
{
    memset(js, 0, sizeof *js);
    js->sizes = dike_xmalloc((w->njobs + 1) * sizeof *js->sizes);
    for (size_t i = 0; i < w->njobs; i++)
        js->sizes[i] = w->jobs[i].num_gpus;
    qsort(js->sizes, w->njobs, sizeof *js->sizes, u32_cmp);
    for (size_t i = 0; i < w->njobs; i++)
        if (js->nsizes == 0 || js->sizes[js->nsizes - 1] != js->sizes[i])
            js->sizes[js->nsizes++] = js->sizes[i];
    js->queued = dike_xcalloc(js->nsizes + 1, sizeof *js->queued);
    js->slot = dike_xmalloc((w->njobs + 1) * sizeof *js->slot);
    memset(js->slot, 0xff, (w->njobs + 1) * sizeof *js->slot); /* -1: in no set */
}

void dike_jobsets_free(dike_jobsets *js)
{
    free(js->running.jobs);
    for (uint32_t b = 0; b < js->nsizes; b++)
        free(js->queued[b].jobs);
    free(js->queued);
    free(js->sizes);
    free(js->slot);
    memset(js, 0, sizeof *js);
}

static dike_jobset *bucket_of(dike_jobsets *js, const dike_job *j)
{
    uint32_t g = j->spec->num_gpus, lo = 0, hi = js->nsizes;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (js->sizes[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    if (js->nsizes == 0 || js->sizes[lo] != g)
        dike_fatal("jobsets: job %u has a gang size (%u) not in the workload", j->idx, g);
    return &js->queued[lo];
}

void dike_jobsets_add(dike_jobsets *js, dike_job *j)
{
    if (j->state == DIKE_JOB_RUNNING) {
        set_add(&js->running, js->slot, j);
    } else {
        set_add(bucket_of(js, j), js->slot, j);
        js->nqueued++;
    }
}

void dike_jobsets_remove(dike_jobsets *js, dike_job *j, int running)
{
    if (running) {
        set_remove(&js->running, js->slot, j);
    } else {
        set_remove(bucket_of(js, j), js->slot, j);
        js->nqueued--;
    }
}

void dike_jobsets_moved(dike_jobsets *js, dike_job *j, int started)
{
    dike_jobsets_remove(js, j, !started);
    dike_jobsets_add(js, j);
}
