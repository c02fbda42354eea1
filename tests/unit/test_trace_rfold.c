/* rfold reader (RFold's Philly, Crux and Alibaba conversions) on lines cut from the real files
 * (tests/data/trace_rfold_*.csv, MIT: tests/data/LICENSES.md). The Philly and Alibaba files end
 * their lines with CRLF, Crux with LF. */
#include "tracetest.h"

#include <mpi.h>

#define DATA DIKE_TEST_DATA "/"
#define HDR "#job id,arrival time (sec),topology,shape,size,duration (sec)\n"

/* Lines 1-7, 114 and 194 of philly_trace.csv:
 *   id   arrival    shape  size  duration
 *   0          0      1     1    3613033
 *   1     266563      1     1    3222990
 *   2     266564      1     1    3879840
 *   3     266566      1     1    3879832
 *   4     289185      1     1    4310295
 *   5     290070      1     1    4310294
 *   112  2601211    8+8    16    1453510
 *   192  2964821    4+4     8    1297759 */
static void test_philly_head(void **state)
{
    static const int64_t id[8] = {0, 1, 2, 3, 4, 5, 112, 192};
    static const int64_t arrival[8] = {0, 266563, 266564, 266566, 289185, 290070, 2601211, 2964821};
    static const uint32_t gpus[8] = {1, 1, 1, 1, 1, 1, 16, 8};
    static const int64_t dur[8] = {3613033, 3222990, 3879840, 3879832, 4310295, 4310294, 1453510, 1297759};
    dike_cluster cl;
    dike_workload w;
    tt_cluster(&cl, NULL);
    tt_read(DATA "trace_rfold_philly_head.csv", "auto", &cl, false, &w);
    assert_string_equal(w.format, "rfold");
    assert_int_equal(w.njobs, 8);
    assert_int_equal(w.time_offset, 0);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(w.jobs[i].id, id[i]);
        assert_int_equal(w.jobs[i].submit, US(arrival[i]));
        assert_int_equal(w.jobs[i].num_gpus, gpus[i]);
        assert_int_equal(w.jobs[i].duration, US(dur[i]));
        assert_int_equal(w.jobs[i].tenant, 0);
        assert_int_equal(w.jobs[i].line, i < 6 ? i + 2 : (i == 6 ? 8 : 9));
    }
    assert_int_equal(w.ntenants, 1);
    assert_string_equal(w.tenants[0], "trace_rfold_philly_head"); /* the file name */
    assert_int_equal(w.fractional, 0);
    dike_workload_free(&w);
}

/* Lines 1-24 of crux.csv: line 23 is job 21, "21,21540.0,CLOS,2,2,0.0", a zero-duration job. */
static void test_zero_duration(void **state)
{
    dike_cluster cl;
    dike_workload w;
    const char *path = DATA "trace_rfold_zero_duration.csv";
    tt_cluster(&cl, NULL);
    tt_expect_error(path, "rfold", &cl, false, 23, "field 'duration (sec)': must be > 0 (got '0.0')");
    tt_read(path, "rfold", &cl, true, &w);
    assert_int_equal(w.njobs, 22); /* jobs 0-20 and 22 */
    assert_int_equal(w.jobs[21].id, 22);
    assert_int_equal(w.skipped, 1);
    assert_int_equal(w.skips[DIKE_SKIP_ZERO_DURATION], 1);
    char want[512];
    snprintf(want, sizeof want, "%s:23: field 'duration (sec)': must be > 0 (got '0.0')", path);
    assert_string_equal(w.skip_msg[DIKE_SKIP_ZERO_DURATION], want);
    dike_workload_free(&w);
}

/* Lines 894-895 of crux.csv: job 892 asks for 744 GPUs, the default cluster has 512. */
static void test_too_large(void **state)
{
    dike_cluster cl;
    dike_workload w;
    const char *path = DATA "trace_rfold_too_large.csv";
    tt_cluster(&cl, NULL);
    tt_expect_error(path, "auto", &cl, false, 2, "field 'size': 744 GPUs requested, the cluster has 512");
    const char *const big[] = {"cluster.nodes=93", NULL}; /* 744 GPUs: exactly enough */
    tt_cluster(&cl, big);
    tt_read(path, "auto", &cl, false, &w);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.jobs[0].num_gpus, 744);
    dike_workload_free(&w);
}

/* Lines 21-24 and 892-895 of crux.csv: jobs 19 (4 GPUs, 168900 s), 20, 21 (0 s), 22, 890 (0 s),
 * 891 (0 s), 892 (744 GPUs), 893. On 512 GPUs with skip_invalid: 19, 20, 22 and 893 stay. */
