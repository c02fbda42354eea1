/* Configuration: defaults, INI files, --set, the resolved INI text, and one error per class with
 * file, line and key in the message. */
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

#include "dike/config.h"

/* Write @p text to a fresh temporary file; returns its path (free + unlink by the caller). */
static char *write_tmp(const char *text)
{
    char tmpl[] = "/tmp/dike-test-config-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return strdup(tmpl);
}

static void drop_tmp(char *path)
{
    unlink(path);
    free(path);
}

/* Load @p text as a config file over the defaults; expect failure and a message holding
 * "PATH:LINE: " and each of the given fragments. */
static void expect_file_error(const char *text, int line, const char *frag1, const char *frag2)
{
    dike_config c, before;
    dike_err e = {0};
    char *path = write_tmp(text), where[256];
    dike_config_defaults(&c);
    before = c;
    assert_int_equal(dike_config_load_file(&c, path, &e), DIKE_EINVAL);
    snprintf(where, sizeof where, "%s:%d: ", path, line);
    if (strncmp(e.msg, where, strlen(where)) != 0)
        fail_msg("message '%s' does not start with '%s'", e.msg, where);
    if (!strstr(e.msg, frag1) || (frag2 && !strstr(e.msg, frag2)))
        fail_msg("message '%s' lacks '%s' / '%s'", e.msg, frag1, frag2 ? frag2 : "");
    /* A file with an error changes nothing, not even the keys before the bad line. */
    assert_memory_equal(&c, &before, sizeof c);
    drop_tmp(path);
}

static void test_defaults(void **state)
{
    dike_config c;
    dike_config_defaults(&c);
    assert_int_equal(c.cluster_nodes, 64);
    assert_int_equal(c.cluster_gpus_per_node, 8);
    assert_int_equal(c.cluster_nodes_per_rack, 32);
    assert_string_equal(c.cluster_gpu_types, "");
    assert_string_equal(c.cluster_gpu_speeds, "");
    assert_true(c.cluster_locality_rack == 0.4246);
    assert_true(c.cluster_locality_cross_rack == 0.3821);
    assert_string_equal(c.workload_trace, "");
    assert_string_equal(c.workload_trace_format, "auto");
    assert_false(c.workload_skip_invalid);
    assert_int_equal(c.workload_jobs, 1000);
    assert_true(c.workload_load == 0.8);
    assert_int_equal(c.workload_tenants, 4);
    assert_true(c.workload_tenant_skew == 1.0);
    assert_true(c.workload_duration_median_s == 1800);
    assert_true(c.workload_duration_sigma == 1.8);
    assert_true(c.workload_duration_max_s == 1209600);
    assert_string_equal(c.workload_gpu_mix, "1:0.70,2:0.10,4:0.10,8:0.07,16:0.02,32:0.01");
    assert_string_equal(c.scheduler_policy, "fifo");
    assert_string_equal(c.scheduler_placement, "pack");
    assert_true(c.scheduler_round_s == 300);
    assert_true(c.scheduler_preemption_cost_s == 30);
    assert_false(c.scheduler_backfill);
    assert_string_equal(c.scheduler_duration_knowledge, "oracle");
    assert_true(c.scheduler_duration_error_sigma == 1.0);
    assert_int_equal(c.run_seed, 1);
    assert_string_equal(c.run_out, "dike-emu.h5");
    assert_true(c.output_timeseries_interval_s == 300);
    assert_int_equal(c.engine_window_actions, 65536);
    assert_string_equal(c.engine_coordinator_owns_nodes, "auto");
    assert_int_equal(dike_config_validate(&c, NULL), 0);
}

