/* gen-parallel reader on fixtures written for the tests in Gen-Parallel-Workloads' column layout
 * (the repository has no license: none of its lines are copied; test_trace_shared reads the real
 * files from ../shared). tests/data/trace_gen-parallel_invented.csv (CRLF, columns reordered):
 *   user u_id gpu_num interval run_time
 *     7    0     1       0       100     submit 0
 *     7    1     0      50        30     CPU-only: dropped, but the clock moves to 50
 *     9    2     8      25       600     submit 75
 *    11    3     2       0        40     submit 75 (same time: file order)
 *     9    4     4     125        10     submit 200 */
#include "tracetest.h"

#include <mpi.h>

#define HDR "user,u_id,gpu_num,interval,run_time\n" /* any column order */

static void test_invented(void **state)
{
    static const int64_t id[4] = {0, 2, 3, 4}, submit[4] = {0, 75, 75, 200}, dur[4] = {100, 600, 40, 10};
    static const uint32_t gpus[4] = {1, 8, 2, 4}, tenant[4] = {0, 1, 2, 1}, line[4] = {2, 4, 5, 6};
    dike_cluster cl;
    dike_workload w;
    char got[1024], want[1024];
    const char *path = DIKE_TEST_DATA "/trace_gen-parallel_invented.csv";
    tt_cluster(&cl, NULL);
    tt_read(path, "auto", &cl, false, &w);
    assert_string_equal(w.format, "gen-parallel");
    assert_int_equal(w.njobs, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(w.jobs[i].id, id[i]);
        assert_int_equal(w.jobs[i].submit, US(submit[i]));
        assert_int_equal(w.jobs[i].duration, US(dur[i]));
        assert_int_equal(w.jobs[i].num_gpus, gpus[i]);
        assert_int_equal(w.jobs[i].tenant, tenant[i]);
        assert_int_equal(w.jobs[i].line, line[i]);
    }
    assert_int_equal(w.ntenants, 3);
    assert_string_equal(w.tenants[0], "7");
    assert_string_equal(w.tenants[1], "9");
    assert_string_equal(w.tenants[2], "11");
    assert_int_equal(w.no_gpu_rows, 1);
    assert_int_equal(w.skipped, 0); /* a CPU-only row is not an invalid one */
    snprintf(want, sizeof want, "dropped 1 rows without GPUs (CPU-only jobs) of %s", path);
    dike_workload_report(&w, got, sizeof got);
    assert_string_equal(got, want);
    dike_workload_free(&w);
}

static void test_clock(void **state)
{
    dike_cluster cl;
    dike_workload w;
    tt_cluster(&cl, NULL);
    /* A negative interval breaks every later submit: an error even with skip_invalid. */
    const char *bad = DIKE_TEST_DATA "/trace_gen-parallel_bad_interval.csv";
    tt_expect_error(bad, "auto", &cl, false, 3, "field 'interval': must be >= 0 (got '-5')");
    tt_expect_error(bad, "auto", &cl, true, 3, "field 'interval': must be >= 0 (got '-5')");
    /* So does a row whose fields cannot be split. */
    char *p = tt_write_tmp(HDR "a,0,1,0,10\na,1,1,10\na,2,1,5,10\n");
    tt_expect_error(p, "gen-parallel", &cl, true, 3, "4 fields, the header has 5 (fields cannot contain commas)");
    tt_drop_tmp(p);
    /* A skipped row still moves the clock: 0, (10: zero run_time, skipped), 15. */
    p = tt_write_tmp(HDR "a,0,1,0,10\na,1,1,10,0\na,2,1,5,10\n");
    tt_expect_error(p, "gen-parallel", &cl, false, 3, "field 'run_time': must be > 0 (got '0')");
    tt_read(p, "gen-parallel", &cl, true, &w);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.jobs[1].submit, US(15));
    assert_int_equal(w.skips[DIKE_SKIP_ZERO_DURATION], 1);
    dike_workload_free(&w);
    tt_drop_tmp(p);
    /* Duplicate u_id, and a gang above the cluster. */
    p = tt_write_tmp(HDR "a,0,1,0,10\nb,0,1,1,10\nc,1,600,1,10\n");
    tt_expect_error(p, "gen-parallel", &cl, false, 3, "field 'u_id': duplicate job id 0 (first on line 2)");
    tt_read(p, "gen-parallel", &cl, true, &w);
    assert_int_equal(w.njobs, 1);
    assert_int_equal(w.skips[DIKE_SKIP_DUPLICATE], 1);
    assert_int_equal(w.skips[DIKE_SKIP_TOO_LARGE], 1);
    dike_workload_free(&w);
    tt_drop_tmp(p);
    /* Only CPU-only rows: no job. */
    p = tt_write_tmp(HDR "a,0,0,0,10\n");
    tt_expect_error(p, "gen-parallel", &cl, false, 0, "no valid jobs (1 rows skipped, some without GPUs)");
    tt_drop_tmp(p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invented),
        cmocka_unit_test(test_clock),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