static void test_skip_report(void **state)
{
    dike_cluster cl;
    dike_workload w;
    const char *path = DATA "trace_rfold_crux_mixed.csv";
    char want[1024], got[1024];
    tt_cluster(&cl, NULL);
    tt_read(path, "rfold", &cl, true, &w);
    assert_int_equal(w.njobs, 4);
    assert_int_equal(w.jobs[0].id, 19);
    assert_int_equal(w.jobs[1].id, 20);
    assert_int_equal(w.jobs[2].id, 22);
    assert_int_equal(w.jobs[3].id, 893);
    assert_int_equal(w.time_offset, US(20220));
    assert_int_equal(w.jobs[3].submit, US(573720 - 20220));
    assert_int_equal(w.skipped, 4);
    assert_int_equal(w.skips[DIKE_SKIP_ZERO_DURATION], 3);
    assert_int_equal(w.skips[DIKE_SKIP_TOO_LARGE], 1);
    snprintf(want, sizeof want, "skipped 4 rows of %s: 3 zero-duration, 1 larger than the cluster", path);
    assert_int_equal(dike_workload_report(&w, got, sizeof got), strlen(want));
    assert_string_equal(got, want);
    dike_workload_free(&w);
}

/* Lines 1-6 and 17 of alibaba_v2023.csv: sizes 1.0, 0.46, 1.0, 0.46, 1.0 and 8.0 with shape
 * "1.0+1.0+1.0+1.0+1.0+1.0+1.0+1.0". The two 0.46 pods count as one whole GPU each. */
static void test_fractional(void **state)
{
    dike_cluster cl;
    dike_workload w;
    char got[1024];
    tt_cluster(&cl, NULL);
    tt_read(DATA "trace_rfold_alibaba_head.csv", "auto", &cl, false, &w);
    assert_int_equal(w.njobs, 6);
    for (int i = 0; i < 5; i++)
        assert_int_equal(w.jobs[i].num_gpus, 1);
    assert_int_equal(w.jobs[5].num_gpus, 8);
    assert_int_equal(w.jobs[5].id, 15);
    assert_int_equal(w.jobs[1].submit, US(427061));
    assert_int_equal(w.fractional, 2);
    dike_workload_report(&w, got, sizeof got);
    assert_string_equal(got, "2 fractional-GPU requests count as one whole GPU");
    dike_workload_free(&w);
}

static void test_malformed(void **state)
{
    dike_cluster cl;
    tt_cluster(&cl, NULL);
    /* line 114 of philly_trace.csv with size 12 instead of 16 */
    tt_expect_error(DATA "trace_rfold_bad_shape.csv", "auto", &cl, false, 3,
                    "field 'shape': adds up to 16, size is 12");
    struct {
        const char *row, *msg;
    } cases[] = {
        {"0,0,CLOS,2.5,2.5,10", "field 'size': not a whole number of GPUs (got '2.5'; only sizes below 1 "
                                "are rounded, to one GPU)"},
        {"0,0,CLOS,8+,8,10", "field 'shape': not GPU counts > 0 joined by '+' (got '8+')"},
        {"0,0,CLOS,0,0,10", "field 'size': must be > 0 (got '0')"},
        {"0,-1,CLOS,1,1,10", "field 'arrival time (sec)': must be >= 0 (got '-1')"},
        {"x,0,CLOS,1,1,10", "field 'job id': not an integer (got 'x')"},
        {"0,0,CLOS,1,1", "5 fields, the header has 6 (fields cannot contain commas)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, HDR "%s\n", cases[i].row);
        char *p = tt_write_tmp(text);
        tt_expect_error(p, "rfold", &cl, false, 2, cases[i].msg);
        tt_drop_tmp(p);
    }
    char *p = tt_write_tmp(HDR "3,0,CLOS,1,1,10\n3,5,CLOS,1,1,10\n");
    tt_expect_error(p, "rfold", &cl, false, 3, "field 'job id': duplicate job id 3 (first on line 2)");
    tt_drop_tmp(p);
    p = tt_write_tmp("#job id,arrival time (sec),shape,duration (sec)\n");
    tt_expect_error(p, "rfold", &cl, false, 1, "header: missing column 'size'");
    tt_drop_tmp(p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philly_head), cmocka_unit_test(test_zero_duration),
        cmocka_unit_test(test_too_large),   cmocka_unit_test(test_skip_report),
        cmocka_unit_test(test_fractional),  cmocka_unit_test(test_malformed),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