static void test_load_file(void **state)
{
    dike_config c;
    dike_err e = {0};
    dike_config_defaults(&c);
    int rc = dike_config_load_file(&c, DIKE_TEST_DATA "/config_basic.ini", &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(c.cluster_nodes, 16);
    assert_int_equal(c.cluster_gpus_per_node, 4);
    assert_string_equal(c.cluster_gpu_types, "v100:8, a100:8");
    assert_string_equal(c.cluster_gpu_speeds, "a100:2.5");
    assert_true(c.cluster_locality_rack == 0.5);
    assert_true(c.workload_skip_invalid); /* "yes", indented, with an inline comment */
    assert_true(c.workload_load == 1.25);
    assert_string_equal(c.scheduler_policy, "dike");
    assert_true(c.scheduler_backfill);
    assert_true(c.scheduler_preemption_cost_s == 0);
    /* untouched keys keep their defaults */
    assert_int_equal(c.cluster_nodes_per_rack, 32);
    assert_int_equal(c.workload_jobs, 1000);
    assert_int_equal(dike_config_validate(&c, NULL), 0);
}

static void test_set(void **state)
{
    dike_config c;
    dike_err e = {0};
    dike_config_defaults(&c);
    assert_int_equal(dike_config_set(&c, "cluster.nodes=128", "--set", &e), 0);
    assert_int_equal(c.cluster_nodes, 128);
    assert_int_equal(dike_config_set(&c, " workload.trace = /data/my trace.csv ", "--set", &e), 0);
    assert_string_equal(c.workload_trace, "/data/my trace.csv");
    assert_int_equal(dike_config_set(&c, "scheduler.backfill=TRUE", "--set", &e), 0);
    assert_true(c.scheduler_backfill);
    assert_int_equal(dike_config_set(&c, "cluster.gpu_types=", "--set", &e), 0);
    assert_string_equal(c.cluster_gpu_types, "");

    assert_int_equal(dike_config_set(&c, "cluster.nodes=abc", "--set", &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "--set 'cluster.nodes=abc': [cluster] nodes: not an integer (got 'abc')");
    assert_int_equal(c.cluster_nodes, 128); /* unchanged */
    assert_int_equal(dike_config_set(&c, "nodes=4", "--set", &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "--set 'nodes=4': expected section.key=value");
    assert_int_equal(dike_config_set(&c, "cluster.nodes", "--set", &e), DIKE_EINVAL);
    assert_int_equal(dike_config_set(&c, "cluster.nodez=4", "--set", &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[cluster] nodez: unknown key"));
    assert_int_equal(dike_config_set(&c, "policy.fairness=4", "--set", &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[policy] fairness: unknown section"));
}

static void test_number_and_range_errors(void **state)
{
    static const struct {
        const char *assignment, *reason;
    } cases[] = {
        {"workload.load=nan", "not a finite number"},
        {"workload.load=inf", "not a finite number"},
        {"workload.load=1e999", "not a finite number"},
        {"workload.load=", "empty value"},
        {"workload.load=0.5x", "not a number"},
        {"workload.load=0", "must be > 0"},
        {"cluster.nodes=99999999999999999999", "integer out of range"},
        {"cluster.nodes=0", "must be in [1, 4194304]"},
        {"cluster.nodes=1.5", "not an integer"},
        {"cluster.locality_rack=0", "must be in (0, 1]"},
        {"cluster.locality_rack=1.01", "must be in (0, 1]"},
        {"scheduler.round_s=-1", "must be in [1e-06, 1000000000] (the emulator counts time in whole microseconds)"},
        {"scheduler.backfill=maybe", "not a boolean"},
        {"cluster.gpu_types=v100", "entry 1 'v100' is not type:nodes"},
        {"cluster.gpu_types=v100:2,v100:2", "type 'v100' listed twice"},
        {"workload.gpu_mix=1:0.5,x:1", "GPU count must be an integer"},
        {"workload.gpu_mix=1:0", "weights sum to 0"},
        {"engine.coordinator_owns_nodes=yes", "must be auto, true or false"},
        {"scheduler.policy=", "must not be empty"},
        {"run.out=a ;b", "starts a comment"},
        {"scheduler.duration_knowledge=oracel", "must be oracle, noisy or none"},
        {"scheduler.duration_knowledge=", "must be oracle, noisy or none"},
        {"scheduler.duration_error_sigma=-0.1", "must be in [0, 10]"},
        {"scheduler.duration_error_sigma=inf", "not a finite number"},
        {"scheduler.duration_error_sigma=nan", "not a finite number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dike_config c;
        dike_err e = {0};
        dike_config_defaults(&c);
        int rc = dike_config_set(&c, cases[i].assignment, "--set", &e);
        if (rc != DIKE_EINVAL || !strstr(e.msg, cases[i].reason))
            fail_msg("%s: rc %d, message '%s', expected '%s'", cases[i].assignment, rc, e.msg,
                     cases[i].reason);
    }
}

static void test_to_ini_round_trip(void **state)
{
    dike_config c, back;
    dike_err e = {0};
    dike_config_defaults(&c);
    assert_int_equal(dike_config_set(&c, "workload.load=0.30000000000000004", "--set", &e), 0);
    assert_int_equal(dike_config_set(&c, "workload.tenant_skew=0.3333333333333333", "--set", &e), 0);
    assert_int_equal(dike_config_set(&c, "workload.duration_sigma=1e-300", "--set", &e), 0);
    assert_int_equal(dike_config_set(&c, "run.seed=9007199254740993", "--set", &e), 0);
    assert_int_equal(dike_config_set(&c, "cluster.gpu_types=k80:10,v100:54", "--set", &e), 0);
    assert_int_equal(dike_config_set(&c, "workload.trace=/tmp/a b.csv", "--set", &e), 0);
    assert_int_equal(dike_config_set(&c, "scheduler.backfill=on", "--set", &e), 0);
    assert_int_equal(dike_config_set(&c, "run.out=", "--set", &e), 0);

    char *text = dike_config_to_ini(&c);
    assert_non_null(strstr(text, "[cluster]\nnodes = 64\n"));
    assert_non_null(strstr(text, "\nlocality_rack = 0.4246\n"));
    assert_non_null(strstr(text, "\ngpu_speeds =\n"));
    assert_non_null(strstr(text, "\nduration_sigma = 1e-300\n"));
    assert_non_null(strstr(text, "\nload = 0.30000000000000004\n"));
    assert_non_null(strstr(text, "\nbackfill = true\n"));
    assert_non_null(strstr(text, "\n[engine]\n"));

    char *path = write_tmp(text);
    dike_config_defaults(&back);
    int rc = dike_config_load_file(&back, path, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_memory_equal(&c, &back, DIKE_CONFIG_KEY_BYTES); /* the rest records where values came from */
    char *again = dike_config_to_ini(&back);
    assert_string_equal(text, again);
    free(again);
    free(text);
    drop_tmp(path);
}

static void test_file_errors(void **state)
{
    expect_file_error("[cluster]\nnodes = 4\nnodez = 5\n", 3, "[cluster] nodez: unknown key", "nodes,");
    expect_file_error("[cluster]\nnodes = 4\n\n[clutser]\nnodes = 4\n", 5,
                      "[clutser] nodes: unknown section", NULL);
    expect_file_error("# comment\n[cluster]\nnodes = 12x\n", 3,
                      "[cluster] nodes: not an integer (got '12x')", NULL);
    expect_file_error("[scheduler]\nround_s = 60\nbackfill = maybe\n", 3, "[scheduler] backfill: not a boolean",
                      "(got 'maybe')");
    expect_file_error("[scheduler]\nround_s = 60\npreemption_cost_s = -5\n", 3,
                      "[scheduler] preemption_cost_s: must be in [0, ", "(got '-5')");
    expect_file_error("[scheduler]\npolicy = sjf\nduration_knowledge = perfect\n", 3,
                      "[scheduler] duration_knowledge: must be oracle, noisy or none", "(got 'perfect')");
    expect_file_error("[scheduler]\nduration_knowledge = noisy\n\nduration_error_sigma = -1\n", 4,
                      "[scheduler] duration_error_sigma: must be in [0, 10]", "(got '-1')");
    expect_file_error("[cluster]\r\nnodes = 4\r\ngpus_per_node 8\r\n", 3, "syntax error", NULL);
    expect_file_error("nodes = 4\n", 1, "key outside any [section]", NULL);
    /* The first error wins: an unparsable line before a bad value. */
    expect_file_error("[cluster]\nnodes\nnodes = x\n", 2, "syntax error", NULL);
}

/* inih reads lines of at most 198 characters. A longer `key = value` line is assigned as inih
 * would (the resolved text of a configuration writes absolute paths and "key = value", so it can
 * be longer than the file it came from, and must read back); any other long line is an error. */
static void test_long_line(void **state)
{
    char text[400], want[320];
    snprintf(want, sizeof want, "/%0300d", 0); /* "/" and 300 zeros */
    snprintf(text, sizeof text, "[workload]\ntrace = %s ; a comment\nload = 0.5\n", want);
    char *path = write_tmp(text);
    dike_config c;
    dike_err e = {0};
    dike_config_defaults(&c);
    if (dike_config_load_file(&c, path, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(c.workload_trace, want);
    assert_true(c.workload_load == 0.5);
    drop_tmp(path);
    /* The resolved text of that configuration (a 309-character trace line) reads back the same. */
    char *ini = dike_config_to_ini(&c);
    path = write_tmp(ini);
    dike_config back;
    dike_config_defaults(&back);
    if (dike_config_load_file(&back, path, &e))
        fail_msg("%s", e.msg);
    char *again = dike_config_to_ini(&back);
    assert_string_equal(ini, again);
    free(again);
    free(ini);
    drop_tmp(path);
    /* A long line is checked like any other, at its own line number. */
    snprintf(text, sizeof text, "[workload]\nload = 0.5\ntrcae = %s\n", want);
    expect_file_error(text, 3, "[workload] trcae: unknown key", NULL);
    /* A long line that is not `key = value` is still refused. */
    snprintf(text, sizeof text, "[workload]\n%0300d\n", 0);
    expect_file_error(text, 2, "line longer than", NULL);
}

static void test_nul_byte(void **state)
{
    static const char text[] = "[cluster]\nnodes = 4\0junk\n";
    dike_config c;
    dike_err e = {0};
    char tmpl[] = "/tmp/dike-test-config-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    dike_config_defaults(&c);
    assert_int_equal(dike_config_load_file(&c, tmpl, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, ":2: contains a NUL byte"));
    unlink(tmpl);
}

static void test_missing_file(void **state)
{
    dike_config c;
    dike_err e = {0};
    dike_config_defaults(&c);
    assert_int_equal(dike_config_load_file(&c, "/nonexistent/dike.ini", &e), DIKE_EIO);
    assert_string_equal(e.msg, "/nonexistent/dike.ini: cannot open: No such file or directory");
}

static void test_validate(void **state)
{
    dike_config c;
    dike_err e = {0};
    dike_config_defaults(&c);
    strcpy(c.cluster_gpu_types, "v100:32,a100:28");
    assert_int_equal(dike_config_validate(&c, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[cluster] gpu_types: node counts sum to 60, cluster.nodes is 64");

    dike_config_defaults(&c);
    strcpy(c.cluster_gpu_speeds, "a100:2");
    assert_int_equal(dike_config_validate(&c, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[cluster] gpu_speeds: type 'a100'"));
    strcpy(c.cluster_gpu_speeds, "v100:2"); /* the implicit type of an empty gpu_types */
    assert_int_equal(dike_config_validate(&c, &e), 0);

    dike_config_defaults(&c);
    c.workload_duration_median_s = 2e6;
    assert_int_equal(dike_config_validate(&c, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[workload] duration_median_s"));

    /* Fields set directly, bypassing the parser, are range-checked too. */
    dike_config_defaults(&c);
    c.cluster_locality_cross_rack = 0;
    assert_int_equal(dike_config_validate(&c, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[cluster] locality_cross_rack: must be in (0, 1] (got '0')");
}

static void test_reference(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dike_config_print_reference(f);
    fclose(f);
    assert_true(strncmp(buf, "| section | key | default | description |\n|---|---|---|---|\n", 59) == 0);
    assert_non_null(strstr(buf, "\n| cluster | nodes | `64` | number of nodes |\n"));
    assert_non_null(strstr(buf, "\n| workload | trace | `\"\"` |"));
    assert_non_null(strstr(buf, "\n| engine | coordinator_owns_nodes | `auto` |"));
    free(buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_number_and_range_errors),
        cmocka_unit_test(test_to_ini_round_trip),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_reference),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
