/* Metrics over a window (metrics.window): parsing, bad values, and the window's summary on four
 * jobs worked out by hand; a window holding the whole run gives the whole-run summary. */
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
#include "dike/metrics.h"
#include "scenario.h"

#define EPS 1e-9

/* ---- parsing ---- */

static void test_parse_good(void **st)
{
    dike_window w;
    char why[256];
    assert_int_equal(dike_window_parse("", &w, why, sizeof why), 0);
    assert_int_equal(w.kind, DIKE_WINDOW_NONE);
    assert_int_equal(dike_window_parse("jobs:2-3", &w, why, sizeof why), 0);
    assert_int_equal(w.kind, DIKE_WINDOW_JOBS);
    assert_int_equal(w.first_id, 2);
    assert_int_equal(w.last_id, 3);
    assert_int_equal(dike_window_parse("jobs:7-7", &w, why, sizeof why), 0); /* one job */
    assert_int_equal(dike_window_parse("time:172800-604800", &w, why, sizeof why), 0);
    assert_int_equal(w.kind, DIKE_WINDOW_TIME);
    assert_float_equal(w.t0, 172800, 0);
    assert_float_equal(w.t1, 604800, 0);
    /* the '-' of an exponent is not the separator */
    assert_int_equal(dike_window_parse("time:1e-3-2.5e2", &w, why, sizeof why), 0);
    assert_float_equal(w.t0, 1e-3, 0);
    assert_float_equal(w.t1, 250, 0);
}

static void expect_bad(const char *v, const char *reason)
{
    dike_window w;
    char why[256] = "";
    assert_int_equal(dike_window_parse(v, &w, why, sizeof why), DIKE_EINVAL);
    if (!strstr(why, reason))
        fail_msg("'%s': reason '%s' lacks '%s'", v, why, reason);
}

static void test_parse_bad(void **st)
{
    expect_bad("jobs", "expected jobs:FIRST-LAST");
    expect_bad("ids:1-2", "expected jobs:FIRST-LAST");
    expect_bad("jobs:12", "two bounds");
    expect_bad("jobs:", "two bounds");
    expect_bad("time:-", "two bounds");
    expect_bad("jobs:3-", "integers >= 0");
    expect_bad("jobs:-1-5", "integers >= 0"); /* bounds "-1" and "5" */
    expect_bad("jobs:1.5-3", "integers >= 0");
    expect_bad("jobs:1-x", "integers >= 0");
    expect_bad("jobs: 1-3", "integers >= 0");
    expect_bad("jobs:5-4", "before the first");
    expect_bad("time:10-10", "T1 must be after T0");
    expect_bad("time:nan-10", "finite numbers");
    expect_bad("time:0-inf", "finite numbers");
    expect_bad("time:0x10-20", "finite numbers");
    expect_bad("time:0-2e9", "at most 1e9");
}

/* A bad value stops the configuration with the file, line, key and value. */
static void test_config_message(void **st)
{
    char path[] = "/tmp/dike-window-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("[scheduler]\npolicy = fifo\n[metrics]\nwindow = jobs:9-3\n", f);
    fclose(f);
    dike_config c;
    dike_err e = {0};
    dike_config_defaults(&c);
    assert_int_equal(dike_config_load_file(&c, path, &e), DIKE_EINVAL);
    char want[512];
    snprintf(want, sizeof want, "%s:4: [metrics] window: the last job id is before the first (got 'jobs:9-3')",
             path);
    assert_string_equal(e.msg, want);
    assert_string_equal(c.metrics_window, ""); /* a file with an error changes nothing */
    unlink(path);

    assert_int_equal(dike_config_set(&c, "metrics.window=time:5-1", "--set", &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "--set 'metrics.window=time:5-1': [metrics] window: T1 must be after T0"));
    assert_int_equal(dike_config_set(&c, "metrics.window=time:0-86400", "--set", &e), 0);
    assert_string_equal(c.metrics_window, "time:0-86400");
}

/* ---- the window's summary, by hand ----
 *
 * Four jobs on G = 8 GPUs (ids 1-4; tenants a = 0, b = 1):
 *   J1 a: submit 0,  runs [0,100]                 4 GPUs, duration 100, t_ideal 100, JCT 100
 *   J2 a: submit 20, runs [20,60]                 2 GPUs, duration 20 (runs at rate 0.5),
 *                                                 t_ideal 32, JCT 40, rho 1.25
 *   J3 b: submit 40, runs [60,160]                4 GPUs, duration 100, t_ideal 80, JCT 120, rho 1.5
 *   J4 b: submit 50, runs [50,60], then (a node failure at 60, 10 GPU-s of progress lost) [100,130]:
 *                                                 2 GPUs, duration 30, run_time 40, t_ideal 40,
 *                                                 JCT 80, rho 2
 * Busy GPUs: 4 on [0,20), 6 on [20,50), 8 on [50,100), 6 on [100,130), 4 on [130,160]. */
