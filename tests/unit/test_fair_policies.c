/* las, themis, gandiva-fair, drf and dike on tiny scenarios; every expected start and finish is
 * worked out by hand in the comment above its test. One node of 8 GPUs unless said otherwise;
 * preemption cost 0 unless said otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <mpi.h>

#include "policy/common.h"
#include "scenario.h"

#define EPS 1e-6


/* ---- water-filling ---- */

static void test_waterfill_weights(void **st)
{
    /* 12 GPUs, weights 1, 1, 2, demands 10, 2, 10. First shares 3, 3, 6: tenant 1 needs only 2.
     * The 10 left go 1:2 to tenants 0 and 2: 10/3 and 20/3, both below their demand. */
    double w[] = {1, 1, 2}, d[] = {10, 2, 10}, out[3];
    dike_waterfill(3, w, d, 12, out);
    assert_float_equal(out[0], 10.0 / 3, 1e-12);
    assert_float_equal(out[1], 2, 1e-12);
    assert_float_equal(out[2], 20.0 / 3, 1e-12);
    /* Capacity above total demand: everybody gets its demand. */
    dike_waterfill(3, w, d, 30, out);
    assert_float_equal(out[0], 10, 1e-12);
    assert_float_equal(out[1], 2, 1e-12);
    assert_float_equal(out[2], 10, 1e-12);
    /* Two satisfied in cascade: 9 GPUs, equal weights, demands 1, 2, 100 -> 1, 2, 6. */
    double w2[] = {1, 1, 1}, d2[] = {1, 2, 100};
    dike_waterfill(3, w2, d2, 9, out);
    assert_float_equal(out[0], 1, 1e-12);
    assert_float_equal(out[1], 2, 1e-12);
    assert_float_equal(out[2], 6, 1e-12);
    /* An idle tenant gets nothing. */
    double d3[] = {0, 4, 4};
    dike_waterfill(3, w2, d3, 6, out);
    assert_float_equal(out[0], 0, 1e-12);
    assert_float_equal(out[1], 3, 1e-12);
    assert_float_equal(out[2], 3, 1e-12);
}

/* ---- las ---- */

/* Thresholds [800] GPU-s, rounds of 100 s, promotion off.
 *   t=0   J0 (8 GPUs, 300 s) starts.
 *   t=50  J1 (8 GPUs, 100 s) waits: no preemption between rounds.
 *   t=100 round: J0 has 800 GPU-s -> queue 1; J1 (0) is in queue 0: J0 preempted, J1 100-200.
 *   t=200 J0 resumes with 200 s left: 200-400. */
