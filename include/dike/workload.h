/* Workload: the immutable list of jobs to replay, from a trace or the synthetic generator. */
#ifndef DIKE_WORKLOAD_H
#define DIKE_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include "dike/base.h"
#include "dike/cluster.h"
#include "dike/config.h"

/** One job as submitted. Jobs are stored in submit order (ties: file order); the index in that order
 *  is the job's entity id in the event order. */
typedef struct dike_job_spec {
    int64_t id;         /**< job id from the trace (unique) */
    dike_time submit;   /**< submit time, us since the first submit */
    dike_time duration; /**< run time alone on its best placement of the reference GPU type, us (> 0) */
    uint32_t tenant;    /**< tenant index into dike_workload.tenants */
    uint32_t num_gpus;  /**< gang size (all or nothing), >= 1 */
    int16_t model;      /**< model class index into dike_workload.models, -1 = none */
    int16_t gpu_type;   /**< required GPU type (cluster type index), -1 = any */
    uint32_t line;      /**< source line in the trace (0 for synthetic jobs), for messages */
} dike_job_spec;

/** Classes of invalid trace rows (docs/trace-format.md). Each is an error by default; with
 *  workload.skip_invalid the row is dropped and counted under its class. */
enum dike_skip_rule {
    DIKE_SKIP_MALFORMED = 0,     /**< unreadable or out-of-range value, wrong number of fields */
    DIKE_SKIP_ZERO_DURATION = 1, /**< duration 0 (or below half a microsecond) */
    DIKE_SKIP_TOO_LARGE = 2,     /**< more GPUs than the cluster (the job's GPU-type pool) has */
    DIKE_SKIP_DUPLICATE = 3,     /**< job id seen before (the first row with it is kept) */
    DIKE_SKIP_UNSORTED = 4,      /**< dike format: submit time before the previous row's */
    DIKE_SKIP_NRULES = 5
};

/** A trace row that asks for more GPUs than the cluster has, kept as a job through the window
 *  (dike_workload.keep_too_large) and judged once the window is cut. */
typedef struct dike_too_large {
    size_t idx;  /**< its job's index in jobs[] (submit order once the read is done) */
    bool kept;   /**< inside the window (set by dike_workload_prepare) */
    char *msg;   /**< the message the read would have stopped with (owned) */
} dike_too_large;

typedef struct dike_workload {
    dike_job_spec *jobs;  /**< jobs in submit order */
    size_t njobs;         /**< number of jobs */
    size_t cap;           /**< allocated capacity of jobs */
    char **tenants;       /**< tenant names, index = tenant id, in order of first appearance */
    uint32_t ntenants;    /**< number of tenants */
    char **models;        /**< model class names, index = model id */
    uint32_t nmodels;     /**< number of model classes */
    char source[DIKE_STR_MAX]; /**< trace path (or the list / folder given), or "synthetic" */
    char sha256[65];      /**< hex sha256 of the trace file ("" for synthetic); several files: sha256
                               of their hex digests, one per line, in reading order */
    char format[32];      /**< trace format read ("" for synthetic) */
    size_t skipped;       /**< rows dropped by skip_invalid (sum of skips[]) */
    size_t skips[DIKE_SKIP_NRULES]; /**< rows dropped by skip_invalid, per enum dike_skip_rule */
    char *skip_msg[DIKE_SKIP_NRULES]; /**< message of the first dropped row per rule (owned), or NULL */
    size_t no_gpu_rows;   /**< rows without GPUs (CPU-only jobs), always dropped by the formats that have them */
    size_t fractional;    /**< fractional-GPU requests counted as one whole GPU */
    size_t window_dropped;/**< jobs outside workload.start_s/end_s/first_job/last_job */
    size_t models_assigned; /**< jobs given a model class by workload.model_assignment */
    double time_scale;    /**< factor applied to inter-arrival times (1 = as recorded) */
    dike_time time_offset;/**< trace time of the first submit (us), subtracted from all submits */
    int16_t *model_class; /**< per model: throughput-table class, -1 = none; NULL = not bound (owned) */
    int8_t type_class[DIKE_MAX_GPU_TYPES]; /**< per cluster GPU type: throughput-table type, -1 = none
                                                (valid when model_class is set) */
    bool keep_too_large;  /**< set before the read: rows larger than the cluster are kept as jobs
                               and judged after the window is cut (dike_workload_prepare), so that
                               a window (workload.first_job, ...) counts the trace's rows whatever
                               the cluster; off, the read stops at the first (or skip_invalid drops
                               it) */
    bool too_large_skip;  /**< the read's skip_invalid: the kept rows are dropped, not refused */
    dike_too_large *too_large; /**< those rows, in reading order (owned) */
    size_t ntoo_large, too_large_cap;
} dike_workload;

