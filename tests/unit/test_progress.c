/* The progress ETA (engine/progress.c) on made-up clocks, against values worked out by hand: a
 * run continued from a checkpoint measures its rate from where it continued, not from zero, and
 * the rate is a moving average. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>

#include "engine/progress.h"

#define S(x) ((dike_time)((x) * DIKE_US_PER_S))

/* Last submission at 1000 s, 100 jobs. Progress = (min(sim / 1000, 1) + finished / 100) / 2. */
static void start(dike_progress *p)
{
    dike_progress_init(p, NULL, 10, S(1000), 100); /* no stream: nothing printed, the ETA works */
}

/* A resumed run: its first observation is at sim 500 s with 50 jobs finished (progress 0.5). Ten
 * wall seconds later it is at 600 s with 60 jobs (0.6): 0.01 per second, 0.4 left, ETA 40 s. An
 * ETA from a zero start would say 12 s x 40 / 60 = 8 s (the bug seen after `resume`). */
static void test_eta_after_resume(void **state)
{
    (void)state;
    dike_progress p;
    start(&p);
    assert_true(dike_progress_observe(&p, 2.0, S(500), 50) < 0); /* base only: no rate yet */
    double eta = dike_progress_observe(&p, 12.0, S(600), 60);
    assert_float_equal(eta, 40.0, 1e-9);
}

/* The rate is the progress over the last 30 wall seconds. From the state above, 10 s more at half
 * the pace (0.65 at 22 s): the window reaches back to the base at 2 s, rate = 0.15 / 20 = 0.0075,
 * ETA = 0.35 / 0.0075 = 46.667 s. At 42 s and 0.70 the sample at 12 s (0.60) is the oldest inside
 * the window: rate = 0.10 / 30, ETA = 0.30 / (0.10 / 30) = 90 s; the fast start no longer counts.
 * Half a second later (0.71) the window starts at the sample of 22 s (0.65): rate = 0.06 / 20.5,
 * ETA = 0.29 x 20.5 / 0.06 = 99.083 s. */
static void test_moving_rate(void **state)
{
    (void)state;
    dike_progress p;
    start(&p);
    dike_progress_observe(&p, 2.0, S(500), 50);
    dike_progress_observe(&p, 12.0, S(600), 60);
    assert_float_equal(dike_progress_observe(&p, 22.0, S(650), 65), 46.6667, 1e-3);
    assert_float_equal(dike_progress_observe(&p, 42.0, S(700), 70), 90.0, 1e-9);
    assert_float_equal(dike_progress_observe(&p, 42.5, S(710), 71), 99.0833, 1e-3);
}

/* After the last submission the simulated-time half is capped at 1: sim 2000 s, 90 jobs -> 0.95.
 * From 0.9 (sim 1500 s, 80 jobs) in 5 s: rate 0.01, ETA 0.05 / 0.01 = 5 s; all done: 0. */
static void test_drain_and_end(void **state)
{
    (void)state;
    dike_progress p;
    start(&p);
    dike_progress_observe(&p, 0.0, S(1500), 80);
    assert_float_equal(dike_progress_observe(&p, 5.0, S(2000), 90), 5.0, 1e-9);
    assert_float_equal(dike_progress_observe(&p, 6.0, S(2100), 100), 0.0, 0);
}

static void test_mode_names(void **state)
{
    (void)state;
    assert_int_equal(dike_progress_mode_parse("auto"), DIKE_PROGRESS_AUTO);
    assert_int_equal(dike_progress_mode_parse("live"), DIKE_PROGRESS_LIVE);
    assert_int_equal(dike_progress_mode_parse("log"), DIKE_PROGRESS_LOG);
    assert_int_equal(dike_progress_mode_parse("off"), DIKE_PROGRESS_OFF);
    assert_int_equal(dike_progress_mode_parse("Live"), -1);
    assert_int_equal(dike_progress_mode_parse(""), -1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eta_after_resume),
        cmocka_unit_test(test_moving_rate),
        cmocka_unit_test(test_drain_and_end),
        cmocka_unit_test(test_mode_names),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
