/* From a trace to the replayed workload: windows (workload.first_job/last_job/start_s/end_s),
 * inter-arrival scaling (time_scale, trace_load), model-class assignment, and the statistics of
 * trace-info. All on the ten Philly jobs of tests/data/trace_philly-vc_head.csv (test_trace_philly.c
 * derives their times). After sorting, 1 GPU each:
 *   job     0       1       2       3       4       5       6       7       8       9
 *   submit  0  856940  857561  857671  857704  857781  857801  857851  860529  860603
 *   dur 860662   2859    2987    2951    2759    2775    2802    2766      64      66
 *   tenant 6c71a0, then 6214e9 for jobs 1-7, 11cb48 for 8-9. */
#include "tracetest.h"

#include <math.h>
#include <mpi.h>

#include "dike/rng.h"
#include "cli/trace_info.h"
#include "dike/throughput.h"

#define HEAD DIKE_TEST_DATA "/trace_philly-vc_head.csv"
#define ORIGIN 1506671912 /* trace time of job 0, s */

static const int64_t submit_s[10] = {0, 856940, 857561, 857671, 857704, 857781, 857801, 857851, 860529, 860603};

/* Load trace @p path through dike_workload_load with the given assignments on 1 node x 8 GPUs. */
static int load_path(const char *path, const char *const *extra, dike_workload *w, dike_err *e)
{
    char trace[600];
    snprintf(trace, sizeof trace, "workload.trace=%s", path);
    const char *sets[16] = {trace, "cluster.nodes=1"};
    size_t n = 2;
    for (size_t i = 0; extra && extra[i]; i++)
        sets[n++] = extra[i];
    sets[n] = NULL;
    dike_config c;
    dike_cluster cl;
    tt_config(&c, sets);
    if (dike_config_validate(&c, e))
        return e->code;
    assert_int_equal(dike_cluster_init(&cl, &c, NULL), 0);
    dike_workload_init(w);
    int rc = dike_workload_load(&c, &cl, w, e);
    dike_cluster_free(&cl);
    return rc;
}

/* The same with HEAD. */
static int load(const char *const *extra, dike_workload *w, dike_err *e)
{
    return load_path(HEAD, extra, w, e);
}

static void load_ok(const char *const *extra, dike_workload *w)
{
    dike_err e = {0};
    if (load(extra, w, &e))
        fail_msg("%s", e.msg);
}

static void test_window_by_index(void **state)
{
    dike_workload w;
    const char *const sets[] = {"workload.first_job=2", "workload.last_job=5", NULL};
    load_ok(sets, &w);
    assert_int_equal(w.njobs, 4);
    assert_int_equal(w.window_dropped, 6);
    assert_int_equal(w.time_offset, US(ORIGIN + 857561));
    for (int i = 0; i < 4; i++) {
        assert_int_equal(w.jobs[i].id, i + 2); /* ids stay those of the whole trace */
        assert_int_equal(w.jobs[i].submit, US(submit_s[i + 2] - 857561));
    }
    assert_int_equal(w.ntenants, 1); /* only 6214e9 is left */
    assert_string_equal(w.tenants[0], "6214e9");
    dike_workload_free(&w);
}

