/* Trace-format detection from the header, the format registry, and what auto-detection does with
 * headers that fit no format or almost fit one. */
#include "tracetest.h"

#include <mpi.h>

#define DATA DIKE_TEST_DATA "/"

static void expect_format(const char *path, const char *want)
{
    char name[32];
    dike_err e = {0};
    if (dike_trace_detect(path, name, sizeof name, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(name, want);
}

static void test_each_format(void **state)
{
    expect_format(DATA "trace_good.csv", "dike");        /* comment lines before the header */
    expect_format(DATA "trace_crlf.csv", "dike");
    expect_format(DATA "trace_philly-vc_head.csv", "philly-vc");
    expect_format(DATA "trace_rfold_philly_head.csv", "rfold"); /* '#' header, CRLF */
    expect_format(DATA "trace_rfold_zero_duration.csv", "rfold");
    expect_format(DATA "trace_elasticflow_merge/cluster02.csv", "elasticflow");
    expect_format(DATA "trace_gen-parallel_invented.csv", "gen-parallel"); /* columns reordered */
    expect_format(DATA "trace_openb_invented.csv", "openb");
}

static void test_registry(void **state)
{
    const char *const *names = dike_trace_formats();
    const char *want[] = {"dike", "philly-vc", "rfold", "elasticflow", "gen-parallel", "openb"};
    for (size_t i = 0; i < 6; i++) {
        assert_non_null(names[i]);
        assert_string_equal(names[i], want[i]);
        assert_non_null(dike_trace_format_summary(names[i]));
    }
    assert_null(names[6]);
    assert_null(dike_trace_format_summary("nosuch"));
    assert_string_equal(dike_skip_rule_name(DIKE_SKIP_ZERO_DURATION), "zero-duration");
    assert_string_equal(dike_skip_rule_name(DIKE_SKIP_TOO_LARGE), "larger than the cluster");
}

static void test_undetectable(void **state)
{
    dike_cluster cl;
    dike_err e = {0};
    char name[32], want[1024];
    tt_cluster(&cl, NULL);
    /* a node list is not a trace */
    assert_int_equal(dike_trace_detect(DATA "nodelist_invented.csv", name, sizeof name, &e), DIKE_EINVAL);
    snprintf(want, sizeof want, "%s:1: cannot tell the trace format from the header "
             "'sn,cpu_milli,memory_mib,gpu,model' (formats: dike, philly-vc, rfold, elasticflow, "
             "gen-parallel, openb; a node list belongs in cluster.nodes_file; or set --trace-format)",
             DATA "nodelist_invented.csv");
    assert_string_equal(e.msg, want);
    /* a dike header missing one column is still recognised, and the message names the column */
    char *p = tt_write_tmp("# header on line 2 has no 'duration'\njob_id,tenant,submit_time,num_gpus\n0,a,0,1\n");
    tt_expect_error(p, "auto", &cl, false, 2, "header: missing column 'duration'");
    tt_drop_tmp(p);
    /* an unknown column of the strict dike format */
    p = tt_write_tmp("job_id,tenant,submit_time,num_gpus,duration,priority\n");
    tt_expect_error(p, "auto", &cl, false, 1,
                    "header: unknown column 'priority' (columns: job_id, tenant, submit_time, num_gpus, "
                    "duration, model, gpu_type)");
    tt_drop_tmp(p);
    /* a foreign format ignores extra columns */
    dike_workload w;
    p = tt_write_tmp("job_id,submission_time,duration,num_gpu,model\nx,0,10,1,resnet\n");
    tt_read(p, "auto", &cl, false, &w);
    assert_string_equal(w.format, "elasticflow");
    assert_int_equal(w.nmodels, 0);
    dike_workload_free(&w);
    tt_drop_tmp(p);
    /* empty and blank files; a forced format on the wrong file */
    p = tt_write_tmp("\n\n# only comments\n");
    tt_expect_error(p, "auto", &cl, false, 0, "empty trace: no header line");
    tt_drop_tmp(p);
    tt_expect_error(DATA "trace_good.csv", "philly-vc", &cl, false, 2, "header: missing column 'timestamp'");
    /* unknown format names and folders without traces */
    dike_workload_init(&w);
    assert_int_equal(dike_trace_read(DATA "trace_good.csv", "csv", &cl, false, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[workload] trace_format: unknown format 'csv' (known: auto, dike, philly-vc, "
                               "rfold, elasticflow, gen-parallel, openb)");
    assert_int_equal(dike_trace_read("/", "auto", &cl, false, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "/: a folder without *.csv files");
    assert_int_equal(dike_trace_read("/nonexistent.csv", "auto", &cl, false, &w, &e), DIKE_EIO);
    assert_string_equal(e.msg, "/nonexistent.csv: cannot open: No such file or directory");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_format),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_undetectable),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