static void four_jobs(dike_job_record j[4], dike_tenant_record t[2])
{
    memset(j, 0, 4 * sizeof *j);
    memset(t, 0, 2 * sizeof *t);
    /*                id  ten gpu submit start finish dur  t_ideal run */
    const double v[4][8] = {{1, 0, 4, 0, 0, 100, 100, 100},
                            {2, 0, 2, 20, 20, 60, 20, 32},
                            {3, 1, 4, 40, 60, 160, 100, 80},
                            {4, 1, 2, 50, 50, 130, 30, 40}};
    const double run[4] = {100, 40, 100, 40};
    for (int i = 0; i < 4; i++) {
        j[i].job_id = (int64_t)v[i][0];
        j[i].tenant = (uint32_t)v[i][1];
        j[i].num_gpus = (uint32_t)v[i][2];
        j[i].submit_time = v[i][3];
        j[i].start_time = v[i][4];
        j[i].finish_time = v[i][5];
        j[i].duration = v[i][6];
        j[i].t_ideal = v[i][7];
        j[i].jct = j[i].finish_time - j[i].submit_time;
        j[i].queue_delay = j[i].start_time - j[i].submit_time;
        j[i].rho = j[i].jct / j[i].t_ideal;
        j[i].run_time = run[i];
    }
    j[3].restarts = 1;
    j[3].lost_work = 10;
    for (uint32_t k = 0; k < 2; k++) {
        t[k].tenant = k;
        snprintf(t[k].name, sizeof t[k].name, "%s", k ? "b" : "a");
        t[k].weight = 1;
        t[k].weight_share = 0.5;
        t[k].entitlement = 99; /* whole-run only: must not reach the window's rows */
    }
}

/* jobs:2-3 counts J2 and J3. JCTs 40, 120: mean 80, p50 80, p95 40 + 0.95 x 80 = 116,
 * p99 40 + 0.99 x 80 = 119.2; makespan 160 - 20 = 140; queue delays 0, 20: mean 10;
 * rho 1.25, 1.5: mean 1.375, p99 1.25 + 0.99 x 0.25 = 1.4975, max 1.5, both unfair.
 * Jain: x_a = 32/40 = 4/5, x_b = 80/120 = 2/3; (22/15)^2 / (2 (16/25 + 4/9)) = 484/488 = 121/122.
 * Span: the counted submits, [20, 40]. Inside: J1 4 x 20 = 80, J2 2 x 20 = 40 (J3 starts at 60,
 * J4 at 50): 120 GPU-s, utilisation 120 / (8 x 20) = 0.75, all of it exact (both ran once).
 * Useful work inside: J1 400 x 20/100 = 80, J2 2 x 20 = 40 spread over its 40 s: 20; 100 / 160.
 * Goodput over the counted jobs: no lost work, 1. */
static void test_window_jobs(void **st)
{
    dike_job_record j[4];
    dike_tenant_record t[2], wt[2];
    four_jobs(j, t);
    dike_window w = {.kind = DIKE_WINDOW_JOBS, .first_id = 2, .last_id = 3};
    dike_summary s;
    dike_window_info info;
    dike_summarize_window(j, 4, t, 2, 8, NULL, &w, &s, &info, wt);
    assert_int_equal(s.jobs, 2);
    assert_int_equal(s.finished, 2);
    assert_float_equal(s.avg_jct, 80, EPS);
    assert_float_equal(s.p50_jct, 80, EPS);
    assert_float_equal(s.p95_jct, 116, EPS);
    assert_float_equal(s.p99_jct, 119.2, EPS);
    assert_float_equal(s.makespan, 140, EPS);
    assert_float_equal(s.avg_queue_delay, 10, EPS);
    assert_float_equal(s.mean_rho, 1.375, EPS);
    assert_float_equal(s.p99_rho, 1.4975, EPS);
    assert_float_equal(s.max_rho, 1.5, EPS);
    assert_float_equal(s.unfair_fraction, 1.0, EPS);
    assert_float_equal(s.jain, 121.0 / 122.0, EPS);
    assert_float_equal(info.span_start, 20, EPS);
    assert_float_equal(info.span_end, 40, EPS);
    assert_float_equal(s.allocated_gpu_seconds, 120, EPS);
    assert_float_equal(s.utilization, 0.75, EPS);
    assert_float_equal(s.effective_utilization, 100.0 / 160.0, EPS);
    assert_float_equal(info.apportioned_gpu_seconds, 0, EPS);
    assert_int_equal(s.restarts, 0);
    assert_float_equal(s.lost_work, 0, EPS);
    assert_float_equal(s.goodput, 1.0, EPS);
    /* per tenant: a counts J2 only, b J3 only; GPU-seconds inside [20, 40]: a 80 + 40, b 0 */
    assert_int_equal(wt[0].jobs, 1);
    assert_int_equal(wt[1].jobs, 1);
    assert_float_equal(wt[0].avg_jct, 40, EPS);
    assert_float_equal(wt[1].mean_rho, 1.5, EPS);
    assert_float_equal(wt[0].fairness_ratio, 0.8, EPS);
    assert_float_equal(wt[0].gpu_seconds, 120, EPS);
    assert_float_equal(wt[1].gpu_seconds, 0, EPS);
    assert_float_equal(wt[0].avg_gpus, 6, EPS); /* 120 GPU-s over 20 s */
    assert_float_equal(wt[0].gpu_share, 1, EPS);
    assert_float_equal(wt[0].entitlement, 0, 0);
    assert_string_equal(wt[1].name, "b");
}

