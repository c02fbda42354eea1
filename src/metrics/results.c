/* In-memory results of a run: the growable /timeseries buffers and the one free function.
 * The HDF5 writer is in src/io/h5out.c. */
#include "dike/results.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DIKE_TS_MIN_CAP 64

void dike_timeseries_init(dike_timeseries *ts, uint32_t ntenants)
{
    memset(ts, 0, sizeof *ts);
    ts->ntenants = ntenants;
}

/* Doubling keeps push amortised O(1); a sampled run can have millions of rows. */
static void ts_grow(dike_timeseries *ts)
{
    size_t cap = ts->cap ? ts->cap : DIKE_TS_MIN_CAP / 2;
    if (cap > SIZE_MAX / 2)
        dike_fatal("timeseries: too many samples (%zu)", ts->n);
    cap *= 2;
    if (ts->max && cap > ts->max) /* the last growth is to the bound, not past it */
        cap = ts->max > ts->n ? ts->max : ts->n + 1;
    size_t per = ts->ntenants ? ts->ntenants : 1;
    if (cap > SIZE_MAX / sizeof(double) || cap > SIZE_MAX / sizeof(uint32_t) / per)
        dike_fatal("timeseries: %zu samples x %u tenants overflow size_t", cap, ts->ntenants);
    ts->time = dike_xrealloc(ts->time, cap * sizeof *ts->time);
    ts->busy_gpus = dike_xrealloc(ts->busy_gpus, cap * sizeof *ts->busy_gpus);
    ts->queued = dike_xrealloc(ts->queued, cap * sizeof *ts->queued);
    ts->running = dike_xrealloc(ts->running, cap * sizeof *ts->running);
    ts->tenant_gpus = dike_xrealloc(ts->tenant_gpus, cap * (size_t)ts->ntenants * sizeof *ts->tenant_gpus);
    ts->cap = cap;
}

uint32_t *dike_timeseries_push(dike_timeseries *ts, double t, uint32_t busy, uint32_t queued,
                               uint32_t running)
{
    return dike_timeseries_push_row(ts, t, busy, queued, running, NULL);
}

uint32_t *dike_timeseries_push_row(dike_timeseries *ts, double t, uint32_t busy, uint32_t queued,
                                   uint32_t running, const uint32_t *tenant_gpus)
{
    if (ts->n == ts->cap)
        ts_grow(ts);
    size_t i = ts->n++;
    ts->time[i] = t;
    ts->busy_gpus[i] = busy;
    ts->queued[i] = queued;
    ts->running[i] = running;
    /* The given row, or zeros the caller may fill (a tenant it skips reads as 0 GPUs). */
    uint32_t *slots = ts->tenant_gpus + i * ts->ntenants;
    if (ts->ntenants && tenant_gpus)
        memcpy(slots, tenant_gpus, (size_t)ts->ntenants * sizeof *slots);
    else if (ts->ntenants)
        memset(slots, 0, (size_t)ts->ntenants * sizeof *slots);
    return slots;
}

void dike_timeseries_free(dike_timeseries *ts)
{
    if (!ts)
        return;
    free(ts->time);
    free(ts->busy_gpus);
    free(ts->queued);
    free(ts->running);
    free(ts->tenant_gpus);
    uint32_t ntenants = ts->ntenants;
    size_t max = ts->max;
    memset(ts, 0, sizeof *ts);
    ts->ntenants = ntenants;
    ts->max = max;
}

void dike_results_free(dike_results *r)
{
    if (!r)
        return;
    free(r->jobs);
    free(r->tenants);
    dike_timeseries_free(&r->ts);
    free(r->meta.config_text);
    free(r->perf);
    free(r->decide);
    free(r->node_off);
    free(r->node_ids);
    free(r->window_bound);
    memset(r, 0, sizeof *r);
}
