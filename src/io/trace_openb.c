/* Alibaba's openb GPU pod list (openb), cluster-trace-gpu-v2023:
 *
 *     name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
 *
 * One pod per row: submit = creation_time, duration = deletion_time - creation_time (s; it includes
 * the time a pod waited), GPUs = num_gpu. Pods with num_gpu = 0 are CPU-only: always dropped and
 * counted. GPU-sharing pods ask for part of one GPU (num_gpu = 1, gpu_milli < 1000): the emulator
 * has no GPU sharing, so such a pod holds one whole GPU (counted in the workload's `fractional`).
 * gpu_spec, when set, is the GPU type the pod needs; a list of alternatives ("A|B") cannot be
 * expressed and is malformed. name is the job key (checked for duplicates); there is no tenant
 * column, so the tenant is the file's name. The matching node list is a cluster: cluster.nodes_file. */
#include "io/trace.h"

#include <stdio.h>
#include <string.h>

enum {
    C_NAME, C_CPU, C_MEM, C_GPUS, C_MILLI, C_SPEC, C_QOS, C_PHASE, C_CREATION, C_DELETION,
    C_SCHEDULED, NCOLS
};

static const dike_trace_col cols[NCOLS] = {
    [C_NAME] = {"name", true},           [C_CPU] = {"cpu_milli", false},
    [C_MEM] = {"memory_mib", false},     [C_GPUS] = {"num_gpu", true},
    [C_MILLI] = {"gpu_milli", true},     [C_SPEC] = {"gpu_spec", false},
    [C_QOS] = {"qos", false},            [C_PHASE] = {"pod_phase", false},
    [C_CREATION] = {"creation_time", true}, [C_DELETION] = {"deletion_time", true},
    [C_SCHEDULED] = {"scheduled_time", false},
};

static int row(dike_trace_file *f, dike_trace_row *r, dike_err *e)
{
    int64_t gpus, milli;
    double t0, t1;
    int rc;
    if ((rc = dike_trace_name(f, e, C_NAME)))
        return rc;
    r->key = f->col[C_NAME];
    if ((rc = dike_trace_int(f, e, C_GPUS, 0, &gpus)))
        return rc;
    if (gpus == 0)
        return DIKE__ROW_NO_GPU;
    if ((rc = dike_trace_int(f, e, C_MILLI, 1, &milli)))
        return rc;
    if (milli > 1000)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_MILLI, "must be <= 1000 (got '%s')",
                                f->col[C_MILLI]);
    if (milli < 1000) {
        if (gpus != 1)
            return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_MILLI,
                                    "below 1000 with num_gpu %s: only single-GPU pods share a GPU "
                                    "(got '%s')", f->col[C_GPUS], f->col[C_MILLI]);
        r->fractional = true;
    }
    if ((rc = dike_trace_real(f, e, C_CREATION, &t0)) ||
        (rc = dike_trace_time(f, e, C_CREATION, t0, NULL, &r->submit)))
        return rc;
    if ((rc = dike_trace_real(f, e, C_DELETION, &t1)))
        return rc;
    if (t1 < t0)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_DELETION,
                                "before creation_time %s (got '%s')", f->col[C_CREATION],
                                f->col[C_DELETION]);
    if (t1 == t0)
        return dike_trace_fail(f, e, DIKE_SKIP_ZERO_DURATION, C_DELETION,
                                "equals creation_time: zero duration (got '%s')", f->col[C_DELETION]);
    if ((rc = dike_trace_duration(f, e, C_DELETION, t1 - t0, NULL, &r->duration)))
        return rc;
    const char *spec = f->col[C_SPEC];
    if (spec && *spec) {
        if (strchr(spec, '|'))
            return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_SPEC,
                                    "several GPU types (got '%s'): a job can require one type only",
                                    spec);
        if ((rc = dike_trace_type(f, e, C_SPEC, spec, &r->gpu_type)))
            return rc;
    }
    return dike_trace_gang(f, e, C_GPUS, gpus, r->gpu_type, &r->gpus);
}

const dike_trace_format dike_trace_fmt_openb = {
    .name = "openb",
    .summary = "Alibaba's openb GPU pod list (cluster-trace-gpu-v2023); tenant = file name",
    .cols = cols, .ncols = NCOLS, .id_col = C_NAME, .submit_col = C_CREATION,
    .flags = 0, .row = row,
};