/* time:40-110 counts the jobs submitted in [40, 110): J3 and J4. JCTs 120, 80: mean 100;
 * makespan 160 - 40 = 120; queue delays 20, 0: mean 10; rho 1.5, 2: mean 1.75,
 * p99 1.5 + 0.99 x 0.5 = 1.995, max 2; only tenant b has counted jobs: Jain 1.
 * Restarts 1, lost work 10 GPU-s; goodput 1 - 10 / (4 x 100 + 2 x 40) = 1 - 10/480.
 * Span [40, 110], 70 s. Inside: J1 4 x 60 = 240 and J3 4 x 50 = 200 (one run each, exact),
 * J2 2 x 20 = 40 (inside [40, 60], exact): 480 exact. J4 restarted and straddles 110; without
 * /timeseries samples its 80 GPU-s are spread over [50, 130], 60 of those 80 s are inside:
 * 80 x 60/80 = 60, apportioned (it really held 2 x 20 = 40 inside). 540 GPU-s: utilisation
 * 540 / (8 x 70). Useful work inside: J1 400 x 60/100 = 240, J2 40 x 20/40 = 20,
 * J3 400 x 50/100 = 200, J4 60 x 60/80 = 45: 505 / 560. */
static void test_window_time(void **st)
{
    dike_job_record j[4];
    dike_tenant_record t[2], wt[2];
    four_jobs(j, t);
    dike_window w = {.kind = DIKE_WINDOW_TIME, .t0 = 40, .t1 = 110};
    dike_summary s;
    dike_window_info info;
    dike_summarize_window(j, 4, t, 2, 8, NULL, &w, &s, &info, wt);
    assert_int_equal(s.jobs, 2);
    assert_float_equal(s.avg_jct, 100, EPS);
    assert_float_equal(s.makespan, 120, EPS);
    assert_float_equal(s.avg_queue_delay, 10, EPS);
    assert_float_equal(s.mean_rho, 1.75, EPS);
    assert_float_equal(s.p99_rho, 1.995, EPS);
    assert_float_equal(s.max_rho, 2, EPS);
    assert_float_equal(s.unfair_fraction, 1, EPS);
    assert_float_equal(s.jain, 1, EPS);
    assert_int_equal(s.restarts, 1);
    assert_float_equal(s.lost_work, 10, EPS);
    assert_float_equal(s.goodput, 1 - 10.0 / 480.0, EPS);
    assert_float_equal(info.span_start, 40, EPS);
    assert_float_equal(info.span_end, 110, EPS);
    assert_float_equal(s.allocated_gpu_seconds, 540, EPS);
    assert_float_equal(s.utilization, 540.0 / 560.0, EPS);
    assert_float_equal(info.apportioned_gpu_seconds, 60, EPS);
    assert_float_equal(s.effective_utilization, 505.0 / 560.0, EPS);
    assert_int_equal(wt[0].jobs, 0);
    assert_int_equal(wt[0].finished, 0);
    assert_float_equal(wt[0].gpu_seconds, 280, EPS);           /* J1 240 + J2 40 */
    assert_float_equal(wt[1].gpu_seconds, 260, EPS);           /* J3 200 + J4 60 */
    assert_float_equal(wt[1].avg_gpus, 260.0 / 70.0, EPS);
    assert_float_equal(wt[1].gpu_share, 260.0 / 540.0, EPS);
    assert_float_equal(wt[1].fairness_ratio, 120.0 / 200.0, EPS); /* (80 + 40) / (120 + 80) */
}

