/* dike-emu trace-info: the statistics a user checks before a campaign, and their report. */
#include "cli/trace_info.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dike/metrics.h"

/* ---- statistics ---- */

typedef struct demand_ev {
    dike_time t;
    int64_t delta; /**< GPUs: +g at submit, -g at submit + duration */
} demand_ev;

static int cmp_ev(const void *pa, const void *pb)
{
    const demand_ev *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->delta > b->delta) - (a->delta < b->delta); /* ends before starts: [submit, end) */
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

void dike_trace_stats_compute(const dike_workload *w, uint64_t total_gpus, dike_trace_stats *st)
{
    memset(st, 0, sizeof *st);
    const size_t n = w->njobs;
    st->jobs = n;
    st->tenants = w->ntenants;
    st->total_gpus = total_gpus;
    st->tenant_jobs = dike_xcalloc(w->ntenants + 1, sizeof *st->tenant_jobs);
    st->tenant_gpu_seconds = dike_xcalloc(w->ntenants + 1, sizeof *st->tenant_gpu_seconds);
    if (!n)
        return;
    double *dur = dike_xmalloc(n * sizeof *dur);
    demand_ev *ev = dike_xmalloc(2 * n * sizeof *ev);
    double gpus_sum = 0;
    for (size_t i = 0; i < n; i++) {
        const dike_job_spec *j = &w->jobs[i];
        double d = dike_time_to_s(j->duration), gs = j->num_gpus * d;
        dur[i] = d;
        st->gpu_seconds += gs;
        gpus_sum += j->num_gpus;
        if (j->num_gpus > st->gpus_max)
            st->gpus_max = j->num_gpus;
        int b = 0;
        while (b + 1 < DIKE_STATS_BINS && ((uint64_t)1 << b) < j->num_gpus)
            b++;
        st->hist_jobs[b]++;
        st->hist_gpu_seconds[b] += gs;
        st->tenant_jobs[j->tenant]++;
        st->tenant_gpu_seconds[j->tenant] += gs;
        ev[2 * i] = (demand_ev){j->submit, (int64_t)j->num_gpus};
        ev[2 * i + 1] = (demand_ev){j->submit + j->duration, -(int64_t)j->num_gpus};
    }
    const dike_time t_first = w->jobs[0].submit, t_last = w->jobs[n - 1].submit;
    st->span_s = dike_time_to_s(t_last - t_first);
    st->gpus_mean = gpus_sum / (double)n;
    qsort(dur, n, sizeof *dur, cmp_double);
    double dsum = 0;
    for (size_t i = 0; i < n; i++)
        dsum += dur[i];
    st->dur_mean_s = dsum / (double)n;
    st->dur_p50_s = dike_quantile_sorted(dur, n, 0.5);
    st->dur_p99_s = dike_quantile_sorted(dur, n, 0.99);
    st->dur_max_s = dur[n - 1];

    /* Demand curve: every job holding its GPUs from its submit for its duration. */
    qsort(ev, 2 * n, sizeof *ev, cmp_ev);
    int64_t cur = 0, peak = -1;
    double area = 0; /* GPU-us over [t_first, t_last] */
    dike_time prev = t_first;
    for (size_t i = 0; i < 2 * n; i++) {
        if (ev[i].t > prev && prev < t_last) {
            dike_time upto = ev[i].t < t_last ? ev[i].t : t_last;
            area += (double)cur * (double)(upto - prev);
        }
        if (ev[i].t > prev)
            prev = ev[i].t;
        cur += ev[i].delta;
        /* the peak at a time counts only once every event of that time has been applied */
        if ((i + 1 == 2 * n || ev[i + 1].t != ev[i].t) && cur > peak) {
            peak = cur;
            st->peak_demand_t_s = dike_time_to_s(ev[i].t - t_first);
        }
    }
    st->peak_demand = (double)peak;
    st->mean_demand = t_last > t_first ? area / (double)(t_last - t_first) : 0;
    st->offered_load = dike_workload_offered_load(w, total_gpus);
    free(dur);
    free(ev);
}

void dike_trace_stats_free(dike_trace_stats *st)
{
    free(st->tenant_jobs);
    free(st->tenant_gpu_seconds);
    memset(st, 0, sizeof *st);
}

/* ---- the report ---- */