static void test_window_by_time(void **state)
{
    dike_workload w;
    /* [857000, 857800) holds jobs 2-5 */
    const char *const sets[] = {"workload.start_s=857000", "workload.end_s=857800", NULL};
    load_ok(sets, &w);
    assert_int_equal(w.njobs, 4);
    assert_int_equal(w.jobs[0].id, 2);
    assert_int_equal(w.jobs[3].id, 5);
    dike_workload_free(&w);
    /* both: index 0-8 and time >= 857800: jobs 6, 7, 8; the end is exclusive */
    const char *const both[] = {"workload.start_s=857801", "workload.last_job=8", NULL};
    load_ok(both, &w);
    assert_int_equal(w.njobs, 3);
    assert_int_equal(w.jobs[0].id, 6);
    assert_int_equal(w.jobs[2].id, 8);
    assert_int_equal(w.ntenants, 2);
    assert_string_equal(w.tenants[1], "11cb48");
    dike_workload_free(&w);
    const char *const edge[] = {"workload.start_s=857671", "workload.end_s=857704", NULL};
    load_ok(edge, &w);
    assert_int_equal(w.njobs, 1);
    assert_int_equal(w.jobs[0].id, 3);
    dike_workload_free(&w);

    dike_err e = {0};
    const char *const none[] = {"workload.start_s=860604", NULL};
    assert_int_equal(load(none, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, HEAD ": no job in the window (workload.first_job 0, last_job -1, start_s "
                               "860604, end_s 0) of its 10 jobs spanning 860603 s");
    const char *const order[] = {"workload.start_s=10", "workload.end_s=5", NULL};
    assert_int_equal(load(order, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[workload] end_s: 5 is not after workload.start_s 10 (0 = no end)");
    const char *const idx[] = {"workload.first_job=5", "workload.last_job=4", NULL};
    assert_int_equal(load(idx, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[workload] last_job: 4 is before workload.first_job 5 (-1 = the last job)");
}

static void test_time_scale(void **state)
{
    dike_workload w;
    const char *const half[] = {"workload.time_scale=0.5", NULL};
    load_ok(half, &w);
    assert_true(w.time_scale == 0.5);
    for (int i = 0; i < 10; i++)
        assert_int_equal(w.jobs[i].submit, US(submit_s[i]) / 2);
    assert_int_equal(w.jobs[0].duration, US(860662)); /* durations unchanged */
    dike_workload_free(&w);

    /* Offered load on 8 GPUs: sum of durations 880,691 GPU-s over a span of 860,603 s.
     * For load 0.25 the span must become 880,691 / (8 x 0.25) = 440,345.5 s. */
    load_ok(NULL, &w);
    tt_near(dike_workload_offered_load(&w, 8), 880691.0 / (8.0 * 860603.0), 1e-15);
    dike_workload_free(&w);
    const char *const quarter[] = {"workload.trace_load=0.25", NULL};
    load_ok(quarter, &w);
    assert_true(llabs(w.jobs[9].submit - 440345500000LL) <= 1);
    tt_near(dike_workload_offered_load(&w, 8), 0.25, 1e-9);
    tt_near(w.time_scale, 880691.0 / (8.0 * 860603.0) / 0.25, 1e-15);
    dike_workload_free(&w);

    dike_err e = {0};
    const char *const both[] = {"workload.trace_load=0.25", "workload.time_scale=2", NULL};
    assert_int_equal(load(both, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[workload] trace_load: set either trace_load or time_scale, not both "
                               "(got trace_load 0.25, time_scale 2)");
    /* values echoed as given: 0.3, not the 17 digits of the nearest double */
    const char *const tenth[] = {"workload.trace_load=0.3", "workload.time_scale=0.3", NULL};
    assert_int_equal(load(tenth, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[workload] trace_load: set either trace_load or time_scale, not both "
                               "(got trace_load 0.3, time_scale 0.3)");
    /* a single job has no inter-arrival time to scale */
    const char *const one[] = {"workload.trace_load=0.5", "workload.last_job=0", NULL};
    assert_int_equal(load(one, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[workload] trace_load: " HEAD " has no inter-arrival time to scale (all 1 "
                               "jobs submitted at once)");
}

static void test_model_assignment(void **state)
{
    dike_workload w, v;
    const char *const fixed[] = {"workload.model_assignment=resnet50-bs64", NULL};
    load_ok(fixed, &w);
    assert_int_equal(w.nmodels, 1);
    assert_string_equal(w.models[0], "resnet50-bs64");
    assert_int_equal(w.models_assigned, 10);
    for (int i = 0; i < 10; i++)
        assert_int_equal(w.jobs[i].model, 0);
    assert_non_null(w.model_class); /* bound to the table: v100 and a known class */
    assert_int_equal(w.model_class[0], dike_tput_class_find("resnet50-bs64"));
    dike_workload_free(&w);

    /* uniform: job id k draws from stream (seed, k, DIKE_STREAM_MODEL) among the classes measured
     * on one GPU (every class of the table), independently of the other jobs and of the window. */
    const char *const uni[] = {"workload.model_assignment=uniform", "run.seed=7", NULL};
    load_ok(uni, &w);
    assert_int_equal(w.models_assigned, 10);
    for (int i = 0; i < 10; i++) {
        dike_rng r;
        dike_rng_init(&r, 7, (uint64_t)i, DIKE_STREAM_MODEL);
        uint64_t k = dike_rng_below(&r, dike_tput_gavel_n);
        assert_string_equal(w.models[w.jobs[i].model], dike_tput_gavel[k].name);
    }
    const char *const uni_window[] = {"workload.model_assignment=uniform", "run.seed=7",
                                      "workload.first_job=4", NULL};
    load_ok(uni_window, &v);
    for (int i = 0; i < 6; i++)
        assert_string_equal(v.models[v.jobs[i].model], w.models[w.jobs[i + 4].model]);
    dike_workload_free(&v);
    dike_workload_free(&w);
    /* none leaves the jobs without class and the workload unbound */
    load_ok(NULL, &w);
    assert_int_equal(w.nmodels, 0);
    assert_null(w.model_class);
    dike_workload_free(&w);
    dike_config c;
    dike_err e = {0};
    dike_config_defaults(&c);
    assert_int_equal(dike_config_set(&c, "workload.model_assignment=bert", "test", &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "test 'workload.model_assignment=bert': [workload] model_assignment: must "
                               "be none, uniform or a model class of the throughput table "
                               "(docs/throughput.md, e.g. resnet50-bs64) (got 'bert')");
}

/* Demand with every job running from its submit: job 0 covers the whole span; jobs 1-7 overlap
 * from 857,851 (job 7's submit; job 1 ends at 859,799) to give 8 GPUs, the peak. Over [0, 860603]
 * the GPU-seconds are 860,603 (job 0) + 2,859 + 2,987 + (860,603 - 857,671) + 2,759 + 2,775
 * + 2,802 + (860,603 - 857,851) + 64 + 0 (job 9 starts at the end) = 880,533: mean 880,533 / 860,603.
 * Durations sorted: 64 66 2759 2766 2775 2802 2859 2951 2987 860662: mean 88,069.1; median
 * (2775 + 2802) / 2 = 2788.5; p99 (type 7): 2987 + 0.91 x (860662 - 2987) = 783,471.25. */
static void test_stats(void **state)
{
    dike_workload w;
    dike_trace_stats st;
    load_ok(NULL, &w);
    dike_trace_stats_compute(&w, 8, &st);
    assert_int_equal(st.jobs, 10);
    assert_int_equal(st.tenants, 3);
    tt_near(st.span_s, 860603, 1e-9);
    tt_near(st.gpu_seconds, 880691, 1e-6);
    tt_near(st.gpus_mean, 1, 0);
    assert_int_equal(st.gpus_max, 1);
    tt_near(st.dur_mean_s, 88069.1, 1e-6);
    tt_near(st.dur_p50_s, 2788.5, 1e-9);
    tt_near(st.dur_p99_s, 783471.25, 1e-6);
    tt_near(st.dur_max_s, 860662, 0);
    tt_near(st.peak_demand, 8, 0);
    tt_near(st.peak_demand_t_s, 857851, 0);
    tt_near(st.mean_demand, 880533.0 / 860603.0, 1e-12);
    tt_near(st.offered_load, 880691.0 / (8.0 * 860603.0), 1e-15);
    assert_int_equal(st.hist_jobs[0], 10);
    assert_int_equal(st.hist_jobs[1], 0);
    assert_int_equal(st.tenant_jobs[0], 1);
    assert_int_equal(st.tenant_jobs[1], 7);
    assert_int_equal(st.tenant_jobs[2], 2);
    tt_near(st.tenant_gpu_seconds[2], 64 + 66, 1e-9);
    dike_trace_stats_free(&st);
    dike_workload_free(&w);
}

/* GPU-count bins: 1 | 2 | 3-4 | 5-8 | 9-16 ...; ends before starts at the same time. */
static void test_stats_bins(void **state)
{
    dike_cluster cl;
    dike_workload w;
    dike_trace_stats st;
    tt_cluster(&cl, NULL);
    char *p = tt_write_tmp("job_id,tenant,submit_time,num_gpus,duration\n"
                           "0,a,0,1,10\n1,a,0,2,10\n2,a,10,3,10\n3,a,10,4,5\n4,a,20,5,1\n5,a,20,9,1\n");
    tt_read(p, "dike", &cl, false, &w);
    dike_trace_stats_compute(&w, 512, &st);
    assert_int_equal(st.hist_jobs[0], 1);
    assert_int_equal(st.hist_jobs[1], 1);
    assert_int_equal(st.hist_jobs[2], 2);
    assert_int_equal(st.hist_jobs[3], 1);
    assert_int_equal(st.hist_jobs[4], 1);
    tt_near(st.hist_gpu_seconds[2], 3 * 10 + 4 * 5, 1e-9);
    /* t=0..10: 3 GPUs; at 10 jobs 0-1 end and 2-3 start: 7 (not 10); at 15 job 3 ends: 3; at 20
     * job 2 ends and 4-5 start: 14. */
    tt_near(st.peak_demand, 14, 0);
    tt_near(st.peak_demand_t_s, 20, 0);
    /* mean over [0, 20]: 3 x 10 + 7 x 5 + 3 x 5 = 80 GPU-s, / 20 s */
    tt_near(st.mean_demand, 4, 1e-12);
    dike_trace_stats_free(&st);
    dike_workload_free(&w);
    tt_drop_tmp(p);
}

/* A row larger than the cluster matters only inside the window, and the window counts it: jobs
 * 0-3 below (one a line, lines 2-5, a minute apart) with job 1 asking for 16 GPUs of 8. */
static void test_window_too_large(void **state)
{
    char *p = tt_write_tmp("timestamp,duration,num_gpus,gpu_time,cluster\n"
                           "2017-10-09 07:00:00,100.0,1,100.0,a\n"
                           "2017-10-09 07:01:00,100.0,16,1600.0,b\n"
                           "2017-10-09 07:02:00,100.0,2,200.0,a\n"
                           "2017-10-09 07:03:00,100.0,4,400.0,c\n");
    char want[700];
    snprintf(want, sizeof want, "%s:3: field 'num_gpus': 16 GPUs requested, the cluster has 8", p);
    dike_workload w;
    dike_err e = {0};
    /* jobs 2-3: job 1 is outside, and it still counts as job 1 (the window does not depend on the
     * cluster); time starts at job 2, 120 s after job 0 */
    const char *const after[] = {"workload.first_job=2", NULL};
    if (load_path(p, after, &w, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.jobs[0].id, 2);
    assert_int_equal(w.jobs[0].num_gpus, 2);
    assert_int_equal(w.jobs[1].id, 3);
    assert_int_equal(w.jobs[1].num_gpus, 4);
    assert_int_equal(w.jobs[1].submit, US(60));
    assert_int_equal(w.window_dropped, 2);
    assert_int_equal(w.skipped, 0);
    assert_int_equal(w.ntenants, 2); /* a and c */
    dike_workload_free(&w);
    /* jobs 0-1: job 1 is inside, so the run stops with the message the read gives without a window */
    const char *const before[] = {"workload.last_job=1", NULL};
    assert_int_equal(load_path(p, before, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, want);
    assert_int_equal(w.njobs, 0); /* left empty */
    memset(&e, 0, sizeof e);
    assert_int_equal(load_path(p, NULL, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, want);
    /* jobs 1-3 with skip_invalid: job 1 is dropped and counted, as the read counts it; time
     * starts at job 2 */
    const char *const skip[] = {"workload.first_job=1", "workload.skip_invalid=true", NULL};
    if (load_path(p, skip, &w, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.jobs[0].id, 2);
    assert_int_equal(w.jobs[0].submit, 0);
    assert_int_equal(w.jobs[1].submit, US(60));
    assert_int_equal(w.window_dropped, 1);
    assert_int_equal(w.skipped, 1);
    assert_int_equal(w.skips[DIKE_SKIP_TOO_LARGE], 1);
    assert_string_equal(w.skip_msg[DIKE_SKIP_TOO_LARGE], want);
    assert_int_equal(w.ntenants, 2);
    dike_workload_free(&w);
    /* jobs 2-3 with skip_invalid: the same two jobs as without it, and job 1, outside the window,
     * is not counted as skipped (it is among the window's dropped) */
    const char *const skip_after[] = {"workload.first_job=2", "workload.skip_invalid=true", NULL};
    if (load_path(p, skip_after, &w, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(w.njobs, 2);
    assert_int_equal(w.jobs[0].id, 2);
    assert_int_equal(w.jobs[1].id, 3);
    assert_int_equal(w.window_dropped, 2);
    assert_int_equal(w.skipped, 0);
    dike_workload_free(&w);
    tt_drop_tmp(p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_by_index), cmocka_unit_test(test_window_by_time),
        cmocka_unit_test(test_time_scale),      cmocka_unit_test(test_model_assignment),
        cmocka_unit_test(test_stats),           cmocka_unit_test(test_stats_bins),
        cmocka_unit_test(test_window_too_large),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