/* The samples of the four jobs' busy GPUs every 10 s: the sample at t holds the state just before
 * t (as the engine samples), i.e. over [t - 10, t): 4 on [0,20), 6 on [20,50), 8 on [50,100),
 * 6 on [100,130), 4 on [130,160). @p scale multiplies every value (to test the bounds). */
static void four_jobs_series(dike_timeseries *ts, double scale)
{
    static const unsigned busy[17] = {0, 4, 4, 6, 6, 6, 8, 8, 8, 8, 8, 6, 6, 6, 4, 4, 4};
    dike_timeseries_init(ts, 2);
    for (int k = 0; k <= 16; k++)
        dike_timeseries_push(ts, 10.0 * k, (uint32_t)(busy[k] * scale), 0, 0);
}

/* time:40-110 again, with the samples. Busy GPU-seconds inside [40, 110): samples 50..110,
 * (6 + 8 + 8 + 8 + 8 + 8 + 6) x 10 = 520; the exact part is 480, so J4 gets 40, within its bounds
 * (at least 80 - 2 x 20 = 40 since only 20 of its 80 s lie outside; at most min(80, 2 x 60)):
 * the true 40. Utilisation 520 / 560; J4's useful work scaled by 40/60: 45 x 2/3 = 30, so
 * effective (240 + 20 + 200 + 30) / 560; tenant b 200 + 40 = 240.
 * Samples twice as high (1040 inside) would give J4 1040 - 480 = 560: clamped to its upper bound 80;
 * samples that say 0 would give -480: clamped to its lower bound 40. */
static void test_window_time_series(void **st)
{
    dike_job_record j[4];
    dike_tenant_record t[2], wt[2];
    four_jobs(j, t);
    dike_window w = {.kind = DIKE_WINDOW_TIME, .t0 = 40, .t1 = 110};
    dike_summary s;
    dike_window_info info;
    dike_timeseries ts;
    four_jobs_series(&ts, 1);
    dike_summarize_window(j, 4, t, 2, 8, &ts, &w, &s, &info, wt);
    dike_timeseries_free(&ts);
    assert_float_equal(s.allocated_gpu_seconds, 520, EPS);
    assert_float_equal(s.utilization, 520.0 / 560.0, EPS);
    assert_float_equal(info.apportioned_gpu_seconds, 40, EPS);
    assert_float_equal(s.effective_utilization, 490.0 / 560.0, EPS);
    assert_float_equal(wt[0].gpu_seconds, 280, EPS);
    assert_float_equal(wt[1].gpu_seconds, 240, EPS);
    assert_float_equal(wt[1].gpu_share, 240.0 / 520.0, EPS);
    assert_float_equal(s.avg_jct, 100, EPS); /* job metrics do not use the samples */

    four_jobs_series(&ts, 2);
    dike_summarize_window(j, 4, t, 2, 8, &ts, &w, &s, &info, NULL);
    dike_timeseries_free(&ts);
    assert_float_equal(info.apportioned_gpu_seconds, 80, EPS);
    assert_float_equal(s.allocated_gpu_seconds, 560, EPS);

    four_jobs_series(&ts, 0);
    dike_summarize_window(j, 4, t, 2, 8, &ts, &w, &s, &info, NULL);
    dike_timeseries_free(&ts);
    assert_float_equal(info.apportioned_gpu_seconds, 40, EPS);
    assert_float_equal(s.allocated_gpu_seconds, 520, EPS);

    /* time:20-60: the sample at t stands for [t - 10, t), so [20, 60) is samples 30..60:
     * (6 + 6 + 6 + 8) x 10 = 260 (taking the samples at 20..50 instead would give 220). Exact:
     * J1 4 x 40 + J2 2 x 40 = 240; J4 ([50, 130], 10 s inside) gets 20, the 2 x 10 it held. */
    dike_window early = {.kind = DIKE_WINDOW_TIME, .t0 = 20, .t1 = 60};
    four_jobs_series(&ts, 1);
    dike_summarize_window(j, 4, t, 2, 8, &ts, &early, &s, &info, NULL);
    dike_timeseries_free(&ts);
    assert_float_equal(s.allocated_gpu_seconds, 260, EPS);
    assert_float_equal(info.apportioned_gpu_seconds, 20, EPS);
}

