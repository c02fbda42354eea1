/* ElasticFlow's raw Microsoft ITP traces (elasticflow): one file per cluster,
 *
 *     job_id,submission_time,duration,num_gpu
 *     965d744f-0445-c1a8-12af-97e4c536c66e,1932025,2429,64
 *
 * job_id is a UUID (checked for duplicates, across every file read), submission_time is seconds on
 * a clock shared by all ten files, duration is seconds. There is no tenant column: the tenant is
 * the file's name ("cluster01"), so reading several files merges them into one multi-tenant
 * workload. Jobs are numbered by their position in the merged trace. */
#include "io/trace.h"

enum { C_JOB_ID, C_SUBMIT, C_DURATION, C_GPUS, NCOLS };

static const dike_trace_col cols[NCOLS] = {
    [C_JOB_ID] = {"job_id", true},
    [C_SUBMIT] = {"submission_time", true},
    [C_DURATION] = {"duration", true},
    [C_GPUS] = {"num_gpu", true},
};

static int row(dike_trace_file *f, dike_trace_row *r, dike_err *e)
{
    int rc;
    if ((rc = dike_trace_name(f, e, C_JOB_ID)))
        return rc;
    r->key = f->col[C_JOB_ID];
    if ((rc = dike_trace_submit_col(f, e, C_SUBMIT, &r->submit)))
        return rc;
    if ((rc = dike_trace_duration_col(f, e, C_DURATION, &r->duration)))
        return rc;
    return dike_trace_gpus_col(f, e, C_GPUS, -1, &r->gpus);
}

const dike_trace_format dike_trace_fmt_elasticflow = {
    .name = "elasticflow",
    .summary = "ElasticFlow's Microsoft ITP traces, one file per cluster; tenant = file name",
    .cols = cols, .ncols = NCOLS, .id_col = C_JOB_ID, .submit_col = C_SUBMIT,
    .flags = 0, .row = row,
};
