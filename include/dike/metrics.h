/* Metric definitions of SPEC §6, in one place so the emulator, tests and docs agree. */
#ifndef DIKE_METRICS_H
#define DIKE_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include "dike/results.h"

/** Themis ideal time: duration x max(1, num_gpus x navg / G), seconds. */
double dike_t_ideal(double duration_s, uint32_t num_gpus, double navg, uint64_t total_gpus);
/** Jain's index (sum x)^2 / (n sum x^2); 1 for n == 0 or all-zero x. */
double dike_jain(const double *x, size_t n);
/** Quantile q in [0,1] of sorted data, linear interpolation (GSL, R type 7). */
double dike_quantile_sorted(const double *sorted, size_t n, double q);

/** Fill tenants[].finished, avg_jct, mean_rho, fairness_ratio from the job rows (tenants[].tenant,
 *  name, weight, jobs and gpu_seconds are the caller's), then the whole summary. */
void dike_summarize(const dike_job_record *jobs, size_t njobs, dike_tenant_record *tenants,
                    size_t ntenants, uint64_t total_gpus, double allocated_gpu_s,
                    double effective_gpu_s, dike_summary *out);

#endif