void dike_workload_init(dike_workload *w);
void dike_workload_free(dike_workload *w);
/** Renumber tenants and models in order of first appearance in jobs[], dropping names no job uses
 *  (after jobs were reordered or removed). Unbinds the throughput table. */
void dike_workload_renumber_names(dike_workload *w);
/** Append a job (grows the array). */
dike_job_spec *dike_workload_push(dike_workload *w);
/** Intern a tenant / model name, returning its index. */
uint32_t dike_workload_tenant(dike_workload *w, const char *name);
int16_t dike_workload_model(dike_workload *w, const char *name);

/** Read the project's CSV trace (SPEC §7): header `job_id,tenant,submit_time,num_gpus,duration`
 *  with optional `model` and `gpu_type` columns; seconds. Validates against @p cl. */
int dike_trace_read_dike(const char *path, const dike_cluster *cl, bool skip_invalid,
                         dike_workload *w, dike_err *e);

/** Read a trace in format @p format ("auto": detected from the header; names: dike_trace_formats).
 *  @p spec is one file, a comma-separated list of files, or a folder (its *.csv files in name
 *  order); several files merge into one workload in submit order (ties: file order, then row
 *  order). Rows are validated against @p cl; @p w must be freshly initialised and is left empty on
 *  error. Simulated time starts at the first submit (w->time_offset). */
int dike_trace_read(const char *spec, const char *format, const dike_cluster *cl, bool skip_invalid,
                    dike_workload *w, dike_err *e);
/** Format of the trace file @p path from its header, into @p name (size @p n). */
int dike_trace_detect(const char *path, char *name, size_t n, dike_err *e);
/** NULL-terminated names of the trace formats, in registry order. */
const char *const *dike_trace_formats(void);
/** One-line description and tenant rule of format @p name, or NULL if unknown. */
const char *dike_trace_format_summary(const char *name);
/** Short name of a skip rule ("zero-duration", ...). */
const char *dike_skip_rule_name(int rule);

/** "skipped N rows of SOURCE: a zero-duration, b larger than the cluster" into @p buf, plus the
 *  rows without GPUs and the fractional requests when there are any; "" when there is nothing to
 *  say. Returns the length written. */
size_t dike_workload_report(const dike_workload *w, char *buf, size_t n);

/** Seeded synthetic workload from the [workload] keys of @p c. */
int dike_synth_generate(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e);

/** Build the workload the config asks for (trace or synthetic): read, cut the window
 *  (workload.start_s/end_s/first_job/last_job), scale inter-arrival times (workload.time_scale or
 *  workload.trace_load), assign model classes (workload.model_assignment) and bind the throughput
 *  table (cluster.throughput). Rows dropped by skip_invalid are reported on stderr in one line. */
int dike_workload_load(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e);

/** Does @p c cut a window of the trace (workload.first_job, last_job, start_s or end_s)? */
bool dike_workload_windowed(const dike_config *c);

/** Read the trace of @p c (dike_trace_read) so that dike_workload_prepare cuts its window as a run
 *  does: with a window, rows larger than @p cl are kept through it (keep_too_large). */
int dike_workload_read_trace(const dike_config *c, const dike_cluster *cl, bool skip_invalid,
                             dike_workload *w, dike_err *e);

/** The trace-side steps of dike_workload_load on a workload already read: window, time scaling
 *  (offered load measured against @p cl), model assignment. */
int dike_workload_prepare(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e);

/** Offered load of @p w on @p total_gpus GPUs: sum(num_gpus x duration) / (total_gpus x span),
 *  span = last submit - first submit; 0 when the span is 0. */
double dike_workload_offered_load(const dike_workload *w, uint64_t total_gpus);

/** Hex sha256 of a file into out[65]. */
int dike_sha256_file(const char *path, char out[65], dike_err *e);

#endif
