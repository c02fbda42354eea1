/* The coordinator's results at the end of a run: /jobs, /tenants, /decide, /job_nodes, the
 * timeseries and the summary, and the decision-latency columns of rank 0's /perf row. */
#include "engine/coord.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dike/metrics.h"

/* /decide: one row per octave of active jobs that has timed decision steps. */
static void decide_rows(const dike_sched *s, dike_results *r)
{
    r->decide = dike_xcalloc(DIKE_LAT_OCTAVES, sizeof *r->decide);
    r->ndecide = 0;
    for (int k = 0; k < DIKE_LAT_OCTAVES; k++) {
        const dike_latency *l = &s->decide_by_active[k];
        if (!l->count)
            continue;
        dike_decide_record *o = &r->decide[r->ndecide++];
        o->active_lo = dike_lat_octave_lo(k);
        o->active_hi = dike_lat_octave_lo(k + 1) - 1;
        o->active_mean = l->active_sum / (double)l->count;
        o->timed = l->count;
        o->mean_us = dike_lat_mean(l) / 1e3;
        o->p50_us = dike_lat_quantile(l, 0.50) / 1e3;
        o->p99_us = dike_lat_quantile(l, 0.99) / 1e3;
        o->max_us = (double)l->max_ns / 1e3;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* /job_nodes: the distinct nodes of each job's last placement, ascending. */
static void job_nodes(const dike_sched *s, dike_results *r)
{
    size_t n = s->w->njobs;
    uint64_t total = 0;
    r->node_off = dike_xcalloc(n + 1, sizeof *r->node_off);
    for (size_t i = 0; i < n; i++)
        total += s->jobs[i].placed_n;
    r->node_ids = dike_xcalloc(total ? total : 1, sizeof *r->node_ids);
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const dike_job *j = &s->jobs[i];
        uint64_t first = k;
        for (uint32_t m = 0; m < j->placed_n; m++)
            r->node_ids[k++] = j->slices[m].node;
        qsort(r->node_ids + first, k - first, sizeof *r->node_ids, cmp_u32);
        uint64_t u = first; /* a node holds one slice of a gang, but stay safe: drop repeats */
        for (uint64_t m = first; m < k; m++)
            if (m == first || r->node_ids[m] != r->node_ids[u - 1])
                r->node_ids[u++] = r->node_ids[m];
        k = u;
        r->node_off[i + 1] = k;
    }
}

void dike_coord_perf_decide(const dike_sched *s, dike_perf_record *perf)
{
    const dike_latency *lat = &s->decide_lat;
    perf->decide_timed = lat->count;
    perf->decide_mean_us = dike_lat_mean(lat) / 1e3;
    perf->decide_p50_us = dike_lat_quantile(lat, 0.50) / 1e3;
    perf->decide_p99_us = dike_lat_quantile(lat, 0.99) / 1e3;
    perf->decide_max_us = (double)lat->max_ns / 1e3;
    perf->active_mean = lat->count ? lat->active_sum / (double)lat->count : 0;
    perf->active_max = lat->active_max;
    perf->decide_max_active = lat->active_at_max;
}

void dike_coord_results(dike_sched *s, dike_results *r)
{
    const dike_workload *w = s->w;
    r->njobs = w->njobs;
    r->jobs = dike_xcalloc(w->njobs, sizeof *r->jobs);
    double alloc_gpu_s = 0, eff_gpu_s = 0;
    for (size_t i = 0; i < w->njobs; i++) {
        const dike_job *j = &s->jobs[i];
        dike_job_record *o = &r->jobs[i];
        o->job_id = j->spec->id;
        o->tenant = j->spec->tenant;
        o->num_gpus = j->spec->num_gpus;
        o->submit_time = dike_time_to_s(j->spec->submit);
        o->duration = dike_time_to_s(j->spec->duration);
        o->start_time = j->first_start >= 0 ? dike_time_to_s(j->first_start) : -1;
        o->preemptions = j->preemptions;
        o->migrations = j->migrations;
        o->restarts = j->restarts;
        o->lost_work = j->lost_gpu_s;
        o->run_time = j->held_us / 1e6;
        alloc_gpu_s += o->run_time * j->spec->num_gpus;
        eff_gpu_s += j->rate_gpu_us / 1e6;
        if (j->type >= 0) /* names are shorter than the field (parse.c); calloc'ed: ends in 0s */
            memcpy(o->gpu_type, s->cl->types[j->type].name,
                   strnlen(s->cl->types[j->type].name, sizeof o->gpu_type - 1));
        if (j->state == DIKE_JOB_DONE) {
            o->finish_time = dike_time_to_s(j->finish);
            o->jct = dike_time_to_s(j->finish - j->spec->submit);
            o->queue_delay = dike_time_to_s(j->first_start - j->spec->submit);
            o->t_ideal = dike_t_ideal(o->duration, o->num_gpus, j->navg, s->cl->total_gpus);
            o->rho = o->jct / o->t_ideal;
        } else {
            o->finish_time = o->jct = o->t_ideal = o->rho = -1;
            o->queue_delay = j->first_start >= 0 ? o->start_time - o->submit_time : -1;
        }
    }
    job_nodes(s, r);
    r->ntenants = w->ntenants;
    r->tenants = dike_xcalloc(w->ntenants + 1, sizeof *r->tenants);
    for (uint32_t t = 0; t < w->ntenants; t++) {
        r->tenants[t].tenant = t;
        snprintf(r->tenants[t].name, sizeof r->tenants[t].name, "%s", w->tenants[t]);
        r->tenants[t].weight = s->tenant_weight[t];
        r->tenants[t].gpu_seconds = s->tenant_gpu_s[t];
    }
    for (size_t i = 0; i < w->njobs; i++)
        r->tenants[w->jobs[i].tenant].jobs++;
    dike_summarize(r->jobs, r->njobs, r->tenants, r->ntenants, s->cl->total_gpus, alloc_gpu_s,
                   eff_gpu_s, &r->summary);
    dike_coord_close_entitlements(s);
    double wsum = 0, gsum = 0, esum = 0, span = r->summary.makespan;
    for (uint32_t t = 0; t < w->ntenants; t++) {
        wsum += s->tenant_weight[t];
        gsum += s->tenant_gpu_s[t];
        esum += s->ent_gpu_s[t];
    }
    for (uint32_t t = 0; t < w->ntenants; t++) {
        dike_tenant_record *tr = &r->tenants[t];
        tr->weight_share = wsum > 0 ? tr->weight / wsum : 0;
        tr->avg_gpus = span > 0 ? tr->gpu_seconds / span : 0;
        tr->entitlement = span > 0 ? s->ent_gpu_s[t] / span : 0;
        tr->gpu_share = gsum > 0 ? tr->gpu_seconds / gsum : 0;
        tr->entitled_share = esum > 0 ? s->ent_gpu_s[t] / esum : 0;
    }
    r->ts = s->ts; /* ownership moves to the results */
    memset(&s->ts, 0, sizeof s->ts);
    decide_rows(s, r);
}
