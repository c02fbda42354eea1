/* The project's CSV trace format (docs/trace-format.md):
 *
 *     # comment
 *     job_id,tenant,submit_time,num_gpus,duration[,model][,gpu_type]
 *     0,alice,0,8,3600
 *
 * Columns in any order, seconds as decimal numbers, rows sorted by submit_time, no quoting (a field
 * cannot contain a comma). The driver (trace.c) does the lines, the header, the order check and the
 * duplicate ids; this file maps one row. */
#include "io/trace.h"

#include <string.h>

enum { C_JOB_ID, C_TENANT, C_SUBMIT, C_GPUS, C_DURATION, C_MODEL, C_GPU_TYPE, NCOLS };

static const dike_trace_col cols[NCOLS] = {
    [C_JOB_ID] = {"job_id", true},     [C_TENANT] = {"tenant", true},
    [C_SUBMIT] = {"submit_time", true}, [C_GPUS] = {"num_gpus", true},
    [C_DURATION] = {"duration", true},  [C_MODEL] = {"model", false},
    [C_GPU_TYPE] = {"gpu_type", false},
};

/* Checks in the order of the columns' meaning, so the first message of a row is stable. */
static int row(dike_trace_file *f, dike_trace_row *r, dike_err *e)
{
    int64_t v;
    int rc;
    if ((rc = dike_trace_int(f, e, C_JOB_ID, 0, &v)))
        return rc;
    r->id = v;
    if ((rc = dike_trace_name(f, e, C_TENANT)))
        return rc;
    r->tenant = f->col[C_TENANT];
    if ((rc = dike_trace_submit_col(f, e, C_SUBMIT, &r->submit)))
        return rc;
    if ((rc = dike_trace_duration_col(f, e, C_DURATION, &r->duration)))
        return rc;
    if (f->col[C_GPU_TYPE] && *f->col[C_GPU_TYPE] &&
        (rc = dike_trace_type(f, e, C_GPU_TYPE, f->col[C_GPU_TYPE], &r->gpu_type)))
        return rc;
    if ((rc = dike_trace_gpus_col(f, e, C_GPUS, r->gpu_type, &r->gpus)))
        return rc;
    r->model = f->col[C_MODEL];
    return 0;
}

const dike_trace_format dike_trace_fmt_dike = {
    .name = "dike",
    .summary = "the project's CSV: job_id,tenant,submit_time,num_gpus,duration[,model][,gpu_type]",
    .cols = cols, .ncols = NCOLS, .id_col = C_JOB_ID, .submit_col = C_SUBMIT,
    .flags = DIKE__TF_STRICT | DIKE__TF_ROW_IDS | DIKE__TF_SORTED, .row = row,
};