static void test_las_queues(void **st)
{
    static const sc_job jobs[] = {{0, 300, 8, "a"}, {50, 100, 8, "a"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=las", "scheduler.round_s=100",
                          "scheduler.preemption_cost_s=0", "las.thresholds_gpu_s=800",
                          "las.promote_knob=0", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    expect_job(&r, 0, 0, 400, 1);
    expect_job(&r, 1, 100, 200, 0);
    dike_results_free(&r);
}

/* Starvation promotion. J0 (8 GPUs, 300 s) at 0, J1 (8 GPUs, 1000 s) at 50; threshold 800 GPU-s,
 * rounds of 100 s.
 * Knob 0 (off): 100: J1 (queue 0) preempts J0 (queue 1). 200: both in queue 1, FIFO: J0 back
 *   (J1 preempted, 900 s left); J0 ends at 400; J1 400-1300.
 * Knob 0.5: a waiting job is promoted when it has waited more than 0.5 x its last run (100 s):
 *   200: J0 waited 100 > 50: promoted to queue 0, runs; J1 preempted.
 *   300: J0 is back in queue 1 (800 GPU-s since promotion); J1 waited 100 > 50: promoted, runs;
 *        J0 preempted with 100 s left.
 *   400: J1 in queue 1 again; J0 promoted: runs 400-500.
 *   500: J1 resumes with 800 s left: 500-1300. */
static void test_las_promotion(void **st)
{
    static const sc_job jobs[] = {{0, 300, 8, "a"}, {50, 1000, 8, "a"}};
    const char *off[] = {"cluster.nodes=1", "scheduler.policy=las", "scheduler.round_s=100",
                         "scheduler.preemption_cost_s=0", "las.thresholds_gpu_s=800",
                         "las.promote_knob=0", NULL};
    const char *on[] = {"cluster.nodes=1", "scheduler.policy=las", "scheduler.round_s=100",
                        "scheduler.preemption_cost_s=0", "las.thresholds_gpu_s=800",
                        "las.promote_knob=0.5", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, off, &r), 0);
    expect_job(&r, 0, 0, 400, 1);
    expect_job(&r, 1, 100, 1300, 1);
    dike_results_free(&r);
    assert_int_equal(sc_run(jobs, 2, on, &r), 0);
    expect_job(&r, 0, 0, 500, 2);
    expect_job(&r, 1, 100, 1300, 2);
    dike_results_free(&r);
}

/* ---- themis ---- */

/* Tenant a: J0 (8 GPUs, 1000 s) at 0; tenant b: J1 (8 GPUs, 100 s) at 10. Rounds of 100 s.
 * At 100, N = 2 jobs, G = 8: T_ideal = duration x max(1, 8 x 2 / 8) = 2 x duration.
 *   J0: (100 + 900) / 2000 = 0.5;  J1: (90 + 100) / 200 = 0.95.
 * Tenant b is furthest behind: J1 gets the node at 100 (J0 preempted), runs 100-200; J0 resumes
 * at 200 with 900 s left: ends 1100. */
static void test_themis(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "a"}, {10, 100, 8, "b"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=themis", "scheduler.round_s=100",
                          "scheduler.preemption_cost_s=0", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    expect_job(&r, 0, 0, 1100, 1);
    expect_job(&r, 1, 100, 200, 0);
    dike_results_free(&r);
}

/* ---- gandiva-fair ---- */

/* Tenants a and b, one ticket each; J0 (a) and J1 (b), 8 GPUs and 250 s each, both at 0.
 * Rounds of 100 s; a job chosen for a slice costs its tenant 8 GPUs x slice / tickets.
 *   0:   passes 0, 0: tie to a: J0 runs; pass a = 800.
 *   100: b (0) < a (800): J1 runs, J0 preempted (150 s left); pass b = 800.
 *   200: tie: a: J0 runs (J1 150 s left); pass a = 1600.
 *   300: b: J1 runs (J0 50 s left); pass b = 1600.
 *   400: tie: a: J0 runs 400-450; J1 (50 s left) waits.
 *   450: J0 done; J1 450-500. */
static void test_gandiva_fair(void **st)
{
    static const sc_job jobs[] = {{0, 250, 8, "a"}, {0, 250, 8, "b"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=gandiva-fair", "scheduler.round_s=100",
                          "scheduler.preemption_cost_s=0", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    expect_job(&r, 0, 0, 450, 2);
    expect_job(&r, 1, 100, 500, 2);
    dike_results_free(&r);
}

/* ---- drf ---- */

/* Tenant a: A0..A3 (4 GPUs, 100 s) at 0; tenant b: B4 (4 GPUs, 100 s) at 1.
 *   0:   A0, A1 start (a is the only tenant).
 *   100: a and b hold 0: tie to a: A2 starts (a holds 4); then b (0 < 4): B4 starts.
 *   200: A3 starts.
 * (FIFO would run A2 and A3 at 100 and B4 at 200.) */
static void test_drf(void **st)
{
    static const sc_job jobs[] = {{0, 100, 4, "a"}, {0, 100, 4, "a"}, {0, 100, 4, "a"},
                                  {0, 100, 4, "a"}, {1, 100, 4, "b"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=drf", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 5, sets, &r), 0);
    expect_job(&r, 0, 0, 100, 0);
    expect_job(&r, 1, 0, 100, 0);
    expect_job(&r, 2, 100, 200, 0);
    expect_job(&r, 3, 200, 300, 0);
    expect_job(&r, 4, 100, 200, 0);
    /* Weights: with b weighing 3, b's share is still 0 at 100, so the order is the same; with a
     * weighing 3 and b 1 nothing changes either (b holds 0). Give a weight 1 and b 1 but let b hold
     * GPUs: covered above. */
    dike_results_free(&r);
}

/* ---- dike ---- */

/* J0 (8 GPUs, 100 s) at 0 holds the node; J1 (100 s) at 1 and J2 (50 s) at 90 wait (J0 is within
 * its minimum lease, so nobody preempts it). No rounds before the end (round_s = 10000): this is
 * the order in which the free node is given at 100.
 * At 100: N = 2, G = 8, T_ideal = 2 x duration; both fit, rate 1.
 *   rho J1 = (99 + 100) / 200 = 0.995   fair = 0.995 / 1.995 = 0.49875
 *   rho J2 = (10 + 50) / 100 = 0.6      fair = 0.6 / 1.6     = 0.375
 *   median remaining = 75:  eff J1 = 75 / 175 = 0.42857,  eff J2 = 75 / 125 = 0.6
 * w = 1 (fairness only): J1 first: J1 100-200, J2 200-250.
 * w = 0 (efficiency only): J2 first: J2 100-150, J1 150-250.
 * w = 0.5: J1 0.46366 < J2 0.4875: J2 first. */
static void test_dike_weight_orderings(void **st)
{
    static const sc_job jobs[] = {{0, 100, 8, "a"}, {1, 100, 8, "a"}, {90, 50, 8, "b"}};
    const char *fair[] = {"cluster.nodes=1", "scheduler.policy=dike", "scheduler.round_s=10000",
                          "dike.fairness_weight=1", NULL};
    const char *eff[] = {"cluster.nodes=1", "scheduler.policy=dike", "scheduler.round_s=10000",
                         "dike.fairness_weight=0", NULL};
    const char *mid[] = {"cluster.nodes=1", "scheduler.policy=dike", "scheduler.round_s=10000",
                         "dike.fairness_weight=0.5", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 3, fair, &r), 0);
    expect_job(&r, 1, 100, 200, 0);
    expect_job(&r, 2, 200, 250, 0);
    dike_results_free(&r);
    assert_int_equal(sc_run(jobs, 3, eff, &r), 0);
    expect_job(&r, 1, 150, 250, 0);
    expect_job(&r, 2, 100, 150, 0);
    dike_results_free(&r);
    assert_int_equal(sc_run(jobs, 3, mid, &r), 0);
    expect_job(&r, 1, 150, 250, 0);
    expect_job(&r, 2, 100, 150, 0);
    dike_results_free(&r);
}

/* Preemption by score. a: J0 (8 GPUs, 1000 s) at 0; b: J1 (4 GPUs, 100 s) at 10. Rounds of 100 s,
 * w = 1, minimum lease 50 s.
 * At 100: N = 2. rho J0 = (100 + 900) / (1000 x 2) = 0.5; rho J1 = (90 + 100) / (100 x 1) = 1.9
 * (4 x 2 / 8 = 1). Scores = fair = rho / (1 + rho): J0 0.3333, J1 0.6552.
 *   hysteresis 0.1: J0 has rho < 1, ran 100 >= 50 s, and 0.3333 + 0.1 <= 0.6552: preempted.
 *     J1 100-200; J0 needs 8 GPUs, resumes at 200 with 900 s left: ends 1100.
 *   hysteresis 0.9: 0.3333 + 0.9 > 1 > any score: never by score; the tenant guard would leave a
 *     (entitled to 4) with 0: not allowed. J1 waits for J0: 1000-1100.
 *   minimum lease 200 s (hysteresis 0.1): at 100 J0 has run only 100 s; at 200 it has run 200:
 *     rho J0 = (200 + 800) / 2000 = 0.5 < 1 (fair 0.3333), J1 = (190 + 100) / 100 = 2.9 (fair
 *     0.7436): preempted at 200. J1 200-300; J0 (800 s left) 300-1100. */
static void test_dike_preemption(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "a"}, {10, 100, 4, "b"}};
    const char *h01[] = {"cluster.nodes=1", "scheduler.policy=dike", "scheduler.round_s=100",
                         "scheduler.preemption_cost_s=0", "dike.fairness_weight=1",
                         "dike.hysteresis=0.1", "dike.min_lease_s=50", NULL};
    const char *h09[] = {"cluster.nodes=1", "scheduler.policy=dike", "scheduler.round_s=100",
                         "scheduler.preemption_cost_s=0", "dike.fairness_weight=1",
                         "dike.hysteresis=0.9", "dike.min_lease_s=50", NULL};
    const char *lease[] = {"cluster.nodes=1", "scheduler.policy=dike", "scheduler.round_s=100",
                           "scheduler.preemption_cost_s=0", "dike.fairness_weight=1",
                           "dike.hysteresis=0.1", "dike.min_lease_s=200", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, h01, &r), 0);
    expect_job(&r, 0, 0, 1100, 1);
    expect_job(&r, 1, 100, 200, 0);
    dike_results_free(&r);
    assert_int_equal(sc_run(jobs, 2, h09, &r), 0);
    expect_job(&r, 0, 0, 1000, 0);
    expect_job(&r, 1, 1000, 1100, 0);
    dike_results_free(&r);
    assert_int_equal(sc_run(jobs, 2, lease, &r), 0);
    expect_job(&r, 0, 0, 1100, 1);
    expect_job(&r, 1, 200, 300, 0);
    dike_results_free(&r);
}

/* Tenant guard. a: J0 and J1 (4 GPUs, 1000 s) at 0; b: J2 (4 GPUs, 100 s) at 10. Rounds of 100 s,
 * hysteresis 1 (no preemption by score is possible: scores are below 1).
 * At 100, demands a 8, b 4 over 8 GPUs: entitlements 4 and 4. b holds 0 < 4 and waits; a holds 8:
 * losing one 4-GPU job leaves a at its entitlement, so the lower-scored of J0, J1 (equal scores:
 * the lower index, J0) is preempted. J2 100-200; J0 resumes at 200 with 900 s left: 200-1100.
 * J1 runs through: 0-1000. */
static void test_dike_tenant_guard(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 4, "a"}, {0, 1000, 4, "a"}, {10, 100, 4, "b"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=dike", "scheduler.round_s=100",
                          "scheduler.preemption_cost_s=0", "dike.hysteresis=1",
                          "dike.min_lease_s=50", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 3, sets, &r), 0);
    expect_job(&r, 0, 0, 1100, 1);
    expect_job(&r, 1, 0, 1000, 0);
    expect_job(&r, 2, 100, 200, 0);
    dike_results_free(&r);
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waterfill_weights), cmocka_unit_test(test_las_queues),
        cmocka_unit_test(test_las_promotion),     cmocka_unit_test(test_themis),
        cmocka_unit_test(test_gandiva_fair),      cmocka_unit_test(test_drf),
        cmocka_unit_test(test_dike_weight_orderings), cmocka_unit_test(test_dike_preemption),
        cmocka_unit_test(test_dike_tenant_guard),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
