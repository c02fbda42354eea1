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

typedef struct dike_workload {
    dike_job_spec *jobs;  /**< jobs in submit order */
    size_t njobs;         /**< number of jobs */
    size_t cap;           /**< allocated capacity of jobs */
    char **tenants;       /**< tenant names, index = tenant id, in order of first appearance */
    uint32_t ntenants;    /**< number of tenants */
    char **models;        /**< model class names, index = model id */
    uint32_t nmodels;     /**< number of model classes */
    char source[DIKE_STR_MAX]; /**< trace path, or "synthetic" */
    char sha256[65];      /**< hex sha256 of the trace file ("" for synthetic) */
    size_t skipped;       /**< rows dropped by skip_invalid */
    dike_time time_offset;/**< trace time of the first submit (us), subtracted from all submits */
} dike_workload;

void dike_workload_init(dike_workload *w);
void dike_workload_free(dike_workload *w);
/** Append a job (grows the array). */
dike_job_spec *dike_workload_push(dike_workload *w);
/** Intern a tenant / model name, returning its index. */
uint32_t dike_workload_tenant(dike_workload *w, const char *name);
int16_t dike_workload_model(dike_workload *w, const char *name);

/** Read the project's CSV trace (SPEC §7): header `job_id,tenant,submit_time,num_gpus,duration`
 *  with optional `model` and `gpu_type` columns; seconds. Validates against @p cl. */
int dike_trace_read_dike(const char *path, const dike_cluster *cl, bool skip_invalid,
                         dike_workload *w, dike_err *e);

/** Seeded synthetic workload from the [workload] keys of @p c. */
int dike_synth_generate(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e);

/** Build the workload the config asks for (trace or synthetic). */
int dike_workload_load(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e);

/** Hex sha256 of a file into out[65]. */
int dike_sha256_file(const char *path, char out[65], dike_err *e);

#endif
