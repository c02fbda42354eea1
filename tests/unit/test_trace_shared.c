/* Integration: every real trace in ../shared/traces (DIKE_SHARED_DIR) is read in full, its counts
 * match what its SOURCE.txt states, and it replays end to end under fifo. Skipped, with a message,
 * when the folder is absent. */
#include "tracetest.h"

#include <mpi.h>

#include "dike/run.h"

#define TRACES DIKE_SHARED_DIR "/traces"

/* Skip the calling test, with the reason, when the real traces are not there. */
#define NEED_SHARED()                                                                             \
    do {                                                                                          \
        if (access(TRACES "/README.md", R_OK) != 0) {                                             \
            print_message("SKIP: %s not found: the real traces are not here (cmake "               \
                          "-DDIKE_SHARED_DIR=...)\n", TRACES);                                     \
            skip();                                                                               \
        }                                                                                         \
    } while (0)

static uint32_t tenant_jobs(const dike_workload *w, const char *name)
{
    uint32_t n = 0;
    for (size_t i = 0; i < w->njobs; i++)
        n += strcmp(w->tenants[w->jobs[i].tenant], name) == 0;
    return n;
}

static double gpu_hours(const dike_workload *w)
{
    double s = 0;
    for (size_t i = 0; i < w->njobs; i++)
        s += w->jobs[i].num_gpus * dike_time_to_s(w->jobs[i].duration);
    return s / 3600;
}

/* TitanSched/SOURCE.txt: 82,247 jobs, 15 VCs (6214e9 41,226 ... 795a4c 3), 2017-09-04..2017-12-22. */
static void test_titansched(void **state)
{
    NEED_SHARED();
    dike_cluster cl;
    dike_workload w, week;
    tt_cluster(&cl, NULL);
    tt_read(TRACES "/TitanSched/philly.csv", "auto", &cl, false, &w);
    assert_string_equal(w.format, "philly-vc");
    assert_int_equal(w.njobs, 82247);
    assert_int_equal(w.ntenants, 15);
    assert_int_equal(tenant_jobs(&w, "6214e9"), 41226);
    assert_int_equal(tenant_jobs(&w, "11cb48"), 16091);
    assert_int_equal(tenant_jobs(&w, "2869ce"), 422);
    assert_int_equal(tenant_jobs(&w, "795a4c"), 3);
    /* 2017-09-04 is day 17,413 since 1970; 2017-12-23 is day 17,523 */
    assert_true(w.time_offset >= US(17413LL * 86400) && w.time_offset < US(17414LL * 86400));
    assert_true(w.time_offset + w.jobs[w.njobs - 1].submit < US(17523LL * 86400));
    dike_workload_free(&w);

    /* The default experiment's week (experiments/data, converted by the former
     * tools/philly_to_dike.py with --window 4838400 5443200) is the same jobs as this reader's
     * window on the raw file. */
    dike_config c;
    dike_err e = {0};
    const char *const sets[] = {"workload.trace=" TRACES "/TitanSched/philly.csv", "workload.start_s=4838400",
                                "workload.end_s=5443200", NULL};
    tt_config(&c, sets);
    dike_workload_init(&w);
    if (dike_workload_load(&c, &cl, &w, &e))
        fail_msg("%s", e.msg);
    tt_read(DIKE_TEST_DATA "/../../experiments/data/philly-vc-week.csv", "dike", &cl, false, &week);
    assert_int_equal(w.njobs, 3829);
    assert_int_equal(week.njobs, 3829);
    assert_int_equal(w.ntenants, week.ntenants);
    for (size_t i = 0; i < w.njobs; i++) {
        assert_int_equal(w.jobs[i].submit, week.jobs[i].submit);
        assert_int_equal(w.jobs[i].duration, week.jobs[i].duration);
        assert_int_equal(w.jobs[i].num_gpus, week.jobs[i].num_gpus);
        assert_int_equal(w.jobs[i].tenant, week.jobs[i].tenant);
        assert_string_equal(w.tenants[w.jobs[i].tenant], week.tenants[week.jobs[i].tenant]);
    }
    dike_workload_free(&w);
    dike_workload_free(&week);
}

/* RFold/SOURCE.txt: philly_trace 111,549 jobs (ids 0..111548), 1..128 GPUs, ~3.62M GPU-hours,
 * 10 zero-duration jobs; crux 2,498 jobs, 1..744 GPUs, 241 zero-duration; alibaba_v2023 4,334 pods,
 * fractional sizes. */
