/* Metric definitions of SPEC §6, in one place so the emulator, tests and docs agree. */
#ifndef DIKE_METRICS_H
#define DIKE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dike/results.h"

/** Themis ideal time: duration x max(1, num_gpus x navg / G), seconds. */
double dike_t_ideal(double duration_s, uint32_t num_gpus, double navg, uint64_t total_gpus);
/** Jain's index (sum x)^2 / (n sum x^2); 1 for n == 0 or all-zero x. */
double dike_jain(const double *x, size_t n);
/** Quantile q in [0,1] of sorted data, linear interpolation (GSL, R type 7). */
double dike_quantile_sorted(const double *sorted, size_t n, double q);
/** The same quantile of unsorted data, by selection (O(n) on average instead of a sort); the
 *  data's order changes. Equal, bit for bit, to dike_quantile_sorted on the sorted data. */
double dike_quantile_select(double *data, size_t n, double q);

/** Fill tenants[].finished, avg_jct, mean_rho, fairness_ratio from the job rows (tenants[].tenant,
 *  name, weight, jobs and gpu_seconds are the caller's), then the whole summary. */
void dike_summarize(const dike_job_record *jobs, size_t njobs, dike_tenant_record *tenants,
                    size_t ntenants, uint64_t total_gpus, double allocated_gpu_s,
                    double effective_gpu_s, dike_summary *out);

/* ---- metrics over a window (config key metrics.window; docs/output-schema.md, /summary/window) ---- */

/** Which jobs a window counts. */
typedef enum dike_window_kind {
    DIKE_WINDOW_NONE = 0, /**< no window: the whole run only */
    DIKE_WINDOW_JOBS,     /**< jobs whose job_id is in [first_id, last_id] */
    DIKE_WINDOW_TIME      /**< jobs submitted in [t0, t1) */
} dike_window_kind;

/** A parsed metrics.window value. */
typedef struct dike_window {
    dike_window_kind kind;
    int64_t first_id, last_id; /**< JOBS: job ids, both inclusive */
    double t0, t1;             /**< TIME: submit times, s since the first submit, [t0, t1) */
} dike_window;

/** What a window covered, written beside its metrics. */
typedef struct dike_window_info {
    double span_start, span_end;    /**< s: the time span of utilisation (see window.c) */
    double apportioned_gpu_seconds; /**< GPU*s of the window's allocated GPU-seconds that /jobs
                                         does not give exactly (0 = utilization is exact) */
} dike_window_info;

/** Parse "" (no window), "jobs:FIRST-LAST" or "time:T0-T1" (s). 0, or DIKE_EINVAL with a reason
 *  (no key prefix) in why[n]. */
int dike_window_parse(const char *text, dike_window *w, char *why, size_t n);

/** Every summary metric over the jobs window @p w counts, and utilisation over its time span;
 *  @p tenants (the whole run's rows, ntenants of them) are copied into @p win_tenants (ntenants
 *  rows, the caller's) with jobs, finished, avg_jct, mean_rho, fairness_ratio over the window's
 *  jobs and gpu_seconds, avg_gpus, gpu_share over its span (NULL: not wanted). @p total_gpus is
 *  the cluster's G; @p ts (the run's /timeseries, or NULL) settles the GPU-seconds that /jobs
 *  alone does not give exactly. */
void dike_summarize_window(const dike_job_record *jobs, size_t njobs,
                           const dike_tenant_record *tenants, size_t ntenants, uint64_t total_gpus,
                           const dike_timeseries *ts, const dike_window *w, dike_summary *out,
                           dike_window_info *info, dike_tenant_record *win_tenants);

#endif