/* A window past the last submit counts nothing; a time window past the run is clipped to it. */
static void test_window_edges(void **st)
{
    dike_job_record j[4];
    dike_tenant_record t[2];
    four_jobs(j, t);
    dike_summary s;
    dike_window_info info;
    dike_window none = {.kind = DIKE_WINDOW_JOBS, .first_id = 100, .last_id = 200};
    dike_summarize_window(j, 4, t, 2, 8, NULL, &none, &s, &info, NULL);
    assert_int_equal(s.jobs, 0);
    assert_int_equal(s.finished, 0);
    assert_float_equal(s.avg_jct, 0, 0);
    assert_float_equal(s.utilization, 0, 0);
    assert_float_equal(s.jain, 1, 0);
    assert_float_equal(info.span_end - info.span_start, 0, 0);
    /* time:100-1000: J1..J4 were all submitted before 100; the span [100, 160] is the run's end. */
    dike_window late = {.kind = DIKE_WINDOW_TIME, .t0 = 100, .t1 = 1000};
    dike_summarize_window(j, 4, t, 2, 8, NULL, &late, &s, &info, NULL);
    assert_int_equal(s.jobs, 0);
    assert_float_equal(info.span_end, 160, EPS);
    /* inside [100, 160]: J3 4 x 60 = 240; J4 (restarted, [50, 130]) 80 x 30/80 = 30 apportioned */
    assert_float_equal(s.allocated_gpu_seconds, 270, EPS);
    assert_float_equal(s.utilization, 270.0 / (8 * 60), EPS);
    assert_float_equal(info.apportioned_gpu_seconds, 30, EPS);
    /* with the samples: (6 + 6 + 6 + 4 + 4 + 4) x 10 = 300 inside [100, 160), 240 exact, J4 gets 60
     * (bounds: 80 - 2 x 50 < 0, so 0; min(80, 2 x 30) = 60): the true 2 x 30 */
    dike_timeseries ts;
    four_jobs_series(&ts, 1);
    dike_summarize_window(j, 4, t, 2, 8, &ts, &late, &s, &info, NULL);
    dike_timeseries_free(&ts);
    assert_float_equal(s.allocated_gpu_seconds, 300, EPS);
    assert_float_equal(info.apportioned_gpu_seconds, 60, EPS);
}

/* A window holding every job and the whole run repeats the whole-run summary; here on a real run
 * with preemptions (srtf on one 8-GPU node: J0 is preempted by the shorter J1, test_policies.c). */
static void test_window_whole_run(void **st)
{
    static const sc_job jobs[] = {{0, 100, 8, "a"}, {10, 20, 8, "b"}, {20, 50, 4, "a"}, {25, 40, 4, "b"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=srtf", "scheduler.preemption_cost_s=5", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 4, sets, &r), 0);
    assert_true(r.summary.preemptions > 0);
    const dike_window ws[] = {{.kind = DIKE_WINDOW_JOBS, .first_id = 0, .last_id = 3},
                              {.kind = DIKE_WINDOW_TIME, .t0 = 0, .t1 = 1e6}};
    for (size_t k = 0; k < 2; k++) {
        dike_summary s;
        dike_window_info info;
        dike_summarize_window(r.jobs, r.njobs, r.tenants, r.ntenants, r.summary.gpus, &r.ts, &ws[k],
                              &s, &info, NULL);
        assert_int_equal(s.jobs, r.summary.jobs);
        assert_float_equal(s.avg_jct, r.summary.avg_jct, 0);
        assert_float_equal(s.p99_jct, r.summary.p99_jct, 0);
        assert_float_equal(s.mean_rho, r.summary.mean_rho, 0);
        assert_float_equal(s.jain, r.summary.jain, 0);
        assert_float_equal(s.makespan, r.summary.makespan, 0);
        assert_int_equal(s.preemptions, r.summary.preemptions);
        assert_float_equal(s.goodput, r.summary.goodput, 0);
        if (k == 1) { /* the time span is the whole run: every GPU-second, exactly */
            assert_float_equal(info.span_end, r.summary.makespan, EPS);
            assert_float_equal(s.allocated_gpu_seconds, r.summary.allocated_gpu_seconds, 1e-6);
            assert_float_equal(s.utilization, r.summary.utilization, 1e-12);
            assert_float_equal(s.effective_utilization, r.summary.effective_utilization, 1e-6);
            assert_float_equal(info.apportioned_gpu_seconds, 0, 0);
        }
    }
    dike_results_free(&r);
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_config_message),
        cmocka_unit_test(test_window_jobs),
        cmocka_unit_test(test_window_time),
        cmocka_unit_test(test_window_time_series),
        cmocka_unit_test(test_window_edges),
        cmocka_unit_test(test_window_whole_run),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
