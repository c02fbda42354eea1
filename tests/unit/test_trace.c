/* The dike CSV trace reader: the good path, and one test per class of bad input, each checking that
 * the message names the path, the line and the field. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dike/workload.h"

#define HEADER "job_id,tenant,submit_time,num_gpus,duration\n"

/* 10 nodes x 8 GPUs: v100 on nodes 0-5 (48 GPUs), a100 on nodes 6-9 (32 GPUs). */
static void mixed_cluster(dike_cluster *cl)
{
    dike_config c;
    dike_config_defaults(&c);
    c.cluster_nodes = 10;
    strcpy(c.cluster_gpu_types, "v100:6,a100:4");
    assert_int_equal(dike_cluster_init(cl, &c, NULL), 0);
}

/* The default cluster: 64 nodes x 8 GPUs = 512 v100. */
static void default_cluster(dike_cluster *cl)
{
    dike_config c;
    dike_config_defaults(&c);
    assert_int_equal(dike_cluster_init(cl, &c, NULL), 0);
}

static char *write_tmp_n(const char *text, size_t len)
{
    char tmpl[] = "/tmp/dike-test-trace-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return strdup(tmpl);
}

static char *write_tmp(const char *text)
{
    return write_tmp_n(text, strlen(text));
}

static void drop_tmp(char *path)
{
    unlink(path);
    free(path);
}

/* Read @p text (length @p len) as a trace; expect DIKE_EINVAL with a message that starts with
 * "PATH:LINE: " followed by @p rest_prefix, and an empty workload afterwards. */
static void expect_error_n(const dike_cluster *cl, const char *text, size_t len, int line,
                           const char *rest_prefix)
{
    dike_workload w;
    dike_err e = {0};
    char *path = write_tmp_n(text, len), want[512];
    dike_workload_init(&w);
    assert_int_equal(dike_trace_read_dike(path, cl, false, &w, &e), DIKE_EINVAL);
    snprintf(want, sizeof want, "%s:%d: %s", path, line, rest_prefix);
    if (strncmp(e.msg, want, strlen(want)) != 0)
        fail_msg("message '%s' does not start with '%s'", e.msg, want);
    assert_int_equal(w.njobs, 0);
    assert_null(w.jobs);
    assert_int_equal(w.ntenants, 0);
    dike_workload_free(&w);
    drop_tmp(path);
}

static void expect_error(const dike_cluster *cl, const char *text, int line, const char *rest_prefix)
{
    expect_error_n(cl, text, strlen(text), line, rest_prefix);
}

