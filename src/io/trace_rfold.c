/* RFold's conversions of the Philly, Crux and Alibaba traces (rfold):
 *
 *     #job id,arrival time (sec),topology,shape,size,duration (sec)
 *     0,0.0,CLOS,1,1,3613033.0
 *     7,1200.0,CLOS,8+8,16,600.0
 *
 * The header line starts with '#'. arrival time and duration are seconds, size is the job's GPUs,
 * shape its per-node split in the original placement ("8+8" = two nodes of 8), which must add up
 * to size; topology is a simulator setting ("CLOS"), ignored. There is no tenant column: the tenant
 * is the file's name ("philly_trace"). Alibaba's GPU-sharing pods have fractional sizes (0.46): a
 * size below 1 is counted as one whole GPU (and counted in the workload's `fractional`); any other
 * non-integer size is malformed. */
#include "io/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

enum { C_JOB_ID, C_ARRIVAL, C_TOPOLOGY, C_SHAPE, C_SIZE, C_DURATION, NCOLS };

static const dike_trace_col cols[NCOLS] = {
    [C_JOB_ID] = {"job id", true},          [C_ARRIVAL] = {"arrival time (sec)", true},
    [C_TOPOLOGY] = {"topology", false},     [C_SHAPE] = {"shape", true},
    [C_SIZE] = {"size", true},              [C_DURATION] = {"duration (sec)", true},
};

/* Sum of the '+'-separated parts of the shape, each a number > 0; -1 if malformed. */
static double shape_sum(const char *shape)
{
    char part[64];
    double sum = 0, v;
    const char *s = shape;
    for (;;) {
        const char *plus = strchr(s, '+');
        size_t len = plus ? (size_t)(plus - s) : strlen(s);
        if (len == 0 || len >= sizeof part)
            return -1;
        memcpy(part, s, len);
        part[len] = '\0';
        if (dike_parse_f64(part, &v) || !(v > 0))
            return -1;
        sum += v;
        if (!plus)
            return sum;
        s = plus + 1;
    }
}

static int row(dike_trace_file *f, dike_trace_row *r, dike_err *e)
{
    int64_t v;
    double size;
    int rc;
    if ((rc = dike_trace_int(f, e, C_JOB_ID, 0, &v)))
        return rc;
    r->id = v;
    if ((rc = dike_trace_submit_col(f, e, C_ARRIVAL, &r->submit)))
        return rc;
    if ((rc = dike_trace_duration_col(f, e, C_DURATION, &r->duration)))
        return rc;
    if ((rc = dike_trace_real(f, e, C_SIZE, &size)))
        return rc;
    if (!(size > 0))
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_SIZE, "must be > 0 (got '%s')",
                                f->col[C_SIZE]);
    double sum = shape_sum(f->col[C_SHAPE]);
    if (sum < 0)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_SHAPE,
                                "not GPU counts > 0 joined by '+' (got '%s')", f->col[C_SHAPE]);
    if (fabs(sum - size) > 1e-9 * fmax(1.0, size))
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_SHAPE, "adds up to %.15g, size is %s",
                                sum, f->col[C_SIZE]);
    if (size < 1) {
        r->fractional = true;
        size = 1;
    } else if (size != floor(size) || size > (double)UINT32_MAX) {
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_SIZE,
                                "not a whole number of GPUs (got '%s'; only sizes below 1 are "
                                "rounded, to one GPU)", f->col[C_SIZE]);
    }
    return dike_trace_gang(f, e, C_SIZE, (int64_t)size, -1, &r->gpus);
}

const dike_trace_format dike_trace_fmt_rfold = {
    .name = "rfold",
    .summary = "RFold's Philly, Crux and Alibaba conversions ('#' header, per-node shape); tenant = file name",
    .cols = cols, .ncols = NCOLS, .id_col = C_JOB_ID, .submit_col = C_ARRIVAL,
    .flags = DIKE__TF_HASH_HEADER | DIKE__TF_ROW_IDS, .row = row,
};