static void test_rfold(void **state)
{
    NEED_SHARED();
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    tt_cluster(&cl, NULL);
    dike_workload_init(&w);
    assert_int_equal(dike_trace_read(TRACES "/RFold/philly_trace.csv", "auto", &cl, false, &w, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, ": field 'duration (sec)': must be > 0 (got '0.0')"));
    tt_read(TRACES "/RFold/philly_trace.csv", "auto", &cl, true, &w);
    assert_int_equal(w.njobs, 111549 - 10);
    assert_int_equal(w.skips[DIKE_SKIP_ZERO_DURATION], 10);
    assert_int_equal(w.skipped, 10);
    assert_int_equal(w.jobs[w.njobs - 1].id, 111548);
    tt_near(gpu_hours(&w), 3.62e6, 0.01e6);
    dike_workload_free(&w);

    const char *const big[] = {"cluster.nodes=93", NULL}; /* 744 GPUs */
    tt_cluster(&cl, big);
    tt_read(TRACES "/RFold/crux.csv", "auto", &cl, true, &w);
    assert_int_equal(w.njobs, 2498 - 241);
    assert_int_equal(w.skips[DIKE_SKIP_ZERO_DURATION], 241);
    assert_int_equal(w.skipped, 241);
    uint32_t max = 0;
    for (size_t i = 0; i < w.njobs; i++)
        max = w.jobs[i].num_gpus > max ? w.jobs[i].num_gpus : max;
    assert_int_equal(max, 744);
    dike_workload_free(&w);

    tt_cluster(&cl, NULL);
    tt_read(TRACES "/RFold/alibaba_v2023.csv", "auto", &cl, false, &w);
    assert_int_equal(w.njobs, 4334);
    assert_true(w.fractional > 0);
    dike_workload_free(&w);
}

/* elasticflow-traces/SOURCE.txt: 69,351 jobs in 10 files (c01 1595 ... c10 260), ~1.63M GPU-hours. */
static void test_elasticflow(void **state)
{
    NEED_SHARED();
    static const uint32_t per_file[10] = {1595, 5778, 3011, 15802, 3629, 2396, 12699, 13047, 11134, 260};
    dike_cluster cl;
    dike_workload w;
    tt_cluster(&cl, NULL);
    tt_read(TRACES "/elasticflow-traces", "auto", &cl, false, &w);
    assert_string_equal(w.format, "elasticflow");
    assert_int_equal(w.njobs, 69351);
    assert_int_equal(w.ntenants, 10);
    for (int f = 0; f < 10; f++) {
        char name[16];
        snprintf(name, sizeof name, "cluster%02d", f + 1);
        assert_int_equal(tenant_jobs(&w, name), per_file[f]);
    }
    tt_near(gpu_hours(&w), 1.63e6, 0.01e6);
    for (size_t i = 0; i < w.njobs; i++)
        assert_int_equal(w.jobs[i].id, (int64_t)i);
    dike_workload_free(&w);
}

/* Gen-Parallel-Workloads/SOURCE.txt: philly 15,000 jobs, 136 users, span ~57.6 days, GPUs 1..48;
 * helios 15,000 rows, 4,204 CPU-only (gpu_num 0), span ~20.2 days, GPUs up to 160. */
static void test_gen_parallel(void **state)
{
    NEED_SHARED();
    dike_cluster cl;
    dike_workload w;
    tt_cluster(&cl, NULL);
    tt_read(TRACES "/Gen-Parallel-Workloads/philly_data_training.csv", "auto", &cl, false, &w);
    assert_string_equal(w.format, "gen-parallel");
    assert_int_equal(w.njobs, 15000);
    assert_int_equal(w.ntenants, 136);
    assert_int_equal(w.no_gpu_rows, 0);
    tt_near(dike_time_to_s(w.jobs[w.njobs - 1].submit) / 86400, 57.6, 0.05);
    dike_workload_free(&w);
    tt_read(TRACES "/Gen-Parallel-Workloads/helios_data_training.csv", "auto", &cl, false, &w);
    assert_int_equal(w.njobs, 15000 - 4204);
    assert_int_equal(w.no_gpu_rows, 4204);
    tt_near(dike_time_to_s(w.jobs[w.njobs - 1].submit) / 86400, 20.2, 0.05);
    dike_workload_free(&w);
}

