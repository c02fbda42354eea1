/* philly-vc reader (TitanSched's Philly trace) on the first 11 lines of the real file
 * (tests/data/trace_philly-vc_head.csv, MIT: tests/data/LICENSES.md).
 *
 * The ten rows, by line: submit time (UTC), duration, virtual cluster; all 1 GPU.
 *    2  2017-10-09 07:01:55     66  11cb48        7  2017-10-09 06:14:53  2775  6214e9
 *    3  2017-10-09 06:13:03   2951  6214e9        8  2017-10-09 06:15:13  2802  6214e9
 *    4  2017-09-29 07:58:32 860662  6c71a0        9  2017-10-09 07:00:41    64  11cb48
 *    5  2017-10-09 06:13:36   2759  6214e9       10  2017-10-09 06:00:52  2859  6214e9
 *    6  2017-10-09 06:16:03   2766  6214e9       11  2017-10-09 06:11:13  2987  6214e9
 * Sorted: line 4 first (t = 0). 2017-10-09 07:58:32 is 10 days = 864,000 s later; 06:00:52 is
 * 1:57:40 = 7,060 s before that: 856,940. Then +621 (06:11:13) = 857,561, +110 = 857,671 (06:13:03),
 * +33 = 857,704, +77 = 857,781 (06:14:53), +20 = 857,801, +50 = 857,851 (06:16:03),
 * +2,678 = 860,529 (07:00:41), +74 = 860,603 (07:01:55).
 * 2017-09-29 is day 17,167 (2017-01-01) + 271 = 17,438 since 1970: 17,438 x 86,400 + 28,712 s
 * (07:58:32) = 1,506,671,912 s, the time offset. */
#include "tracetest.h"

#include <mpi.h>

#define HEAD DIKE_TEST_DATA "/trace_philly-vc_head.csv"
#define HDR "timestamp,duration,num_gpus,gpu_time,cluster\n"

static const int64_t submit_s[10] = {0,      856940, 857561, 857671, 857704,
                                     857781, 857801, 857851, 860529, 860603};
static const int64_t dur_s[10] = {860662, 2859, 2987, 2951, 2759, 2775, 2802, 2766, 64, 66};
static const uint32_t line[10] = {4, 10, 11, 3, 5, 7, 8, 6, 9, 2};
static const uint32_t tenant[10] = {0, 1, 1, 1, 1, 1, 1, 1, 2, 2};

static void check_head(const dike_workload *w)
{
    assert_int_equal(w->njobs, 10);
    assert_int_equal(w->time_offset, US(1506671912));
    for (int i = 0; i < 10; i++) {
        assert_int_equal(w->jobs[i].id, i); /* position after sorting */
        assert_int_equal(w->jobs[i].submit, US(submit_s[i]));
        assert_int_equal(w->jobs[i].duration, US(dur_s[i]));
        assert_int_equal(w->jobs[i].num_gpus, 1);
        assert_int_equal(w->jobs[i].line, line[i]);
        assert_int_equal(w->jobs[i].tenant, tenant[i]);
        assert_int_equal(w->jobs[i].model, -1);
        assert_int_equal(w->jobs[i].gpu_type, -1);
    }
    /* tenants in order of first submit, not of the file */
    assert_int_equal(w->ntenants, 3);
    assert_string_equal(w->tenants[0], "6c71a0");
    assert_string_equal(w->tenants[1], "6214e9");
    assert_string_equal(w->tenants[2], "11cb48");
    assert_string_equal(w->format, "philly-vc");
    assert_int_equal(w->skipped, 0);
}

static void test_head(void **state)
{
    dike_cluster cl;
    dike_workload w;
    tt_cluster(&cl, NULL);
    tt_read(HEAD, "philly-vc", &cl, false, &w);
    check_head(&w);
    dike_workload_free(&w);
    tt_read(HEAD, "auto", &cl, false, &w); /* detected from the header */
    check_head(&w);
    dike_workload_free(&w);
}

