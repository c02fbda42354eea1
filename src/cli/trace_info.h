/* Internal (cli layer): what `dike-emu trace-info` computes and prints (also used by `run
 * --dry-run`'s plan). */
#ifndef DIKE_CLI_TRACE_INFO_H
#define DIKE_CLI_TRACE_INFO_H

#include <stddef.h>
#include <stdint.h>
#include "dike/cluster.h"
#include "dike/config.h"
#include "dike/workload.h"

/** GPU-count histogram bins: bin 0 = 1 GPU, bin b = (2^(b-1), 2^b] GPUs. */
#define DIKE_STATS_BINS 33

/** What `dike-emu trace-info` prints: the statistics a user checks before a campaign. */
typedef struct dike_trace_stats {
    size_t jobs;              /**< jobs */
    uint32_t tenants;         /**< tenants */
    double span_s;            /**< last submit - first submit, s */
    double gpu_seconds;       /**< sum of num_gpus x duration, GPU-s */
    double gpus_mean;         /**< mean GPUs per job */
    uint32_t gpus_max;        /**< largest gang */
    double dur_mean_s, dur_p50_s, dur_p99_s, dur_max_s; /**< durations, s */
    double peak_demand;       /**< GPUs: max over time of the GPUs of jobs with submit <= t <
                                   submit + duration (each job running from its submit) */
    double peak_demand_t_s;   /**< first time the peak is reached, s since the first submit */
    double mean_demand;       /**< time average of that demand over [first, last submit], GPUs */
    double offered_load;      /**< dike_workload_offered_load on the cluster */
    uint64_t total_gpus;      /**< GPUs of the cluster the load is measured against */
    uint64_t hist_jobs[DIKE_STATS_BINS];     /**< jobs per GPU-count bin */
    double hist_gpu_seconds[DIKE_STATS_BINS];/**< GPU-s per GPU-count bin */
    uint64_t *tenant_jobs;    /**< per tenant: jobs (owned, ntenants entries) */
    double *tenant_gpu_seconds; /**< per tenant: GPU-s (owned) */
} dike_trace_stats;

/** Compute @p st for @p w against a cluster of @p total_gpus GPUs. Free with dike_trace_stats_free. */
void dike_trace_stats_compute(const dike_workload *w, uint64_t total_gpus, dike_trace_stats *st);
void dike_trace_stats_free(dike_trace_stats *st);

/** The trace-info report of @p w (read in @p read_s seconds) on @p cl, to stdout. */
void dike_print_trace_info(const dike_config *cfg, const dike_cluster *cl, const dike_workload *w,
                            double read_s);

#endif