/* clusterdata/SOURCE.txt: 8,152 pods, 7,064 requesting GPUs, 3,078 fractional; 1,523 nodes of which
 * 1,213 have GPUs, 6,212 GPUs, 7 models. One GPU pod (openb-pod-7285, gpu_milli 230, Pending) has
 * deletion_time = creation_time: a zero-duration row, so 3,077 fractional pods stay. */
static void test_openb(void **state)
{
    NEED_SHARED();
    dike_cluster cl, gpu_only;
    dike_workload w;
    const char *const all[] = {"cluster.nodes_file=" TRACES "/clusterdata/openb_node_list_all_node.csv", NULL};
    const char *const gpu[] = {"cluster.nodes_file=" TRACES "/clusterdata/openb_node_list_gpu_node.csv", NULL};
    tt_cluster(&cl, all);
    tt_cluster(&gpu_only, gpu);
    assert_int_equal(cl.nodes, 1213);
    assert_int_equal(cl.total_gpus, 6212);
    assert_int_equal(cl.ntypes, 7);
    assert_int_equal(cl.gpus_per_node, 8);
    assert_int_equal(gpu_only.nodes, 1213);
    assert_int_equal(gpu_only.total_gpus, 6212);
    for (uint32_t n = 0; n < cl.nodes; n++)
        assert_int_equal(dike_cluster_node_gpus(&cl, n), dike_cluster_node_gpus(&gpu_only, n));
    dike_cluster_free(&gpu_only);
    tt_read(TRACES "/clusterdata/openb_pod_list_default.csv", "auto", &cl, true, &w);
    assert_string_equal(w.format, "openb");
    assert_int_equal(w.njobs, 7064 - 1);
    assert_int_equal(w.no_gpu_rows, 8152 - 7064);
    assert_int_equal(w.skips[DIKE_SKIP_ZERO_DURATION], 1);
    assert_int_equal(w.fractional, 3078 - 1);
    dike_workload_free(&w);
    dike_cluster_free(&cl);
}

/* Every trace through the engine under fifo: all jobs finish. */
static void test_replay_fifo(void **state)
{
    NEED_SHARED();
    static const char *const traces[][2] = {
        {"TitanSched/philly.csv", NULL},
        {"RFold/philly_trace.csv", NULL},
        {"RFold/crux.csv", NULL},
        {"RFold/alibaba_v2023.csv", NULL},
        {"elasticflow-traces", NULL},
        {"Gen-Parallel-Workloads/philly_data_training.csv", NULL},
        {"Gen-Parallel-Workloads/helios_data_training.csv", NULL},
        {"clusterdata/openb_pod_list_default.csv", "clusterdata/openb_node_list_all_node.csv"},
    };
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char trace[1024], nodes[1024] = "cluster.nodes_file=";
        snprintf(trace, sizeof trace, "workload.trace=%s/%s", TRACES, traces[i][0]);
        if (traces[i][1])
            snprintf(nodes, sizeof nodes, "cluster.nodes_file=%s/%s", TRACES, traces[i][1]);
        const char *const sets[] = {trace, nodes, "workload.skip_invalid=true", "scheduler.policy=fifo", NULL};
        dike_config c;
        dike_results r;
        dike_err e = {0};
        tt_config(&c, sets);
        double t0 = MPI_Wtime();
        if (dike_run(&c, MPI_COMM_WORLD, NULL, &r, NULL, &e))
            fail_msg("%s: %s", traces[i][0], e.msg);
        print_message("  %-48s %7llu jobs, %7llu finished, avg JCT %14.2f s, %.2f s\n", traces[i][0],
                      (unsigned long long)r.summary.jobs, (unsigned long long)r.summary.finished,
                      r.summary.avg_jct, MPI_Wtime() - t0);
        assert_true(r.summary.jobs > 0);
        assert_int_equal(r.summary.finished, r.summary.jobs);
        dike_results_free(&r);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_titansched),
        cmocka_unit_test(test_rfold),
        cmocka_unit_test(test_elasticflow),
        cmocka_unit_test(test_gen_parallel),
        cmocka_unit_test(test_openb),
        cmocka_unit_test(test_replay_fifo),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
