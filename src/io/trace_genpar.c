/* Gen-Parallel-Workloads' training traces (gen-parallel): Philly and Helios jobs,
 *
 *     columns u_id, user, gpu_num, cpu_num, node_num, interval, run_time, wall_time, new_status
 *
 * interval = seconds since the previous row's submit (0 on the first row), so a job's submit is the
 * running sum of interval over every row before it and its own, including rows that are dropped:
 * a row whose interval cannot be read (or whose fields cannot be split) stops the read even with
 * skip_invalid, since every later submit would be wrong. u_id is the job id, user the tenant,
 * run_time the duration (s). Rows with gpu_num = 0 are CPU-only jobs: always dropped, and counted
 * (the workload's no_gpu_rows). cpu_num, node_num, wall_time and new_status are ignored: failed and
 * killed jobs held their GPUs too. The repository has no license: the project never copies its
 * rows (tests read ../shared at run time). */
#include "io/trace.h"

enum { C_U_ID, C_USER, C_GPUS, C_CPUS, C_NODES, C_INTERVAL, C_RUN_TIME, C_WALL_TIME, C_STATUS, NCOLS };

static const dike_trace_col cols[NCOLS] = {
    [C_U_ID] = {"u_id", true},          [C_USER] = {"user", true},
    [C_GPUS] = {"gpu_num", true},       [C_CPUS] = {"cpu_num", false},
    [C_NODES] = {"node_num", false},    [C_INTERVAL] = {"interval", true},
    [C_RUN_TIME] = {"run_time", true},  [C_WALL_TIME] = {"wall_time", false},
    [C_STATUS] = {"new_status", false},
};

static int row(dike_trace_file *f, dike_trace_row *r, dike_err *e)
{
    int64_t v;
    double s;
    int rc;
    /* The clock first: it advances on every row, whatever happens to the row afterwards. */
    if ((rc = dike_trace_real(f, e, C_INTERVAL, &s)) || s < 0) {
        if (!rc)
            dike_trace_fail(f, e, DIKE__RULE_FATAL, C_INTERVAL, "must be >= 0 (got '%s')",
                             f->col[C_INTERVAL]);
        f->rule = DIKE__RULE_FATAL;
        return DIKE_EINVAL;
    }
    f->clock_s += s;
    if ((rc = dike_trace_time(f, e, C_INTERVAL, f->clock_s, NULL, &r->submit))) {
        f->rule = DIKE__RULE_FATAL;
        return rc;
    }
    if ((rc = dike_trace_int(f, e, C_U_ID, 0, &v)))
        return rc;
    r->id = v;
    if ((rc = dike_trace_name(f, e, C_USER)))
        return rc;
    r->tenant = f->col[C_USER];
    if ((rc = dike_trace_int(f, e, C_GPUS, 0, &v)))
        return rc;
    if (v == 0)
        return DIKE__ROW_NO_GPU;
    if ((rc = dike_trace_duration_col(f, e, C_RUN_TIME, &r->duration)))
        return rc;
    return dike_trace_gang(f, e, C_GPUS, v, -1, &r->gpus);
}

const dike_trace_format dike_trace_fmt_gen_parallel = {
    .name = "gen-parallel",
    .summary = "Gen-Parallel-Workloads' Philly/Helios training traces (submit = running sum of interval); tenant = user",
    .cols = cols, .ncols = NCOLS, .id_col = C_U_ID, .submit_col = C_INTERVAL,
    .flags = DIKE__TF_ROW_IDS | DIKE__TF_CLOCK, .row = row,
};