static void test_good_trace(void **state)
{
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    char sha[65];
    mixed_cluster(&cl);
    dike_workload_init(&w);
    const char *path = DIKE_TEST_DATA "/trace_good.csv";
    int rc = dike_trace_read_dike(path, &cl, false, &w, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(w.njobs, 4);
    assert_int_equal(w.time_offset, 100 * 1000000LL); /* first submit, 100 s */
    assert_int_equal(w.skipped, 0);

    assert_int_equal(w.jobs[0].id, 7);
    assert_int_equal(w.jobs[0].submit, 0);
    assert_int_equal(w.jobs[0].duration, 3600 * 1000000LL);
    assert_int_equal(w.jobs[0].num_gpus, 8);
    assert_int_equal(w.jobs[0].tenant, 0);
    assert_int_equal(w.jobs[0].model, 0);
    assert_int_equal(w.jobs[0].gpu_type, -1); /* empty gpu_type = any */
    assert_int_equal(w.jobs[0].line, 3);

    assert_int_equal(w.jobs[1].id, 3);
    assert_int_equal(w.jobs[1].submit, 500000); /* 100.5 s - 100 s */
    assert_int_equal(w.jobs[1].duration, 60250000);
    assert_int_equal(w.jobs[1].tenant, 1);
    assert_int_equal(w.jobs[1].model, -1); /* empty model = none */
    assert_int_equal(w.jobs[1].gpu_type, 0);
    assert_int_equal(w.jobs[1].line, 4);

    assert_int_equal(w.jobs[2].id, 9);
    assert_int_equal(w.jobs[2].submit, 150 * 1000000LL);
    assert_int_equal(w.jobs[2].duration, 7200000001LL); /* microsecond resolution */
    assert_int_equal(w.jobs[2].num_gpus, 16);
    assert_int_equal(w.jobs[2].tenant, 0); /* alice again */
    assert_int_equal(w.jobs[2].model, 1);
    assert_int_equal(w.jobs[2].gpu_type, 1);
    assert_int_equal(w.jobs[2].line, 6); /* the blank line 5 counts */

    assert_int_equal(w.jobs[3].id, 12);
    assert_int_equal(w.jobs[3].tenant, 2); /* " carol " trimmed */
    assert_int_equal(w.jobs[3].model, 0);
    assert_int_equal(w.jobs[3].line, 8);

    assert_int_equal(w.ntenants, 3);
    assert_string_equal(w.tenants[0], "alice");
    assert_string_equal(w.tenants[1], "bob");
    assert_string_equal(w.tenants[2], "carol");
    assert_int_equal(w.nmodels, 2);
    assert_string_equal(w.models[0], "resnet50");
    assert_string_equal(w.models[1], "bert");
    assert_string_equal(w.source, path);
    assert_int_equal(dike_sha256_file(path, sha, NULL), 0);
    assert_string_equal(w.sha256, sha);
    assert_int_equal(strlen(w.sha256), 64);
    dike_workload_free(&w);
}

static void test_crlf_trace(void **state)
{
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    default_cluster(&cl);
    dike_workload_init(&w);
    int rc = dike_trace_read_dike(DIKE_TEST_DATA "/trace_crlf.csv", &cl, false, &w, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.jobs[1].id, 1);
    assert_int_equal(w.jobs[1].submit, 5500000);
    assert_int_equal(w.jobs[1].duration, 20000000);
    assert_int_equal(w.jobs[1].num_gpus, 2);
    assert_int_equal(w.jobs[1].line, 4);
    assert_int_equal(w.jobs[1].model, -1);
    assert_string_equal(w.tenants[1], "b"); /* no stray '\r' */
    dike_workload_free(&w);
}

static void test_sha256_known_vector(void **state)
{
    char *path = write_tmp("abc"), sha[65];
    assert_int_equal(dike_sha256_file(path, sha, NULL), 0);
    assert_string_equal(sha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    drop_tmp(path);
}

static void test_missing_column(void **state)
{
    dike_cluster cl;
    default_cluster(&cl);
    expect_error(&cl, "# no duration\njob_id,tenant,submit_time,num_gpus\n0,a,0,1\n", 2,
                 "header: missing column 'duration'");
    expect_error(&cl, "job_id,tenant,submit_time,num_gpus,duration,priority\n", 1,
                 "header: unknown column 'priority'");
    expect_error(&cl, "job_id,tenant,tenant,submit_time,num_gpus,duration\n", 1,
                 "header: column 'tenant' appears twice");
}

static void test_malformed_number(void **state)
{
    dike_cluster cl;
    default_cluster(&cl);
    expect_error(&cl, HEADER "0,a,0,1,10\n1,a,12x,1,10\n", 3,
                 "field 'submit_time': not a number (got '12x')");
    expect_error(&cl, HEADER "0,a,0,1,nan\n", 2, "field 'duration': not a finite number (got 'nan')");
    expect_error(&cl, HEADER "0,a,0,2.5,10\n", 2, "field 'num_gpus': not an integer (got '2.5')");
    expect_error(&cl, HEADER "x1,a,0,1,10\n", 2, "field 'job_id': not an integer (got 'x1')");
    expect_error(&cl, HEADER "-1,a,0,1,10\n", 2, "field 'job_id': must be >= 0 (got '-1')");
    expect_error(&cl, HEADER "1,,0,1,10\n", 2, "field 'tenant': empty");
    expect_error(&cl, HEADER "1,a,b,0,1,10\n", 2, "6 fields, the header has 5");
}

static void test_negative_submit(void **state)
{
    dike_cluster cl;
    default_cluster(&cl);
    expect_error(&cl, HEADER "0,a,-5,1,10\n", 2, "field 'submit_time': must be >= 0 (got '-5')");
}

static void test_bad_duration(void **state)
{
    dike_cluster cl;
    default_cluster(&cl);
    expect_error(&cl, HEADER "0,a,0,1,0\n", 2, "field 'duration': must be > 0 (got '0')");
    expect_error(&cl, HEADER "0,a,0,1,-3.5\n", 2, "field 'duration': must be > 0 (got '-3.5')");
    expect_error(&cl, HEADER "0,a,0,1,1e-9\n", 2, "field 'duration': rounds to 0 microseconds");
}

static void test_gpus_above_cluster(void **state)
{
    dike_cluster cl;
    default_cluster(&cl);
    expect_error(&cl, HEADER "0,a,0,1,10\n1,a,0,600,10\n", 3,
                 "field 'num_gpus': 600 GPUs requested, the cluster has 512");
    expect_error(&cl, HEADER "0,a,0,0,10\n", 2, "field 'num_gpus': must be >= 1 (got '0')");
    mixed_cluster(&cl);
    expect_error(&cl, HEADER "0,a,0,49,10\n", 2,
                 "field 'num_gpus': 49 GPUs requested, the largest GPU type pool has 48");
    expect_error(&cl, "job_id,tenant,submit_time,num_gpus,duration,gpu_type\n0,a,0,40,10,a100\n", 2,
                 "field 'num_gpus': 40 GPUs requested, the cluster has 32 'a100' GPUs");
}

static void test_duplicate_id(void **state)
{
    dike_cluster cl;
    default_cluster(&cl);
    expect_error(&cl, HEADER "5,a,0,1,10\n6,a,1,1,10\n# c\n5,b,2,1,10\n", 5,
                 "field 'job_id': duplicate job id 5 (first on line 2)");
}

static void test_unsorted(void **state)
{
    dike_cluster cl;
    default_cluster(&cl);
    expect_error(&cl, HEADER "1,a,10,1,10\n2,a,20,1,10\n3,a,15,1,10\n", 4,
                 "field 'submit_time': 15 is before 20 on line 3");
}

static void test_unknown_gpu_type(void **state)
{
    dike_cluster cl;
    mixed_cluster(&cl);
    expect_error(&cl, "job_id,tenant,submit_time,num_gpus,duration,gpu_type\n0,a,0,1,10,h100\n", 2,
                 "field 'gpu_type': unknown GPU type 'h100' (cluster types: v100, a100)");
}

static void test_nul_byte(void **state)
{
    dike_cluster cl;
    default_cluster(&cl);
    static const char text[] = HEADER "0,a,0,1,10\n1,a\0,0,1,10\n";
    expect_error_n(&cl, text, sizeof text - 1, 3, "contains a NUL byte");
}

static void test_missing_file(void **state)
{
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    default_cluster(&cl);
    dike_workload_init(&w);
    assert_int_equal(dike_trace_read_dike("/nonexistent/t.csv", &cl, false, &w, &e), DIKE_EIO);
    assert_string_equal(e.msg, "/nonexistent/t.csv: cannot open: No such file or directory");
}

static void expect_whole_file_error(const char *text, bool skip, const char *rest)
{
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    char *path = write_tmp(text), want[512];
    default_cluster(&cl);
    dike_workload_init(&w);
    assert_int_equal(dike_trace_read_dike(path, &cl, skip, &w, &e), DIKE_EINVAL);
    snprintf(want, sizeof want, "%s: %s", path, rest);
    assert_string_equal(e.msg, want);
    assert_int_equal(w.njobs, 0);
    drop_tmp(path);
}

static void test_empty(void **state)
{
    expect_whole_file_error("", false, "empty trace: no header line");
    expect_whole_file_error("# only a comment\n\n", false, "empty trace: no header line");
    expect_whole_file_error(HEADER "# no rows\n", false, "no jobs after the header");
    expect_whole_file_error(HEADER "0,a,0,0,1\n", true, "no valid jobs (1 rows skipped)");
}

static void test_skip_invalid(void **state)
{
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    default_cluster(&cl);
    dike_workload_init(&w);
    char *path = write_tmp(HEADER
                           "1,a,10,1,10\n"    /* kept */
                           "2,a,11,1,abc\n"   /* bad number */
                           "3,b,12,999,10\n"  /* above cluster */
                           "1,c,13,1,10\n"    /* duplicate: the first one stays */
                           "4,d,5,1,10\n"     /* unsorted */
                           "5,a,14,2,20\n"    /* kept */
                           "6,a,15\n");       /* short row */
    int rc = dike_trace_read_dike(path, &cl, true, &w, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.skipped, 5);
    assert_int_equal(w.jobs[0].id, 1);
    assert_int_equal(w.jobs[1].id, 5);
    assert_int_equal(w.jobs[1].submit, 4000000); /* shifted by the first kept row, 10 s */
    assert_int_equal(w.ntenants, 1); /* names of skipped rows are not interned */
    dike_workload_free(&w);
    drop_tmp(path);

    /* A bad header is never skipped. */
    dike_workload_init(&w);
    path = write_tmp("job_id,tenant,submit,num_gpus,duration\n1,a,0,1,1\n");
    assert_int_equal(dike_trace_read_dike(path, &cl, true, &w, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, ":1: header: unknown column 'submit'"));
    drop_tmp(path);
}

/* Tenant interning stays correct across many growths of its index. */
static void test_many_tenants(void **state)
{
    dike_workload w;
    char name[32];
    dike_workload_init(&w);
    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < 5000; i++) {
            snprintf(name, sizeof name, "tenant-%u", i);
            assert_int_equal(dike_workload_tenant(&w, name), i);
        }
    }
    assert_int_equal(w.ntenants, 5000);
    assert_string_equal(w.tenants[4321], "tenant-4321");
    assert_int_equal(dike_workload_model(&w, "m"), 0);
    assert_int_equal(dike_workload_model(&w, "n"), 1);
    assert_int_equal(dike_workload_model(&w, "m"), 0);
    dike_workload_free(&w);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_trace),       cmocka_unit_test(test_crlf_trace),
        cmocka_unit_test(test_sha256_known_vector), cmocka_unit_test(test_missing_column),
        cmocka_unit_test(test_malformed_number), cmocka_unit_test(test_negative_submit),
        cmocka_unit_test(test_bad_duration),     cmocka_unit_test(test_gpus_above_cluster),
        cmocka_unit_test(test_duplicate_id),     cmocka_unit_test(test_unsorted),
        cmocka_unit_test(test_unknown_gpu_type), cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_missing_file),     cmocka_unit_test(test_empty),
        cmocka_unit_test(test_skip_invalid),     cmocka_unit_test(test_many_tenants),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