static void test_bad_date(void **state)
{
    dike_cluster cl;
    dike_workload w;
    const char *path = DIKE_TEST_DATA "/trace_philly-vc_bad_date.csv";
    tt_cluster(&cl, NULL);
    tt_expect_error(path, "auto", &cl, false, 4,
                    "field 'timestamp': not a date and time 'YYYY-MM-DD HH:MM:SS' (got "
                    "'2017-13-29 07:58:32')");
    tt_read(path, "auto", &cl, true, &w);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.skips[DIKE_SKIP_MALFORMED], 1);
    assert_int_equal(w.skipped, 1);
    /* lines 3 and 2: 06:13:03 then 07:01:55, 48:52 = 2,932 s apart */
    assert_int_equal(w.jobs[1].submit, US(2932));
    dike_workload_free(&w);

    const char *const bad[][2] = {
        {"2017-02-29 00:00:00", "not a leap year"}, {"2017-10-09T07:01:55", "ISO 'T'"},
        {"2017-10-9 07:01:55", "one-digit day"},    {"2017-10-09 24:00:00", "hour 24"},
        {"2017-10-09 07:01", "no seconds"},         {"1969-12-31 23:59:59", "before 1970"},
        {"2100-02-29 00:00:00", "2100: not leap"},  {"2017-04-31 00:00:00", "April has 30"},
        {"2017-02-30 00:00:00", "February 30"},     {"2017-10-00 07:01:55", "day 0"},
        {"2017-00-09 07:01:55", "month 0"},         {"2017-10-09 07:60:00", "minute 60"},
        {"2017-10-09 07:01:61", "second 61"},       {"2017-10-09  7:01:55", "blank for a 0"},
        {"2017-10-09 07:01:5x", "not a digit"},     {"+017-10-09 07:01:55", "a sign"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256], want[256];
        snprintf(text, sizeof text, HDR "%s,10,1,10,vc\n", bad[i][0]);
        snprintf(want, sizeof want,
                 "field 'timestamp': not a date and time 'YYYY-MM-DD HH:MM:SS' (got '%s')", bad[i][0]);
        char *p = tt_write_tmp(text);
        print_message("  %s: %s\n", bad[i][1], bad[i][0]);
        tt_expect_error(p, "philly-vc", &cl, false, 2, want);
        tt_drop_tmp(p);
    }
    /* 2016 is a leap year; 2016-03-01 is one day after 2016-02-29. */
    char *p = tt_write_tmp(HDR "2016-03-01 00:00:00,10,1,10,a\n2016-02-29 00:00:00,5,2,10,b\n");
    tt_read(p, "philly-vc", &cl, false, &w);
    assert_int_equal(w.jobs[0].num_gpus, 2);
    assert_int_equal(w.jobs[1].submit, US(86400));
    dike_workload_free(&w);
    tt_drop_tmp(p);

    /* 2000 is a leap year (divisible by 400): 2000-02-29 is day 10,957 (2000-01-01, 30 years of
     * which 7 leap) + 59 = 11,016 since 1970, 951,782,400 s. A leap second (:60) is the first
     * second of the next minute: 23:59:60 on 2016-12-31 is 2017-01-01 00:00:00, 86,401 s after
     * 2016-12-31 00:00:00. */
    p = tt_write_tmp(HDR "2016-12-31 23:59:60,10,1,10,a\n2000-02-29 00:00:00,5,1,5,b\n"
                         "2016-12-31 00:00:00,5,1,5,c\n2017-01-01 00:00:00,5,1,5,d\n");
    tt_read(p, "philly-vc", &cl, false, &w);
    assert_int_equal(w.njobs, 4);
    assert_int_equal(w.time_offset, US(951782400));
    assert_int_equal(w.jobs[0].submit, 0);
    /* 2016-12-31 is day 17,166 (2017-01-01 is 17,167 above): 17,166 - 11,016 = 6,150 days */
    assert_int_equal(w.jobs[1].submit, US(6150 * 86400LL));
    /* the leap second and the next midnight tie; ties keep file order (line 2, then line 5) */
    assert_int_equal(w.jobs[2].submit, US(6151 * 86400LL));
    assert_int_equal(w.jobs[2].line, 2);
    assert_int_equal(w.jobs[3].submit, US(6151 * 86400LL));
    assert_int_equal(w.jobs[3].line, 5);
    dike_workload_free(&w);
    tt_drop_tmp(p);
}

static void test_invalid_rows(void **state)
{
    dike_cluster cl;
    dike_workload w;
    const char *const small[] = {"cluster.nodes=1", NULL}; /* 8 GPUs */
    tt_cluster(&cl, small);
    char *p = tt_write_tmp(HDR "2017-10-09 07:01:55,66.0,1,66.0,a\n"
                               "2017-10-09 07:02:00,0.0,1,0.0,a\n"
                               "2017-10-09 07:03:00,60.0,9,540.0,b\n"
                               "2017-10-09 07:04:00,60.0,8,480.0,\n");
    tt_expect_error(p, "philly-vc", &cl, false, 3, "field 'duration': must be > 0 (got '0.0')");
    tt_read(p, "philly-vc", &cl, true, &w);
    assert_int_equal(w.njobs, 1);
    assert_int_equal(w.skips[DIKE_SKIP_ZERO_DURATION], 1);
    assert_int_equal(w.skips[DIKE_SKIP_TOO_LARGE], 1);
    assert_int_equal(w.skips[DIKE_SKIP_MALFORMED], 1); /* empty cluster */
    char want[512];
    snprintf(want, sizeof want, "%s:4: field 'num_gpus': 9 GPUs requested, the cluster has 8", p);
    assert_string_equal(w.skip_msg[DIKE_SKIP_TOO_LARGE], want);
    snprintf(want, sizeof want, "%s:5: field 'cluster': empty", p);
    assert_string_equal(w.skip_msg[DIKE_SKIP_MALFORMED], want);
    dike_workload_free(&w);
    tt_drop_tmp(p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head),
        cmocka_unit_test(test_bad_date),
        cmocka_unit_test(test_invalid_rows),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
