/* elasticflow reader and multi-file traces, on the first lines of two real ElasticFlow files
 * (tests/data/trace_elasticflow_merge/, MIT: tests/data/LICENSES.md):
 *   cluster02.csv: submits 5010, 5016, 5377 (8 GPUs), 6140 (4 GPUs); durations 1265, 2066, 51348, 7162
 *   cluster09.csv: submits 2816, 2817, 5350, 5369, 5388 (1 GPU); durations 2546, 2518, 25927, 25946, 26043
 * Merged on their shared clock: 2816 c09, 2817 c09, 5010 c02, 5016 c02, 5350 c09, 5369 c09,
 * 5377 c02, 5388 c09, 6140 c02; time starts at 2816, so submits are 0, 1, 2194, 2200, 2534, 2553,
 * 2561, 2572, 3324. The tenant is the file name; cluster09 submits first, so it is tenant 0. */
#include "tracetest.h"

#include <mpi.h>

#define DIR DIKE_TEST_DATA "/trace_elasticflow_merge"
#define C02 DIR "/cluster02.csv"
#define C09 DIR "/cluster09.csv"

static const int64_t submit[9] = {0, 1, 2194, 2200, 2534, 2553, 2561, 2572, 3324};
static const int64_t dur[9] = {2546, 2518, 1265, 2066, 25927, 25946, 51348, 26043, 7162};
static const uint32_t gpus[9] = {1, 1, 1, 1, 1, 1, 8, 1, 4};
static const uint32_t tenant[9] = {0, 0, 1, 1, 0, 0, 1, 0, 1};
static const uint32_t line[9] = {2, 3, 2, 3, 4, 5, 4, 6, 5};

static void check_merged(const dike_workload *w, const char *source)
{
    assert_int_equal(w->njobs, 9);
    assert_int_equal(w->time_offset, US(2816));
    for (int i = 0; i < 9; i++) {
        assert_int_equal(w->jobs[i].id, i);
        assert_int_equal(w->jobs[i].submit, US(submit[i]));
        assert_int_equal(w->jobs[i].duration, US(dur[i]));
        assert_int_equal(w->jobs[i].num_gpus, gpus[i]);
        assert_int_equal(w->jobs[i].tenant, tenant[i]);
        assert_int_equal(w->jobs[i].line, line[i]);
    }
    assert_int_equal(w->ntenants, 2);
    assert_string_equal(w->tenants[0], "cluster09");
    assert_string_equal(w->tenants[1], "cluster02");
    assert_string_equal(w->source, source);
    assert_string_equal(w->format, "elasticflow");
}

static void test_merge(void **state)
{
    dike_cluster cl;
    dike_workload w;
    tt_cluster(&cl, NULL);
    /* a folder: its *.csv files in name order */
    tt_read(DIR, "auto", &cl, false, &w);
    check_merged(&w, DIR);
    /* sha256 of the two files' digests, one per line, in reading order (cluster02 first) */
    char h02[65], h09[65], want[65], text[200];
    assert_int_equal(dike_sha256_file(C02, h02, NULL), 0);
    assert_int_equal(dike_sha256_file(C09, h09, NULL), 0);
    snprintf(text, sizeof text, "%s\n%s\n", h02, h09);
    char *p = tt_write_tmp(text);
    assert_int_equal(dike_sha256_file(p, want, NULL), 0);
    tt_drop_tmp(p);
    assert_string_equal(w.sha256, want);
    dike_workload_free(&w);

    /* a list, in either order, with blanks: the same jobs */
    tt_read(C02 "," C09, "elasticflow", &cl, false, &w);
    check_merged(&w, C02 "," C09);
    dike_workload_free(&w);
    tt_read(C09 ", " C02, "elasticflow", &cl, false, &w);
    check_merged(&w, C09 ", " C02);
    dike_workload_free(&w);

    /* one file alone */
    tt_read(C02, "auto", &cl, false, &w);
    assert_int_equal(w.njobs, 4);
    assert_string_equal(w.tenants[0], "cluster02");
    assert_int_equal(w.jobs[3].submit, US(6140 - 5010));
    assert_int_equal(dike_sha256_file(C02, h02, NULL), 0);
    assert_string_equal(w.sha256, h02);
    dike_workload_free(&w);
}

/* Lines 1-3 of cluster09.csv, then line 2 again (submit changed to 5350). */
static void test_duplicate(void **state)
{
    dike_cluster cl;
    dike_workload w;
    const char *path = DIKE_TEST_DATA "/trace_elasticflow_duplicate.csv";
    char want[1024];
    tt_cluster(&cl, NULL);
    tt_expect_error(path, "auto", &cl, false, 4,
                    "field 'job_id': duplicate job id 4bb42dcf-d655-0689-6a5f-1b7f5562a1cb (first on line 2)");
    tt_read(path, "auto", &cl, true, &w);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.skips[DIKE_SKIP_DUPLICATE], 1);
    dike_workload_free(&w);
    /* across files: the message names the file of the first one */
    snprintf(want, sizeof want,
             "field 'job_id': duplicate job id 4bb42dcf-d655-0689-6a5f-1b7f5562a1cb (first on %s:2)", C09);
    dike_err e = {0};
    dike_workload_init(&w);
    assert_int_equal(dike_trace_read(C09 "," DIKE_TEST_DATA "/trace_elasticflow_duplicate.csv", "auto",
                                     &cl, false, &w, &e), DIKE_EINVAL);
    char full[1200];
    snprintf(full, sizeof full, "%s:2: %s", path, want);
    assert_string_equal(e.msg, full);
}

static void test_bad_lists(void **state)
{
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    char want[1024];
    tt_cluster(&cl, NULL);
    dike_workload_init(&w);
    /* files of different formats */
    assert_int_equal(dike_trace_read(C09 "," DIKE_TEST_DATA "/trace_philly-vc_head.csv", "auto", &cl,
                                     false, &w, &e), DIKE_EINVAL);
    snprintf(want, sizeof want, "%s: format philly-vc, but %s is elasticflow: the files of one trace "
             "must share a format", DIKE_TEST_DATA "/trace_philly-vc_head.csv", C09);
    assert_string_equal(e.msg, want);
    /* an empty entry */
    assert_int_equal(dike_trace_read(C09 ",,", "auto", &cl, false, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[workload] trace: empty file name in '" C09 ",,'");
    /* a missing file among others */
    assert_int_equal(dike_trace_read(C09 ",/nonexistent/c.csv", "elasticflow", &cl, false, &w, &e), DIKE_EIO);
    assert_string_equal(e.msg, "/nonexistent/c.csv: cannot open: No such file or directory");
    assert_int_equal(w.njobs, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_bad_lists),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