/* @p v with thousands separators ("3,620,123"). */
static const char *thousands(double v, char *buf, size_t n)
{
    char digits[64];
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    size_t len = strlen(digits), k = 0;
    if (v < 0 && k < n - 1)
        buf[k++] = '-';
    for (size_t i = 0; i < len && k < n - 1; i++) {
        if (i && (len - i) % 3 == 0 && k < n - 1)
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

static void span_text(double s, char *buf, size_t n)
{
    char t[64];
    if (s >= 2 * 86400)
        snprintf(buf, n, "%.2f days (%s s)", s / 86400, thousands(s, t, sizeof t));
    else if (s >= 2 * 3600)
        snprintf(buf, n, "%.2f hours (%s s)", s / 3600, thousands(s, t, sizeof t));
    else
        snprintf(buf, n, "%.0f s", s);
}

static void print_cluster(const dike_cluster *cl)
{
    char t[64];
    if (cl->node_gpus || cl->ntypes > 1) {
        printf("  %-24s %u nodes, %s GPUs:", "cluster", cl->nodes, thousands((double)cl->total_gpus, t, sizeof t));
        for (uint32_t i = 0; i < cl->ntypes; i++)
            printf("%s %s %llu", i ? "," : "", cl->types[i].name, (unsigned long long)cl->types[i].gpus);
        printf("\n");
    } else {
        printf("  %-24s %u nodes x %u GPUs = %s GPUs (%s)\n", "cluster", cl->nodes, cl->gpus_per_node,
               thousands((double)cl->total_gpus, t, sizeof t), cl->types[0].name);
    }
}

typedef struct tenant_row {
    uint32_t t;
    double gpu_s;
} tenant_row;

static int cmp_tenant(const void *pa, const void *pb)
{
    const tenant_row *a = pa, *b = pb;
    if (a->gpu_s != b->gpu_s)
        return a->gpu_s > b->gpu_s ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

/* Where the trace came from and what reading it dropped. */
static void print_source(const dike_config *cfg, const dike_cluster *cl, const dike_workload *w,
                         double read_s)
{
    char a[64], b[64];
    size_t rows = w->njobs + w->skipped + w->no_gpu_rows + w->window_dropped;
    printf("trace-info: %s\n", w->source);
    printf("  %-24s %s%s\n", "format", w->format,
           strcmp(cfg->workload_trace_format, "auto") == 0 ? " (detected from the header)" : "");
    printf("  %-24s %s\n", "sha256", w->sha256);
    print_cluster(cl);
    printf("  %-24s %s rows in %.3f s\n", "read", thousands((double)rows, a, sizeof a), read_s);
    printf("\n");
    printf("  %-24s %s\n", "jobs", thousands((double)w->njobs, a, sizeof a));
    if (w->skipped) {
        printf("  %-24s %s:", "invalid rows (dropped)", thousands((double)w->skipped, a, sizeof a));
        const char *sep = " ";
        for (int r = 0; r < DIKE_SKIP_NRULES; r++)
            if (w->skips[r]) {
                printf("%s%zu %s", sep, w->skips[r], dike_skip_rule_name(r));
                sep = ", ";
            }
        printf("; `run` stops at the first unless --skip-invalid\n");
        for (int r = 0; r < DIKE_SKIP_NRULES; r++)
            if (w->skip_msg[r])
                printf("  %-24s %s\n", "", w->skip_msg[r]);
    }
    if (w->no_gpu_rows)
        printf("  %-24s %s (CPU-only jobs, always dropped)\n", "rows without GPUs",
               thousands((double)w->no_gpu_rows, a, sizeof a));
    if (w->fractional)
        printf("  %-24s %s (each counted as one whole GPU)\n", "fractional-GPU requests",
               thousands((double)w->fractional, a, sizeof a));
    if (w->window_dropped) {
        /* rows larger than the cluster are judged inside the window, after it (keep_too_large):
         * those dropped there were in it */
        size_t in = w->njobs + (w->keep_too_large ? w->skips[DIKE_SKIP_TOO_LARGE] : 0);
        printf("  %-24s kept %s of %s jobs\n", "window", thousands((double)in, a, sizeof a),
               thousands((double)(in + w->window_dropped), b, sizeof b));
    }
    if (w->time_scale != 1)
        printf("  %-24s inter-arrival times x %.6g\n", "time scale", w->time_scale);
}

/* Jobs, GPUs, durations, demand and offered load. */
static void print_stats(const dike_workload *w, const dike_trace_stats *st)
{
    char a[64], b[64], c[64], d[64], text[256];
    span_text(st->span_s, text, sizeof text);
    printf("  %-24s %s, first to last submit\n", "span", text);
    printf("  %-24s %u\n", "tenants", st->tenants);
    if (w->nmodels)
        printf("  %-24s %u%s\n", "model classes", w->nmodels,
               w->models_assigned ? " (assigned by workload.model_assignment)" : "");
    printf("  %-24s mean %.2f, max %u\n", "GPUs per job", st->gpus_mean, st->gpus_max);
    printf("  %-24s mean %s s, median %s s, p99 %s s, max %s s\n", "duration",
           thousands(st->dur_mean_s, a, sizeof a), thousands(st->dur_p50_s, b, sizeof b),
           thousands(st->dur_p99_s, c, sizeof c), thousands(st->dur_max_s, d, sizeof d));
    printf("  %-24s %s\n", "GPU-hours", thousands(st->gpu_seconds / 3600, a, sizeof a));
    if (st->peak_demand_t_s >= 2 * 86400)
        snprintf(text, sizeof text, "day %.2f", st->peak_demand_t_s / 86400);
    else if (st->peak_demand_t_s >= 2 * 3600)
        snprintf(text, sizeof text, "hour %.2f", st->peak_demand_t_s / 3600);
    else
        snprintf(text, sizeof text, "%.0f s", st->peak_demand_t_s);
    if (st->mean_demand < 100)
        snprintf(b, sizeof b, "%.2f", st->mean_demand);
    else
        thousands(st->mean_demand, b, sizeof b);
    printf("  %-24s peak %s GPUs (at %s), mean %s GPUs over the span\n", "concurrent demand",
           thousands(st->peak_demand, a, sizeof a), text, b);
    if (st->span_s > 0)
        printf("  %-24s %.4f on %s GPUs (GPU-seconds demanded / (GPUs x span))\n", "offered load",
               st->offered_load, thousands((double)st->total_gpus, a, sizeof a));
    else
        printf("  %-24s n/a (every job submitted at once)\n", "offered load");
}

/* Jobs and GPU-hours per GPU-count bin. */
static void print_histogram(const dike_trace_stats *st)
{
    char a[64], b[64], text[64];
    printf("\n  %-12s %12s %7s %14s %7s\n", "GPUs per job", "jobs", "jobs %", "GPU-hours", "GPU-h %");
    for (int bin = 0; bin < DIKE_STATS_BINS; bin++) {
        if (!st->hist_jobs[bin])
            continue;
        unsigned long long lo = bin ? (1ull << (bin - 1)) + 1 : 1, hi = 1ull << bin;
        if (lo == hi)
            snprintf(text, sizeof text, "%llu", hi);
        else
            snprintf(text, sizeof text, "%llu-%llu", lo, hi);
        printf("  %-12s %12s %7.2f %14s %7.2f\n", text, thousands((double)st->hist_jobs[bin], a, sizeof a),
               100.0 * (double)st->hist_jobs[bin] / (double)st->jobs,
               thousands(st->hist_gpu_seconds[bin] / 3600, b, sizeof b),
               st->gpu_seconds > 0 ? 100.0 * st->hist_gpu_seconds[bin] / st->gpu_seconds : 0.0);
    }
}

/* The tenants with the most GPU-hours. */
static void print_tenants(const dike_workload *w, const dike_trace_stats *st)
{
    char a[64], b[64];
    enum { TOP = 10 };
    tenant_row *tr = dike_xmalloc((st->tenants + 1) * sizeof *tr);
    for (uint32_t t = 0; t < st->tenants; t++)
        tr[t] = (tenant_row){t, st->tenant_gpu_seconds[t]};
    qsort(tr, st->tenants, sizeof *tr, cmp_tenant);
    printf("\n  %-24s %10s %14s %7s\n", st->tenants > TOP ? "tenant (top 10 by GPU-h)" : "tenant", "jobs",
           "GPU-hours", "GPU-h %");
    for (uint32_t k = 0; k < st->tenants && k < TOP; k++) {
        uint32_t t = tr[k].t;
        printf("  %-24s %10s %14s %7.2f\n", w->tenants[t], thousands((double)st->tenant_jobs[t], a, sizeof a),
               thousands(st->tenant_gpu_seconds[t] / 3600, b, sizeof b),
               st->gpu_seconds > 0 ? 100.0 * st->tenant_gpu_seconds[t] / st->gpu_seconds : 0.0);
    }
    if (st->tenants > TOP)
        printf("  %-24s %u more\n", "...", st->tenants - TOP);
    free(tr);
}

void dike_print_trace_info(const dike_config *cfg, const dike_cluster *cl, const dike_workload *w,
                            double read_s)
{
    dike_trace_stats st;
    dike_trace_stats_compute(w, cl->total_gpus, &st);
    print_source(cfg, cl, w, read_s);
    print_stats(w, &st);
    print_histogram(&st);
    print_tenants(w, &st);
    dike_trace_stats_free(&st);
}
