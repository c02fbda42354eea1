/* las, themis, gandiva-fair, drf and dike on tiny scenarios; every expected start and finish is
 * worked out by hand in the comment above its test. One node of 8 GPUs unless said otherwise;
 * preemption cost 0 unless said otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <mpi.h>

#include <gsl/gsl_randist.h>
#include <math.h>

#include "dike/rng.h"
#include "policy/common.h"
#include "policy/policy.h"
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
    sc_expect(jobs, 2, sets, (const sc_want[]){{0, 400, 1}, {100, 200, 0}});
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
    sc_expect(jobs, 2, off, (const sc_want[]){{0, 400, 1}, {100, 1300, 1}});
    sc_expect(jobs, 2, on, (const sc_want[]){{0, 500, 2}, {100, 1300, 2}});
}

/* Attained service is the time a run worked: a resume's restore is not service (until 2026-12-05
 * it was, and a gang whose restore outlasted its first queue was demoted before it did any work;
 * with promotion that cycled for ever, see docs/policies.md). Threshold 400 GPU-s (50 s of 8
 * GPUs), rounds of 100 s, restore 60 s, knob 0.5. J0 and J1: 8 GPUs, 300 s, at 0 and 10.
 *   0    J0 starts (a first start pays no restore) and works.
 *   100  J0 has 800 GPU-s: queue 1; J1 (queue 0) starts, J0 preempted with 200 s left (ran 100 s).
 *   200  J1 has 800: queue 1 (200 s left, ran 100 s). J0 waited 100 > 0.5 x 100: promoted to
 *        queue 0 (its service counts from 800 again); it resumes and works from 260.
 *   300  J0 worked 40 s: 320 GPU-s since its promotion, still queue 0 (counting the restore it
 *        would have 800, queue 1, and be preempted again here). J1 waited 100 > 50: promoted to
 *        queue 0 too, but J0 is older: J0 keeps the node (160 s left).
 *   400  J0 has 8 x 140 = 1120: queue 1; J1 (queue 0) resumes, works from 460; J0 preempted with
 *        60 s left (its last run 200-400: 200 s).
 *   500  J1 320 GPU-s since its promotion: queue 0. J0 waited 100, not more than 0.5 x 200.
 *   600  J1 1120: queue 1, preempted with 60 s left (ran 400-600). J0 waited 200 > 100: promoted,
 *        resumes, works 660-720: ends at 720.
 *   720  J1 takes the free node, works 780-840: ends at 840.
 * Each job is preempted twice. */
static void test_las_restore_not_service(void **st)
{
    static const sc_job jobs[] = {{0, 300, 8, "a"}, {10, 300, 8, "a"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=las", "scheduler.round_s=100",
                          "scheduler.preemption_cost_s=60", "las.thresholds_gpu_s=400",
                          "las.promote_knob=0.5", NULL};
    sc_expect(jobs, 2, sets, (const sc_want[]){{0, 720, 2}, {100, 840, 2}});
}

/* The same for the launch latency (scheduler.decision_latency_s = 60, the emulating mode; no
 * restore, promotion off). Threshold 400 GPU-s, rounds of 100 s. J0 and J1: 8 GPUs, 100 s, at 0
 * and 10.
 *   0    J0 decided; it works from 60.
 *   100  J0 worked 40 s: 320 GPU-s, queue 0, ahead of J1 (queue 0, younger): J0 keeps the node
 *        (counting the latency it would have 800, queue 1, and be preempted with 60 s left).
 *   160  J0 ends (60 + 100); J1 decided at once, works from 220.
 *   200  J1 has not worked yet (0 GPU-s).
 *   300  J1 640 GPU-s, queue 1, but alone: it ends at 320.
 * No preemption. (The old count: J0 preempted at 100 and J1 at 200; J0 ends at 320, J1 at 440.) */
static void test_las_latency_not_service(void **st)
{
    static const sc_job jobs[] = {{0, 100, 8, "a"}, {10, 100, 8, "a"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=las", "scheduler.round_s=100",
                          "scheduler.preemption_cost_s=0", "scheduler.decision_latency_s=60",
                          "las.thresholds_gpu_s=400", "las.promote_knob=0", NULL};
    sc_expect(jobs, 2, sets, (const sc_want[]){{0, 160, 0}, {160, 320, 0}});
}

/* A round's walk over running and queued jobs of one queue (las_round, both of its ways: with as
 * many queued as running jobs it ranks every active job, with more it walks the running jobs
 * and finds queued ones by first fit): a queued gang that did not fit earlier is ahead, in submit
 * order, of a smaller job that started later in the spare GPUs, and takes its GPUs. Threshold
 * 500 GPU-s (every job below it stays in queue 0, FIFO by submit), rounds of 100 s, promotion
 * off, no restore.
 *   0    A (4 GPUs, 150 s) starts.
 *   10   B (8 GPUs, 100 s) does not fit (4 free): waits.
 *   20   C (2 GPUs, 1000 s) fits: starts (2 free).
 *   30   D (8 GPUs, 100 s) waits.
 *   100  round, all in queue 0 (A 400 GPU-s, C 160): A keeps 4, B (8) does not fit in the 4
 *        left, C keeps 2, D does not fit. Nothing changes.
 *   150  A ends; 6 free, B and D still do not fit.
 *   200  round: C has 360 GPU-s, queue 0. B (submitted first) takes all 8: C is preempted with
 *        820 s left; B runs 200-300.
 *   300  B ends; round: C (submitted before D) resumes with 820 s left; D does not fit in the 6
 *        left.
 *   400  round: C has 560 GPU-s, queue 1; D (queue 0) takes all 8: C is preempted again with
 *        720 s left; D runs 400-500.
 *   500  D ends; C resumes: 500-1220. */
static void test_las_round_walk(void **st)
{
    static const sc_job jobs[] = {{0, 150, 4, "a"}, {10, 100, 8, "a"}, {20, 1000, 2, "a"},
                                  {30, 100, 8, "a"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=las", "scheduler.round_s=100",
                          "scheduler.preemption_cost_s=0", "las.thresholds_gpu_s=500",
                          "las.promote_knob=0", NULL};
    sc_expect(jobs, 4, sets,
              (const sc_want[]){{0, 150, 0}, {200, 300, 0}, {20, 1220, 2}, {400, 500, 0}});
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
    sc_expect(jobs, 2, sets, (const sc_want[]){{0, 1100, 1}, {100, 200, 0}});
}

/* Inside a group, the worse rho first, however close (until 2026-12-05 the tenants not behind were
 * keyed 1e15 - rho, which rounds rho to 1/8: jobs closer than that went in job order). Two nodes
 * of 8 GPUs, no round before 10^7 s, so no tenant is behind: at the fill the two tenants a and b
 * are active and k = ceil(0.2 x 2) = 1 < 2, so b's jobs are keyed as "not behind".
 *   R (a, 8 GPUs, 1000 s) and S (a, 8 GPUs, 100,000 s) start at 0 on the two nodes.
 *   Q1 (b, 8 GPUs, 1000 s) at 10, Q2 (b, 8 GPUs, 980 s) at 20 wait.
 *   At 1000 R ends: N = 3 (S, Q1, Q2), G = 16, share 8 x 3 / 16 = 1.5, rate 1 on a whole node:
 *     Q1: (990 + 1000) / (1.5 x 1000) = 1.3267;  Q2: (980 + 980) / (1.5 x 980) = 1.3333.
 *   (1e15 - 1.3267 and 1e15 - 1.3333 both round to 999,999,999,999,998.625: the old key tied them
 *   and Q1, the lower index, went first.) Q2 runs 1000-1980, Q1 1980-2980. */
static void test_themis_close_rho(void **st)
{
    static const sc_job jobs[] = {
        {0, 1000, 8, "a"}, {0, 100000, 8, "a"}, {10, 1000, 8, "b"}, {20, 980, 8, "b"}};
    const char *sets[] = {"cluster.nodes=2", "scheduler.policy=themis", "scheduler.round_s=10000000",
                          "scheduler.preemption_cost_s=0", NULL};
    (void)st;
    sc_expect(jobs, 4, sets,
              (const sc_want[]){{0, 1000, 0}, {0, 100000, 0}, {1980, 2980, 0}, {1000, 1980, 0}});
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
    sc_expect(jobs, 2, sets, (const sc_want[]){{0, 450, 2}, {100, 500, 2}});
}

/* A round no longer than a resume: rounds of 20 s, a 30-s restore on every resume; tenants a and b,
 * J0 (a) and J1 (b), 8 GPUs and 50 s each, both at 0. A running job still in its resume keeps its
 * GPUs at a round and its tenant pays the round (its slice has not begun).
 *   0:   not a round: fill, tie to a: J0 starts (first start, no restore); pass a = 8 x 20 = 160.
 *   20:  J0 has worked 20 s (30 left). b (0) < a (160): J1 starts (first start); J0 preempted;
 *        pass b = 160.
 *   40:  J1 has worked 20 s (30 left). Tie, to a: J0 resumes, restores until 70; J1 preempted;
 *        pass a = 320.
 *   60:  J0 still restoring: it keeps its GPUs; pass a = 480.
 *   80:  J0 worked 70-80 (20 left). b (160) < a: J1 resumes, restores until 110; pass b = 320.
 *   100: J1 kept; pass b = 480.
 *   120: J1 worked 110-120 (20 left). Tie, to a: J0 resumes until 150; pass a = 640.
 *   140: J0 kept; pass a = 800.
 *   160: J0 worked 150-160 (10 left). b (480) < a: J1 resumes until 190; pass b = 640.
 *   180: J1 kept; pass b = 800.
 *   200: J1 worked 190-200 (10 left). Tie, to a: J0 resumes until 230; pass a = 960.
 *   220: J0 kept; pass a = 1120.
 *   240: J0 finishes (230 + 10); the round gives the GPUs to J1: restore until 270.
 *   260: J1 kept.   280: J1 finishes (270 + 10).
 * Each job is preempted 3 times. Without the rule, J0 lost its GPUs at 60 before working, and from
 * then on every resumed job lost them at the next round, 20 s into its 30-s restore: a livelock
 * (the engine's livelock error). */
static void test_gandiva_fair_short_rounds(void **st)
{
    static const sc_job jobs[] = {{0, 50, 8, "a"}, {0, 50, 8, "b"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=gandiva-fair", "scheduler.round_s=20",
                          "scheduler.preemption_cost_s=30", NULL};
    sc_expect(jobs, 2, sets, (const sc_want[]){{0, 240, 3}, {20, 280, 3}});
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

/* A tenant whose earliest job does not fit waits, and the others are served past it; it is served
 * again at the next decision (tenants a, b, c in that index order; one node of 8 GPUs):
 *   0:   A0 (a, 6 GPUs, 100 s) starts; 2 GPUs free.
 *   1:   B1 (b, 4 GPUs) does not fit: b waits.
 *   2:   b and c hold 0: b first (index), B1 still does not fit; then c: C2 (2 GPUs, 50 s) 2-52.
 *   60:  the same: B1 does not fit; C3 (c, 2 GPUs, 10 s) 60-70.
 *   80:  b holds 0, a 6: b first, does not fit; then a: A4 (2 GPUs, 30 s) 80-110 (a holds 8 of 8
 *        while b has nothing that fits: work-conserving).
 *   100: A0 ends, 6 free: b (0) first: B1 starts 100-200.
 * (At 52 and 70 only b waits, and its 4 GPUs do not fit in the 2 free: the decision ends at once.)
 * Checked to fail when b is not pushed back after a decision, when a tenant that does not fit ends
 * the decision, and when the decision ends as soon as a head needs as many GPUs as are free. */
static void test_drf_blocked_tenant(void **st)
{
    static const sc_job jobs[] = {{0, 100, 6, "a"},  {1, 100, 4, "b"}, {2, 50, 2, "c"},
                                  {60, 10, 2, "c"}, {80, 30, 2, "a"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=drf", NULL};
    (void)st;
    sc_expect(jobs, 5, sets,
              (const sc_want[]){{0, 100, 0}, {100, 200, 0}, {2, 52, 0}, {60, 70, 0}, {80, 110, 0}});
}

/* ---- dike ---- */

/* Settings shared by the Dike scenarios: one node of 8 GPUs unless said otherwise, no restore cost,
 * no minimum lease, rounds only where said, default hysteresis 0.1 (a victim must have at least
 * 1 / 0.9 times the candidate's remaining work). */
#define DK_BASE "scheduler.policy=dike", "scheduler.preemption_cost_s=0", "dike.min_lease_s=0"
/* DK_BASE with a restore of 30 s and rounds far apart (decisions at events only) */
#define DK_FAR30 DK_BASE, "scheduler.preemption_cost_s=30", "scheduler.round_s=100000"

/* Smallest remaining GPU-time first, whole gangs, fill-in (hysteresis 1: nothing is ever small
 * enough to preempt). At 0: J0 (8 GPUs x 100 s = 800), J1 (4 x 300 = 1200), J2 (4 x 200 = 800),
 * J3 (1 x 700 = 700); at 10: J4 (4 x 50 = 200).
 *   0: J3 (700) starts on 1 GPU; J0 (800, lower index than J2) does not fit in 7 and waits at the
 *      head; fill-in: J2 (4 GPUs) starts 0-200; 3 GPUs left fit nobody.
 *  10: J4 (200) is first but does not fit in 3.
 * 200: J4 200-250.  250: J0 still needs 8 of 7; fill-in J1 250-550.  700: J3 ends, J0 700-800.
 * (Shortest *time* first would have run J0 at 0-100.) */
static void test_dike_shortest_first(void **st)
{
    static const sc_job jobs[] = {{0, 100, 8, "a"}, {0, 300, 4, "a"}, {0, 200, 4, "b"},
                                  {0, 700, 1, "b"}, {10, 50, 4, "b"}};
    const char *sets[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=10000",
                          "dike.hysteresis=1", NULL};
    sc_expect(jobs, 5, sets, (const sc_want[]){
        {700, 800, 0}, {250, 550, 0}, {0, 200, 0}, {0, 700, 0}, {200, 250, 0}});
}

/* Preemption and the fairness guard (the worked example of docs/dike.md).
 * J0 (8 GPUs, 1000 s, a) and J1 (8 GPUs, 2000 s, b) at 0; J2 (8 GPUs, 100 s, c) at 100.
 * At 0 J0 (shorter) runs, J1 waits. At 100 (J2 arrives): N_avg of J0 so far = 2 (two jobs since
 * 0), G = 8, so T_ideal_est(J0) = 1000 x max(1, 8 x 2 / 8) = 2000; remaining 900;
 *   slack(J0) = submit + T_ideal - now - remaining - restore = 0 + 2000 - 100 - 900 - 0 = 1000.
 * J2 needs 100 s x 8 GPUs <= 0.9 x 900 s x 8 GPUs (hysteresis) and slack 1000 >= w x 100: J0 is
 * preempted. J2 100-200; at 200 J0 (900 left) before J1 (2000): J0 200-1100, J1 1100-3100.
 *   hysteresis 0.95: 100 x 8 > 0.05 x 900 x 8: no preemption. J2 runs when J0 ends: 1000-1100.
 *   min lease 200 s, rounds of 100 s: at 100 J0 has held its GPUs 100 s < 200: no. At the round of
 *     200: N_avg = (2 x 100 + 3 x 100) / 200 = 2.5, T_ideal 2500, remaining 800, slack 1500 >= 100:
 *     preempted at 200. J2 200-300, J0 300-1100 (800 left), J1 1100-3100.
 *   restore cost 10 s: slack 2000 - 100 - 900 - 10 = 990 >= 100: preempted at 100; J0 resumes at
 *     200 and pays 10 s before progressing: 200-1110; J1 1110-3110. */
static void test_dike_preemption(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "a"}, {0, 2000, 8, "b"}, {100, 100, 8, "c"}};
    const char *plain[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=10000",
                           "dike.fairness_weight=1", NULL};
    const char *hyst[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=10000",
                          "dike.fairness_weight=1", "dike.hysteresis=0.95", NULL};
    const char *lease[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100",
                           "dike.fairness_weight=1", "dike.min_lease_s=200", NULL};
    const char *cost[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=10000",
                          "dike.fairness_weight=1", "scheduler.preemption_cost_s=10", NULL};
    sc_expect(jobs, 3, plain, (const sc_want[]){{0, 1100, 1}, {1100, 3100, 0}, {100, 200, 0}});
    sc_expect(jobs, 3, hyst, (const sc_want[]){{0, 1000, 0}, {1100, 3100, 0}, {1000, 1100, 0}});
    sc_expect(jobs, 3, lease, (const sc_want[]){{0, 1100, 1}, {1100, 3100, 0}, {200, 300, 0}});
    sc_expect(jobs, 3, cost, (const sc_want[]){{0, 1110, 1}, {1110, 3110, 0}, {100, 200, 0}});
}

/* The knob: a victim without slack. The knob w is the share of jobs that are guarded: job i is
 * when frac((i + 1) x 0.6180339887...) < w. J1 (index 1): frac(1.2360679...) = 0.236, so it is
 * guarded at w = 1 and 0.5, and not at 0.2 or 0.
 * J0 (8 GPUs, 500 s, a) and J1 (8 GPUs, 1000 s, b) at 0: J0
 * 0-500, J1 starts at 500. J2 (8 GPUs, 100 s, c) arrives at 1000: N_avg of J1 so far
 * = (2 x 500 + 1 x 500) / 1000 = 1.5, T_ideal_est = 1500, remaining 500:
 *   slack = 0 + 1500 - 1000 - 500 - 0 = 0; J1 would finish exactly on time if left alone.
 *   w = 1 or 0.5 (J1 guarded): slack 0 < J2's 100 s: J1 keeps its GPUs; J2 1500-1600.
 *   w = 0 or 0.2 (J1 not guarded): fairness does not restrict its preemption: J2 1000-1100, J1
 *   resumes 1100-1600.
 *   With a restore cost of 10 s, slack = -10: w = 0 still preempts (J1 resumes at 1100, progresses
 *   from 1110, ends 1610); w = 0.5 does not, and J1 is not late if left alone (it would end at
 *   1500 = its fair finish), so it keeps its GPUs: J2 1500-1600.
 * If J2 arrives at 1200 instead: N_avg = (2 x 500 + 1 x 700) / 1200 = 1.41667, T_ideal 1416.67,
 * remaining 300, slack = 1416.67 - 1200 - 300 = -83.3: J1 is late even if left alone, so there is
 * no fairness to keep: preempted even at w = 1. J2 1200-1300, J1 1300-1600. */
static void test_dike_knob(void **st)
{
    static const sc_job early[] = {{0, 500, 8, "a"}, {0, 1000, 8, "b"}, {1000, 100, 8, "c"}};
    static const sc_job late[] = {{0, 500, 8, "a"}, {0, 1000, 8, "b"}, {1200, 100, 8, "c"}};
    /* J0, J1 and J2 as worked out above: J1 keeps its GPUs; J1 is taken (with a 10 s restore);
     * J2 arrives late and J1, late anyway, is taken */
    static const sc_want kept[] = {{0, 500, 0}, {500, 1500, 0}, {1500, 1600, 0}};
    static const sc_want taken[] = {{0, 500, 0}, {500, 1600, 1}, {1000, 1100, 0}};
    static const sc_want taken10[] = {{0, 500, 0}, {500, 1610, 1}, {1000, 1100, 0}};
    static const sc_want late_taken[] = {{0, 500, 0}, {500, 1600, 1}, {1200, 1300, 0}};
    static const struct {
        const char *w, *cost;
        const sc_job *jobs;
        const sc_want *want;
    } cases[] = {
        {"dike.fairness_weight=1", "scheduler.preemption_cost_s=0", early, kept},
        {"dike.fairness_weight=0.5", "scheduler.preemption_cost_s=0", early, kept},
        {"dike.fairness_weight=0", "scheduler.preemption_cost_s=0", early, taken},
        {"dike.fairness_weight=0.2", "scheduler.preemption_cost_s=0", early, taken},
        {"dike.fairness_weight=0", "scheduler.preemption_cost_s=10", early, taken10},
        {"dike.fairness_weight=0.5", "scheduler.preemption_cost_s=10", early, kept},
        {"dike.fairness_weight=1", "scheduler.preemption_cost_s=0", late, late_taken},
    };
    (void)st;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *sets[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100000", cases[k].w,
                              cases[k].cost, NULL};
        sc_expect(cases[k].jobs, 3, sets, cases[k].want);
    }
}

/* A victim's slack grows while the load does, and the node bounds that let a preemption attempt
 * skip nodes (guard_cap under `oracle`) must allow for it. One node of 8 GPUs, w = 1, a decision
 * every 100 s. J0 (8 GPUs, 1000 s) runs from 0; J1 (8 GPUs, 100 s) arrives at 200 and waits in
 * the system, so J0's N_avg since 0 is (200 + 2 (t - 200)) / t = 2 - 200 / t, its T_ideal
 * 1000 x N_avg, and its slack 1000 N_avg - t - (1000 - t) = 1000 - 200,000 / t:
 *   at 200: 0 < 100 (J1's run): J0 keeps its GPUs; never late (it has not waited);
 *   at 300: 333.3 >= 100, and the swap pays (100 x 8 <= 0.9 x 700 x 8): J1 300-400, J0 resumes
 *   400-1100.
 * A bound that took J0's slack at 200 (0) as its largest would hide the node until J0 ends, and
 * J1 would run 1000-1100. */
static void test_dike_guard_bounds(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "a"}, {200, 100, 8, "b"}};
    const char *w1[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100",
                        "dike.fairness_weight=1", NULL};
    /* `noisy` without error: the same estimates, through the caps' swap-margin allowance */
    const char *nz[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100",
                        "dike.fairness_weight=1", "scheduler.duration_knowledge=noisy",
                        "scheduler.duration_error_sigma=0", NULL};
    dike_dike_guard_bounds_always(1); /* a run this small would not switch them on */
    sc_expect(jobs, 2, w1, (const sc_want[]){{0, 1100, 1}, {300, 400, 0}});
    sc_expect(jobs, 2, nz, (const sc_want[]){{0, 1100, 1}, {300, 400, 0}});
    dike_dike_guard_bounds_always(0);
    sc_expect(jobs, 2, w1, (const sc_want[]){{0, 1100, 1}, {300, 400, 0}});
}

/* Run @p jobs with @p sets once with the test switch @p sw on and once off (then back to its
 * default @p dflt): each job's start, finish and preemptions must be the same, and some job must
 * have been preempted (so that the switched code had victims to judge). @p seed and @p c name
 * the run in a failure's message. */
static void expect_switch_same(const sc_job *jobs, size_t n, const char *const *sets,
                               void (*sw)(int), int dflt, unsigned seed, size_t c)
{
    dike_results on, off;
    sw(1);
    assert_int_equal(sc_run(jobs, n, sets, &on), 0);
    sw(0);
    assert_int_equal(sc_run(jobs, n, sets, &off), 0);
    sw(dflt);
    assert_int_equal(on.njobs, n);
    assert_int_equal(off.njobs, n);
    unsigned preempted = 0;
    for (size_t i = 0; i < n; i++) {
        const dike_job_record *a = &on.jobs[i], *b = &off.jobs[i];
        int same = a->start_time == b->start_time && a->finish_time == b->finish_time &&
                   a->preemptions == b->preemptions;
        if (!same)
            print_error("set %u case %zu job %zu: switch on %.6f-%.6f (%u), off %.6f-%.6f (%u)\n",
                        seed, c, i, a->start_time, a->finish_time, a->preemptions, b->start_time,
                        b->finish_time, b->preemptions);
        assert_true(same);
        preempted += b->preemptions;
    }
    assert_true(preempted > 0);
    dike_results_free(&on);
    dike_results_free(&off);
}

/* The guard's caps only let a preemption attempt skip nodes whose victims the exact test would
 * refuse, so they must not change a schedule. Twelve nodes, 1,500 jobs in bursts (no GPUs to
 * spare during them, some between: both kinds of cap, guard_cap's cap_ns and slot_cap), gangs of
 * 1 to 16 GPUs, restores of 0 and 30 s, `oracle` and `noisy` (doublings, the swap margin), three
 * job sets from a fixed generator: each job's start, finish and preemptions with the caps forced
 * on from the first attempt must equal those without them (a run this small never switches them
 * on). Not a hand-worked schedule but an equivalence. Checked to fail when slot_cap always takes
 * the no-spare cap, when choose_nodes skips by capmax_ns with GPUs to spare, and when runs_out
 * is a second late; it does not catch a missing last-second expiry or a spare cap that expires
 * too late (too rare in runs this size: the 720-point grid and the backlogs are compared too,
 * docs/performance.md). */
static void test_dike_guard_bounds_same(void **st)
{
    enum { N = 1500 };
    static sc_job jobs[N];
    static const unsigned widths[] = {1, 1, 1, 2, 2, 4, 8, 16};
    static const char *tenants[] = {"a", "b", "c", "d"};
    static const char *const modes[][3] = {
        {"dike.fairness_weight=1", "scheduler.preemption_cost_s=0", "scheduler.duration_knowledge=oracle"},
        {"dike.fairness_weight=0.5", "scheduler.preemption_cost_s=30", "scheduler.duration_knowledge=oracle"},
        {"dike.fairness_weight=1", "scheduler.preemption_cost_s=30", "scheduler.duration_knowledge=noisy"},
        {"dike.fairness_weight=0.25", "scheduler.preemption_cost_s=0", "scheduler.duration_knowledge=noisy"},
    };
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint64_t x = seed * 12345;
        double t = 0;
        for (int i = 0; i < N; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL; /* a fixed LCG */
            unsigned r = (unsigned)(x >> 33);
            t += (i / 150) % 2 ? 60 + r % 200 : r % 20; /* bursts, then lulls */
            double dur = 30.0 * (1u << (r >> 8) % 9) + (r >> 4) % 97; /* 30 s .. 2.1 h */
            jobs[i] = (sc_job){t, dur, widths[(r >> 12) % 8], tenants[(r >> 16) % 4], 0};
        }
        for (size_t c = 0; c < sizeof modes / sizeof *modes; c++) {
            const char *sets[] = {"cluster.nodes=12", "scheduler.policy=dike", "dike.min_lease_s=300",
                                  "scheduler.round_s=60", modes[c][0], modes[c][1], modes[c][2], NULL};
            /* the guard had victims to judge */
            expect_switch_same(jobs, N, sets, dike_dike_guard_bounds_always, 0, (unsigned)seed, c);
        }
    }
}

/* Under `none`, Dike's est_refresh and srtf's bounds_renew revisit only the running jobs whose
 * range of their tenant's estimate the new estimate left, instead of all of the tenant's running
 * jobs; what they keep per job (node bounds; srtf's bounds and expiries) stays right either way,
 * so the schedule must not change. Twelve nodes, 1,500 jobs in bursts and lulls, gangs of 1 to 16
 * GPUs (some sharing two nodes with others), four tenants whose durations differ by up to 64 times
 * (so their estimates move, and running jobs outlive them and double), three job sets from a
 * fixed generator, each case of @p cases (settings, NULL-terminated): each job's start, finish
 * and preemptions with the ranges (@p sw(1)) must equal those with every job revisited (sw(0)).
 * Not a hand-worked schedule but an equivalence (docs/performance.md compares the grid and the
 * backlogs too). Checked to fail, for Dike, when a range's hi is 5 % too high, when its
 * lo leaves out the work until the node's expiry, and when the jobs whose nodes' bounds were
 * recomputed are not looked at again at the next move; for srtf, when hi is 5 % too high and when lo is the work done alone (not when hi
 * leaves out the bound's 1 s floor: a bound too low by 1 s rarely decides a search), and, for
 * the expiry taken early (2026-12-04, thirty-first session), when it is taken as late instead and
 * when an early expiry keeps a bound that rose. */
static void keyed_same(void (*sw)(int), const char *mode, const char *const *cases, size_t ncases)
{
    enum { N = 1500 };
    static sc_job jobs[N];
    static const unsigned widths[] = {1, 1, 2, 3, 4, 8, 12, 16}; /* 12: 8 + 4 on two nodes */
    static const char *tenants[] = {"a", "b", "c", "d"};
    static const double scale[] = {1, 4, 16, 64};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint64_t x = seed * 54321;
        double t = 0;
        for (int i = 0; i < N; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL; /* a fixed LCG */
            unsigned r = (unsigned)(x >> 33), k = (r >> 16) % 4;
            t += (i / 150) % 2 ? 30 + r % 120 : r % 20; /* bursts, then lulls */
            double dur = scale[k] * (20.0 + (r >> 4) % 300); /* 20 s .. 5.3 h */
            jobs[i] = (sc_job){t, dur, widths[(r >> 12) % 8], tenants[k], 0};
        }
        for (size_t c = 0; c < ncases; c++) {
            const char *sets[12] = {"cluster.nodes=12", "scheduler.round_s=60", mode};
            size_t ns = 3;
            for (const char *const *p = cases + c * 5; *p; p++)
                sets[ns++] = *p;
            sets[ns] = NULL;
            /* victims were judged on moving estimates */
            expect_switch_same(jobs, N, sets, sw, 1, (unsigned)seed, c);
        }
    }
}

/* Dike's cases for keyed_same: w = 0, 0.5 and 1, restores of 0 and 30 s, hysteresis 0 and 0.1;
 * the last with a decision latency (the emulating mode, where est_refresh checks every running
 * job of the tenant). test_dike_keyed_refresh_same takes the first four, test_dike_est_slack_same
 * the last four. */
static const char *const dike_keyed_cases[][5] = {
    {"scheduler.policy=dike", "dike.fairness_weight=0", "scheduler.preemption_cost_s=30",
     "dike.hysteresis=0.1", NULL},
    {"scheduler.policy=dike", "dike.fairness_weight=0", "scheduler.preemption_cost_s=0",
     "dike.hysteresis=0", NULL},
    {"scheduler.policy=dike", "dike.fairness_weight=0.5", "scheduler.preemption_cost_s=30",
     "dike.hysteresis=0.1", NULL},
    {"scheduler.policy=dike", "dike.fairness_weight=1", "scheduler.preemption_cost_s=30",
     "dike.hysteresis=0", NULL},
    {"scheduler.policy=dike", "dike.fairness_weight=1", "scheduler.preemption_cost_s=30",
     "scheduler.decision_latency_s=5", NULL},
};

/* Dike's first four cases (keyed_same). */
static void test_dike_keyed_refresh_same(void **st)
{
    (void)st;
    keyed_same(dike_dike_keyed_refresh, "scheduler.duration_knowledge=none", dike_keyed_cases[0],
               4);
}

/* Under `none` Dike's node bounds leave room for the tenant's estimate to rise (DIKE_EST_ROOM):
 * a looser upper bound only lets a walk visit nodes whose victims the exact test refuses, so the
 * schedule must be the one of the exact bounds (keyed_same's job sets, Dike's last four cases).
 * Checked to fail when the room is taken off the bound instead of added. */
static void test_dike_est_slack_same(void **st)
{
    (void)st;
    keyed_same(dike_dike_est_slack, "scheduler.duration_knowledge=none", dike_keyed_cases[1], 4);
}

/* srtf with restores of 0 and 30 s, with and without backfilling (keyed_same). */
static void test_srtf_keyed_refresh_same(void **st)
{
    static const char *const cases[][5] = { /* each NULL-terminated */
        {"scheduler.policy=srtf", "scheduler.preemption_cost_s=0", "scheduler.backfill=true"},
        {"scheduler.policy=srtf", "scheduler.preemption_cost_s=30", "scheduler.backfill=true"},
        {"scheduler.policy=srtf", "scheduler.preemption_cost_s=30", "scheduler.backfill=false"},
    };
    (void)st;
    keyed_same(dike_srtf_keyed_refresh, "scheduler.duration_knowledge=none", cases[0],
               sizeof cases / sizeof *cases);
}

/* srtf's victim search walks one tree of running jobs per rate class, each stopping where its
 * rate says no later job can have the work the candidate needs, instead of one tree per GPU type
 * whose walk stops only where the time left says so. The victims must be the same. The job sets
 * of keyed_same (gangs of 12 GPUs share two nodes and run at the spread rate, 0.4246, beside the
 * others at 1; smaller gangs are spread too when the free GPUs are), under each duration
 * knowledge, with restores of 0 and 30 s and with and without backfilling: each job's start,
 * finish and preemptions with every rate in a class of its own, and with only the first rate seen
 * in one (the others in the type's shared tree), must equal those with one tree per type.
 * Not a hand-worked schedule but an equivalence (docs/performance.md compares the grid's srtf
 * points and the backlogs too). Checked to fail when a class's threshold takes the need as 5 %
 * more than it is, for each walk (the oracle's and the estimated one), and when the estimated
 * walk's bound of a job's work is 5 % low. */
static void classes_all(int on)
{
    dike_srtf_rate_classes(on ? 31 : 0);
}

static void classes_one(int on)
{
    dike_srtf_rate_classes(on ? 1 : 0);
}

static void test_srtf_rate_classes_same(void **st)
{
    static const char *const cases[][5] = { /* each NULL-terminated */
        {"scheduler.policy=srtf", "scheduler.preemption_cost_s=0", "scheduler.backfill=true"},
        {"scheduler.policy=srtf", "scheduler.preemption_cost_s=30", "scheduler.backfill=false"},
    };
    static const char *const modes[] = {"scheduler.duration_knowledge=oracle",
                                        "scheduler.duration_knowledge=noisy",
                                        "scheduler.duration_knowledge=none"};
    (void)st;
    for (size_t m = 0; m < 3; m++) {
        keyed_same(classes_all, modes[m], cases[0], sizeof cases / sizeof *cases);
        keyed_same(classes_one, modes[m], cases[0], sizeof cases / sizeof *cases);
    }
    dike_srtf_rate_classes(31);
}

/* themis's fills read the queue from its rho index (policy/rhoindex.h) instead of rating every
 * fitting queued job; the order must be the same. The job sets of keyed_same (gangs of 12 GPUs
 * share two nodes and run at the spread rate; smaller gangs spread when the free GPUs are; under
 * `none` four tenants whose durations differ by up to 64 times, so their estimates move and
 * preempted jobs pass them both ways), under each duration knowledge, with restores of 0 and 30 s,
 * with one GPU type and with two (jobs of both kinds then wait in one gang size at different
 * rates), with the index used whatever the queue's length (2) against never (0). Checked to fail
 * when a bucket's bound leaves out the drift of its slopes (u_min instead of u_max), when the rate
 * term takes phi_min where it needs phi_max, and, under `none`, when a FRESH bucket's bound takes
 * d_max where it needs d_min, and when jobs do not change sides as their tenant's estimate moves. */
static void rho_index(int on)
{
    dike_themis_rho_index(on ? 2 : 0);
}

static void test_themis_rho_index_same(void **st)
{
    static const char *const cases[][5] = { /* each NULL-terminated */
        {"scheduler.policy=themis", "scheduler.preemption_cost_s=0", NULL},
        {"scheduler.policy=themis", "scheduler.preemption_cost_s=30", "scheduler.round_s=600", NULL},
        {"scheduler.policy=themis", "cluster.gpu_types=v100:6,a100:6", "cluster.gpu_speeds=a100:2",
         NULL},
    };
    static const char *const modes[] = {"scheduler.duration_knowledge=oracle",
                                        "scheduler.duration_knowledge=noisy",
                                        "scheduler.duration_knowledge=none"};
    (void)st;
    for (size_t m = 0; m < 3; m++)
        keyed_same(rho_index, modes[m], cases[0], sizeof cases / sizeof *cases);
    dike_themis_rho_index(1);
}

/* An outlived estimate is not a missed fair finish (version 0.6). One node of 8 GPUs, `none`
 * durations, no restore cost, no lease, hysteresis 0.1 (the default).
 *   C0 (8 GPUs, 100 s, tenant c) runs 0-100: the only finished job, so every estimate is 100 s
 *   (c's mean; b has no finished job: the mean of all).
 *   V (8 GPUs, 100,000 s, b) starts at 100. Q (8 GPUs, 100 s, c) arrives at 1000: V has done
 *   900 s of an estimated 100, so it is expected to end at the first of 200, 400, 800, 1600 s it
 *   has not reached: 1600, remaining 700 s. Q's 100 s x 8 <= 0.9 x 700 x 8: the swap pays.
 *   V's fair finish: N_avg since 100 = 1 (V alone), share 8 x 1 / 8 = 1, so T_ideal_est = its
 *   expected length, 1600 s: slack = 100 + 1600 - 1000 - 700 = 0, and left alone it ends on time.
 *   w = 1: slack 0 < 100 and not late: V keeps its GPUs, 100-100,100; Q 100,100-100,200.
 *     (With T_ideal_est from the first estimate, 100 s, V would read as 1500 s late, "nothing to
 *     keep", and be preempted at every knob value.)
 *   w = 0: Q takes V's GPUs, 1000-1100; V resumes 1100-100,200 (one preemption). */
static void test_dike_outlived_estimate(void **st)
{
    static const sc_job jobs[] = {{0, 100, 8, "c"}, {100, 100000, 8, "b"}, {1000, 100, 8, "c"}};
    const char *w1[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=10000000",
                        "scheduler.duration_knowledge=none", "dike.fairness_weight=1", NULL};
    sc_expect(jobs, 3, w1, (const sc_want[]){{0, 100, 0}, {100, 100100, 0}, {100100, 100200, 0}});
    const char *w0[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=10000000",
                        "scheduler.duration_knowledge=none", "dike.fairness_weight=0", NULL};
    sc_expect(jobs, 3, w0, (const sc_want[]){{0, 100, 0}, {100, 100200, 1}, {1000, 1100, 0}});
}

/* A job preempted after it outlived its estimate is not judged shorter than its work done when
 * its tenant's estimate moves past that work again (queued_rem_us in src/policy/dike.c). One node
 * of 8 GPUs, `none` durations, no probe, no restore cost, no lease (w = 0), rounds far apart.
 *   0:   C0 (4 GPUs, 100 s, tenant c) and L (4 GPUs, 410 s, d) start.
 *   100: C0 ends: the only finished job, so every estimate is 100 s. V (4 GPUs, 10,000 s, b)
 *        starts on its GPUs.
 *   350: Q (4 GPUs, 100 s, c) arrives, judged 100 s: 400 GPU-s. V has done 250 s, so it is
 *        expected to end at 400 (100 x 2^2): 150 s left, (0.9 x 150) x 4 = 540 >= 400. L has done
 *        350, expected end 400, 50 s left: 180 < 400. Q takes V: 350-450. V has done 250 s, past
 *        its estimate of 100.
 *   360: X (4 GPUs, 100 s, c) arrives, judged 100 s (400 GPU-s): no victim (L 40 s left, Q 90 s).
 *   410: L ends. b's estimate is now the mean of all finished jobs, (100 + 410) / 2 = 255 s, just
 *        above V's 250 s of work: E - d = 5 s. V was seen to outlive an estimate, so it is judged
 *        by max(250, 5) = 250 s: 1,000 GPU-s, behind X. X starts 410-510.
 *        (Judged by 5 s, V would start first, 410-10,160, and X wait for Q's end: 450-550.)
 *   450: Q ends; V restarts with 9,750 s left: 450-10,200, one preemption. */
static void test_dike_outlived_queued(void **st)
{
    static const sc_job jobs[] = {{0, 100, 4, "c"},   {0, 410, 4, "d"},  {100, 10000, 4, "b"},
                                  {350, 100, 4, "c"}, {360, 100, 4, "c"}};
    const char *sets[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=10000000",
                          "scheduler.duration_knowledge=none", "dike.fairness_weight=0",
                          "dike.probe_s=0", NULL};
    sc_expect(jobs, 5, sets,
              (const sc_want[]){{0, 100, 0}, {0, 410, 0}, {100, 10200, 1}, {350, 450, 0}, {410, 510, 0}});
}

/* One probe case: @p jobs under `none` (or the oracle if !none), rounds every @p round_s, knob
 * @p w, probe @p probe; the three jobs' expected (start, finish, preemptions). */
static void probe_case(const sc_job *jobs, const char *round_s, int none, const char *w,
                       const char *probe, const sc_want *want)
{
    const char *sets[] = {"cluster.nodes=1", DK_BASE, round_s, w, probe,
                          none ? "scheduler.duration_knowledge=none" : NULL, NULL};
    sc_expect(jobs, 3, sets, want);
}

/* The probe (version 0.7): without durations a job that has never run is judged by its first run,
 * at most dike.probe_s of work, and that first run is kept until it has done probe_s. One node of
 * 8 GPUs, `none` durations, no restore cost, no lease, hysteresis 0.1 (the default).
 *   A (8 GPUs, 1,000 s, tenant c) runs 0-1000: the only finished job, so every estimate is 1,000 s
 *   (c's mean; b has no finished job: the mean of all). V (8 GPUs, 5,000 s, b) starts at 1000.
 * Q (8 GPUs, 100 s, c) arrives at 1500. V has done 500 s of an estimated 1,000: 500 s left, so a
 * candidate must measure at most 0.9 x 500 x 8 = 3,600 GPU-s. V has done more than 200 s: it is
 * past any probe below 500 s.
 *   probe_s = 0 (judged by c's mean): 1,000 x 8 = 8,000 > 3,600: no swap; with rounds far apart the
 *     next decision is V's end: Q 6000-6100.
 *   probe_s = 200, w = 0: Q is judged by 200 s: 1,600 <= 3,600: Q 1500-1600; V resumes at 1600 with
 *     4,500 s left: 1000-6100, one preemption.
 *   probe_s = 200, w = 1: the guard weighs the probe, 200 s. V's N_avg since 1000 is 1 (alone), so
 *     T_ideal_est = 1,000 x max(1, 8 x 1 / 8) = 1,000 and slack = 1000 + 1000 - 1500 - 500 = 0
 *     < 200, and V is not late if left alone: V keeps its GPUs, Q 6000-6100.
 * The first run is kept: Q arrives at 1300 instead, probe_s = 400, w = 0, rounds every 100 s. At
 * 1300 V has done 300 s < 400: in its probe, it may not be taken (the size test would pass:
 * 400 x 8 = 3,200 <= 0.9 x 700 x 8 = 5,040). At the round at 1400 it has done 400 s, its probe
 * is over, 600 s left: 3,200 <= 0.9 x 600 x 8 = 4,320: Q 1400-1500, V resumes at 1500: ends 6100. */
static void test_dike_probe(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "c"}, {1000, 5000, 8, "b"}, {1500, 100, 8, "c"}};
    const char *far = "scheduler.round_s=10000000", *often = "scheduler.round_s=100";
    const char *w0 = "dike.fairness_weight=0", *w1 = "dike.fairness_weight=1";
    probe_case(jobs, far, 1, w0, "dike.probe_s=0",
               (const sc_want[]){{0, 1000, 0}, {1000, 6000, 0}, {6000, 6100, 0}});
    probe_case(jobs, far, 1, w0, "dike.probe_s=200",
               (const sc_want[]){{0, 1000, 0}, {1000, 6100, 1}, {1500, 1600, 0}});
    probe_case(jobs, far, 1, w1, "dike.probe_s=200",
               (const sc_want[]){{0, 1000, 0}, {1000, 6000, 0}, {6000, 6100, 0}});
    static const sc_job early[] = {{0, 1000, 8, "c"}, {1000, 5000, 8, "b"}, {1300, 100, 8, "c"}};
    probe_case(early, often, 1, w0, "dike.probe_s=400",
               (const sc_want[]){{0, 1000, 0}, {1000, 6100, 1}, {1400, 1500, 0}});
    /* Under oracle the probe is off whatever probe_s says: Q (100 s) takes V (4,500 s left) at once. */
    probe_case(early, often, 0, w0, "dike.probe_s=400",
               (const sc_want[]){{0, 1000, 0}, {1000, 6100, 1}, {1300, 1400, 0}});
}

/* A victim judged by the least N_avg it can end with while the cluster has GPUs to spare
 * (version 0.8). Two nodes of 8 GPUs (G = 16), restore 30 s, no lease, rounds far apart, oracle.
 *   0:    V (4 GPUs, 10,000 s) and four 1-GPU jobs of 1,000 s arrive: all on one node, A.
 *   1:    D (4 GPUs, 2,199 s) and four more 1-GPU jobs of 1,000 s arrive: node B, the only room.
 *   1000, 1001: the 1-GPU jobs end. A holds V, B holds D; 4 GPUs are free on each.
 *   2000: Q (8 GPUs, 100 s) arrives. No node has 8 free, and spread over both it would run at
 *         locality_rack: it does not start. D (200 s left: (0.9 x 200 - 30) x 4 = 600 < 100 x 8)
 *         may not be taken; V may by size (800 <= (0.9 x 8,000 - 30) x 4).
 *         V's N_avg so far: 5 jobs for 1 s, 10 for 999 s, 6 for 1 s, 2 for 999 s: 11,999 / 2,000
 *         = 5.9995. With that load for the rest, T_ideal_est = 10,000 x 4 x 5.9995 / 16 = 14,998.75
 *         and V's slack = 14,998.75 - 2,000 - 8,000 - 30 = 4,968.75 >= Q's 100 s: the guard of 0.7
 *         lets Q take V even at w = 1. But node B has 4 GPUs free, as many as V holds, so V is
 *         judged by the least N_avg it can end with, the rest (8,000 s + the restore) alone:
 *         (2,000 x 5.9995 + 8,030) / 10,030 = 1.997, 4 x 1.997 / 16 < 1, T_ideal_est = 10,000 and
 *         slack = -30 < 100. Left alone V is not late (it ends at 10,000, its fair finish), so
 *         w = 1 keeps V on its GPUs and Q waits for D: Q 2200-2300 on node B.
 *         (Taken, V would resume at once on B and end at 10,030; its N_avg over its stay is about
 *         2, so its T_ideal is its 10,000 s: unfair by the restore alone.)
 *   w = 0: no guard; Q takes V's node at 2000, 2000-2100; V resumes at once on B and pays the 30 s
 *         restore: 0-10,030, one preemption. */
static void test_dike_spare_slack(void **st)
{
    static const sc_job jobs[] = {{0, 10000, 4, "v"}, {0, 1000, 1, "b"}, {0, 1000, 1, "b"},
                                  {0, 1000, 1, "b"},  {0, 1000, 1, "b"}, {1, 2199, 4, "d"},
                                  {1, 1000, 1, "c"},  {1, 1000, 1, "c"}, {1, 1000, 1, "c"},
                                  {1, 1000, 1, "c"},  {2000, 100, 8, "q"}};
    const char *w1[] = {"cluster.nodes=2", DK_FAR30, "dike.fairness_weight=1", NULL};
    sc_expect(jobs, 11, w1,
              (const sc_want[]){{0, 10000, 0}, {0, 1000, 0}, {0, 1000, 0}, {0, 1000, 0}, {0, 1000, 0},
                                {1, 2200, 0}, {1, 1001, 0}, {1, 1001, 0}, {1, 1001, 0}, {1, 1001, 0},
                                {2200, 2300, 0}});
    const char *w0[] = {"cluster.nodes=2", DK_FAR30, "dike.fairness_weight=0", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 11, w0, &r), 0);
    expect_job(&r, 0, 0, 10030, 1);
    expect_job(&r, 5, 1, 2200, 0);
    expect_job(&r, 10, 2000, 2100, 0);
    dike_results_free(&r);
}

/* A wide gang's victims are judged on one state, before any of them stops (version 0.9). Three
 * nodes of 8 GPUs in one rack (G = 24), restore 30 s, no lease, rounds far apart, oracle, w = 1.
 *   0:    X (8 GPUs, 1,100 s; 8,800 GPU-s, first in order) takes node 0, V1 and V2 (8 GPUs,
 *         10,000 s) nodes 1 and 2; W1-W3 (8 GPUs, 20,000 s) wait: 6 jobs in the system.
 *   1000: Q (16 GPUs, 100 s; 1,600 GPU-s, first in order) needs two whole nodes. X (100 s left:
 *         (0.9 x 100 - 30) x 8 = 480 < 1,600) may not be taken, so node 0 cannot be emptied; V1
 *         and V2 (9,000 s left: (0.9 x 9,000 - 30) x 8 = 64,560) pass the size test. Their guard:
 *         N_avg = 6, T_ideal = 10,000 x max(1, 8 x 6 / 24) = 20,000, slack = 20,000 - 1,000 -
 *         9,000 - 30 = 9,970 >= Q's 100 s. Nothing is free, so the cluster has no GPUs to spare:
 *         both may be taken, Q 1000-1100 on nodes 1 and 2.
 *         (Judged after V1 had stopped, as before 0.9, V2 would have seen V1's 8 GPUs as spare
 *         and taken the least N_avg it can end with, (6 x 1,000 + 9,030) / 10,030 = 1.50, so
 *         T_ideal = 10,000 and slack -30 < 100: refused. Q would not start, and V1 would have
 *         been taken for nothing and restarted at once by fill-in, ending at 10,030.)
 *   1100: X and Q end. V1 and V2 (9,030 x 8 = 72,240 GPU-s with the restore) resume, pay 30 s,
 *         end at 1100 + 30 + 9,000 = 10,130; W1 (160,000) takes the third node, 1100-21,100.
 *   10,130: W2 and W3 10,130-30,130. */
static void test_dike_wide_one_state(void **st)
{
    static const sc_job jobs[] = {{0, 1100, 8, "x"},  {0, 10000, 8, "v"}, {0, 10000, 8, "v"},
                                  {0, 20000, 8, "w"}, {0, 20000, 8, "w"}, {0, 20000, 8, "w"},
                                  {1000, 100, 16, "q"}};
    const char *sets[] = {"cluster.nodes=3", DK_FAR30, "dike.fairness_weight=1", NULL};
    sc_expect(jobs, 7, sets,
              (const sc_want[]){{0, 1100, 0}, {0, 10130, 1}, {0, 10130, 1}, {1100, 21100, 0},
                                {10130, 30130, 0}, {10130, 30130, 0}, {1000, 1100, 0}});
}

/* A wide gang's victims are judged on what they could restart on once the gang runs (version 1.0):
 * the free GPUs of the other nodes the gang takes are not spare. Three nodes of 8 GPUs in one rack
 * (24 GPUs), restore 30 s, no lease, rounds far apart, oracle, w = 1. Order: remaining GPU-time.
 *   0:    A, B (8 GPUs, 1,000 s) and X (8 GPUs, 2,050 s) take the three nodes; W (24 GPUs,
 *         5,000 s; 120,000 GPU-s) waits and cannot take anyone (its measure is above theirs).
 *   10:   V (8 GPUs, 10,000 s; 80,000) waits (A's measure (0.9 x 990 - 30) x 8 = 6,888 < 80,000).
 *   1000: A and B end. W (first in order, 24 GPUs) does not fit; V starts on one freed node, the
 *         other stays free.
 *   2000: Q (16 GPUs, 3,000 s; 48,000, first in order) needs two whole nodes. X (50 s left:
 *         (0.9 x 50 - 30) x 8 = 120) cannot be taken; V (9,000 s left: (0.9 x 9,000 - 30) x 8 =
 *         64,560 >= 48,000) can by size. V's N_avg since 10: 5 jobs for 990 s, 3 for 1,000 s:
 *         7,950 / 1,990 = 3.99497. Q would take V's node and the free one, so once Q runs no GPU
 *         is free outside them: the load is at capacity and V is judged at that N_avg,
 *         T_ideal = 10,000 x 8 x 3.99497 / 24 = 13,316.6, slack = 10 + 13,316.6 - 2,000 - 9,000
 *         - 30 = 2,296.6 < Q's 3,000 s, and left alone V is not late (2,326.6 >= -1): refused.
 *         Q waits: 2050-5050 on X's node and the free one. V 1000-11,000, W 11,000-16,000.
 *         (Judged with the free node's 8 GPUs counted as spare, as before 1.0, V took the least
 *         N_avg it can end with, (7,950 + 9,030) / 11,020 = 1.54, T_ideal = 10,000, slack -1,020:
 *         late even if left alone, so taken: Q 2000-5000, V resumed on X's node at 2050 and
 *         ended at 2,050 + 30 + 9,000 = 11,080.)
 *   w = 0: no guard: Q takes V at 2000 as above. */
static void test_dike_wide_spare(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "a"},  {0, 1000, 8, "b"},   {0, 2050, 8, "x"},
                                  {0, 5000, 24, "w"}, {10, 10000, 8, "v"}, {2000, 3000, 16, "q"}};
    const char *w1[] = {"cluster.nodes=3", DK_FAR30, "dike.fairness_weight=1", NULL};
    sc_expect(jobs, 6, w1,
              (const sc_want[]){{0, 1000, 0}, {0, 1000, 0}, {0, 2050, 0}, {11000, 16000, 0},
                                {1000, 11000, 0}, {2050, 5050, 0}});
    const char *w0[] = {"cluster.nodes=3", DK_FAR30, "dike.fairness_weight=0", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 6, w0, &r), 0);
    expect_job(&r, 4, 1000, 11080, 1);
    expect_job(&r, 5, 2000, 5000, 0);
    dike_results_free(&r);
}

/* The other way round: a victim the per-node judgement refuses, found with the spare the gang
 * leaves (version 1.0: the nodes and the spare are found together). Three nodes of 8 GPUs in one
 * rack, restore 30 s, no lease, rounds far apart, oracle, w = 1.
 *   0:    A (8 GPUs, 1,000 s), X (8 GPUs, 2,050 s) and V (8 GPUs, 10,000 s) take the three nodes;
 *         W (24 GPUs, 5,000 s; 120,000 GPU-s, last in order) waits and cannot take anyone.
 *   1000: A ends: its node stays free (W does not fit).
 *   2000: Q (16 GPUs, d s) needs two whole nodes: the free one and V's (X, 50 s left, cannot be
 *         taken; V, 8,000 s left, can by size for d <= (0.9 x 8,000 - 30) x 8 / 16 = 3,585).
 *         V's N_avg since 0: 4 jobs for 1,000 s, 3 for 1,000 s: 3.5. Once Q runs no GPU is free
 *         outside its nodes, so V is judged at that N_avg: T_ideal = 10,000 x 8 x 3.5 / 24 =
 *         11,666.7, slack = 11,666.7 - 2,000 - 8,000 - 30 = 1,636.7.
 *   d = 1,000 <= 1,636.7: V may be taken. Q 2000-3000; V resumes on X's node when X ends:
 *         2,050 + 30 + 8,000 = 10,080; W 10,080-15,080.
 *         (Judged per node, as before 1.0, the free node's 8 GPUs counted as spare: V took the
 *         least N_avg it can end with, (7,000 + 8,030) / 10,030 = 1.50, T_ideal = 10,000, slack
 *         -30 < 1,000 and not late if left alone (0 >= -1): refused, and Q waited for X.)
 *   d = 2,000 > 1,636.7: refused. Q waits for X: 2050-4050 on X's node and the free one; V
 *         0-10,000; W 10,000-15,000. */
static void test_dike_wide_spare_found(void **st)
{
    static const sc_job fits[] = {{0, 1000, 8, "a"},  {0, 2050, 8, "x"},  {0, 10000, 8, "v"},
                                  {0, 5000, 24, "w"}, {2000, 1000, 16, "q"}};
    static const sc_job waits[] = {{0, 1000, 8, "a"},  {0, 2050, 8, "x"},  {0, 10000, 8, "v"},
                                   {0, 5000, 24, "w"}, {2000, 2000, 16, "q"}};
    const char *w1[] = {"cluster.nodes=3", DK_FAR30, "dike.fairness_weight=1", NULL};
    sc_expect(fits, 5, w1,
              (const sc_want[]){{0, 1000, 0}, {0, 2050, 0}, {0, 10080, 1}, {10080, 15080, 0},
                                {2000, 3000, 0}});
    sc_expect(waits, 5, w1,
              (const sc_want[]){{0, 1000, 0}, {0, 2050, 0}, {0, 10000, 0}, {10000, 15000, 0},
                                {2050, 4050, 0}});
}

/* Where the victims are. Two nodes of 8 GPUs (one rack). J0 and J1 (4 GPUs, 1000 s, a) share node
 * X (pack), J2 (8 GPUs, 400 s, b) has node Y; J3 (4 GPUs, 100 s, c) arrives at 100. N_avg = 3,
 * G = 16:
 *   J0, J1: T_ideal = 1000 x max(1, 4 x 3 / 16) = 1000, slack = 1000 - 100 - 900 = 0;
 *   J2:     T_ideal =  400 x max(1, 8 x 3 / 16) =  600, slack =  600 - 100 - 300 = 200.
 * Hysteresis: J3's 100 s x 4 GPUs is below 0.9 x 900 x 4 and 0.9 x 300 x 8 GPU-s.
 * w = 0: all three may be taken. X needs one 4-GPU victim (4 GPUs stop), Y needs J2 (8 GPUs
 *   stop): X, and of J0 and J1 the lower index, J0. J3 100-200 on X. J0 (900 s left) is next in
 *   order but may take neither J1 (900 x 4 > 0.9 x 900 x 4) nor J2 (3600 > 0.9 x 300 x 8 = 2160
 *   GPU-s). At 200 it resumes on X: 200-1100. J1 0-1000, J2 0-400.
 * w = 1: J0 and J1 have no slack for J3's 100 s; J2 has 200: J3 takes Y, 100-200. J2 (300 x 8)
 *   is next and may not take J0 or J1 (2400 > 0.9 x 3600 is false, but they have no slack for its
 *   300 s); at 200 it resumes on Y: 200-500. */
static void test_dike_victim_nodes(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 4, "a"}, {0, 1000, 4, "a"}, {0, 400, 8, "b"}, {100, 100, 4, "c"}};
    const char *w0[] = {"cluster.nodes=2", DK_BASE, "scheduler.round_s=100000",
                        "scheduler.placement=pack", "dike.fairness_weight=0", NULL};
    const char *w1[] = {"cluster.nodes=2", DK_BASE, "scheduler.round_s=100000",
                        "scheduler.placement=pack", "dike.fairness_weight=1", NULL};
    sc_expect(jobs, 4, w0, (const sc_want[]){
        {0, 1100, 1}, {0, 1000, 0}, {0, 400, 0}, {100, 200, 0}});
    sc_expect(jobs, 4, w1, (const sc_want[]){
        {0, 1000, 0}, {0, 1000, 0}, {0, 500, 1}, {100, 200, 0}});
}

/* The cheapest node is found where it comes later in node order: the walk over the nodes may not
 * stop at the first node that can make room. Two nodes of 8 GPUs, w = 0, no restore cost or lease.
 * At 0, in Smith's order: J0 and J1 (4 GPUs x 1,000 s = 4,000 GPU-s, a) fill node 0 (pack);
 * J2, J3, J4 (2 GPUs x 2,050 s = 4,100, b) take 6 GPUs of node 1, which keeps 2 free.
 * At 100 Q (4 GPUs, 100 s, c) does not fit. Its 400 GPU-s pass the size test against all five
 * (J0, J1: 0.9 x 900 x 4 = 3,240; J2-J4: 0.9 x 1,950 x 2 = 3,510). Node 0 must stop a 4-GPU job
 * (4 GPUs), node 1 one 2-GPU job (2 GPUs), the first by index, J2: Q takes node 1, 100-200.
 * J2 (1,950 s left, 3,900 GPU-s) may then take no one (J0: 3,240 < 3,900; J3: 0.9 x 3,900 <
 * 3,900) and resumes when Q ends: 200-2,150.
 * Stopping at node 0, the first node that can make room, would take J0 (and no chain sends Q to
 * node 1: J0's 3,600 GPU-s do not pass against J2's 3,510): J0 100-200 off, ending at 1,100. */
static void test_dike_cheapest_later_node(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 4, "a"}, {0, 1000, 4, "a"}, {0, 2050, 2, "b"},
                                  {0, 2050, 2, "b"}, {0, 2050, 2, "b"}, {100, 100, 4, "c"}};
    const char *w0[] = {"cluster.nodes=2", DK_BASE, "scheduler.round_s=100000",
                        "scheduler.placement=pack", "dike.fairness_weight=0", NULL};
    sc_expect(jobs, 6, w0, (const sc_want[]){{0, 1000, 0}, {0, 1000, 0}, {0, 2150, 1},
                                             {0, 2050, 0}, {0, 2050, 0}, {100, 200, 0}});
}

/* Starts where the gang runs at its best rate. Two nodes of 8 GPUs in one rack; no preemption
 * (hysteresis 1). J0 (6 GPUs, 1000 s, a) and J1 (6 GPUs, 2000 s, b) at 0 take a node each (6 + 6
 * do not fit in 8): 2 GPUs stay free on each. J2 (4 GPUs, 300 s, c) arrives at 10: 4 GPUs are
 * free, but only spread over the two nodes, where it would run at cluster.locality_rack (0.4246)
 * of its rate, i.e. 300 / 0.4246 = 707 s. It waits for a whole node: at 1000 J0 ends and J2 runs
 * 1000-1300 on J0's node. With locality factors of 1 spreading costs nothing: J2 10-310. */
static void test_dike_local_start(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 6, "a"}, {0, 2000, 6, "b"}, {10, 300, 4, "c"}};
    const char *slow[] = {"cluster.nodes=2", "cluster.nodes_per_rack=2", DK_BASE,
                          "scheduler.round_s=100000", "dike.hysteresis=1", NULL};
    const char *flat[] = {"cluster.nodes=2", "cluster.nodes_per_rack=2", DK_BASE,
                          "scheduler.round_s=100000", "dike.hysteresis=1",
                          "cluster.locality_rack=1", "cluster.locality_cross_rack=1", NULL};
    dike_results r;
    sc_expect(jobs, 3, slow, (const sc_want[]){{0, 1000, 0}, {0, 2000, 0}, {1000, 1300, 0}});
    assert_int_equal(sc_run(jobs, 3, flat, &r), 0);
    expect_job(&r, 2, 10, 310, 0);
    dike_results_free(&r);
}

/* A guarded job keeps its GPUs for the lease, dike.min_lease_s (400 s here), looked at in rounds
 * of 100 s; a job that is not guarded has none. The lease yields to a candidate that would be
 * made unfair by waiting for it to end. J0 is job index 0, frac(0.618...) = 0.618: guarded at
 * w = 1 and 0.7, not at 0.5 or 0. One node of 8 GPUs. J0 (8 GPUs, 1000 s, a) and J1 (8 GPUs, 3000 s, b) at 0: J0 (8,000 GPU-s) runs, J1 (24,000)
 * waits. J2 (8 GPUs, d s, c) arrives at 100, first in order, and does not fit. The size test holds
 * whenever J0 may be taken (d x 8 <= 0.9 x J0's 600..900 s left x 8 for d <= 200).
 * J2's slack at 100: N_avg = 3 (no time has passed: the jobs in the system), T_ideal = 3d,
 * slack = 100 + 3d - 100 - d = 2d. J0's guard: at 100, N_avg = 2, T_ideal 2000, 900 s left,
 * slack 1000; at 200, N_avg = (2 x 100 + 3 x 100) / 200 = 2.5, T_ideal 2500, slack 1500; at 400,
 * N_avg = (2 x 100 + 3 x 300) / 400 = 2.75, T_ideal 2750, 600 s left, slack 1750: always >= w x d.
 *   d = 100, w = 0: no lease, no guard: J0 preempted at 100: J2 100-200, J0 200-1100.
 *   d = 100, w = 1: lease 400 s, 300 s left at 100 > J2's slack 200: J2 cannot wait for it and
 *     stay fair, so it yields: J0 preempted at 100. J2 100-200, J0 200-1100.
 *   J1 runs 1100-4100 in these two cases.
 *   d = 200, w = 0 or 0.5 (J0 not guarded): J0 preempted at 100: J2 100-300, J0 300-1200.
 *   d = 200, w = 0.7 or 1 (J0 guarded): J2's slack 400 >= 300 left: the lease holds. At 200:
 *     N_avg of J2 = 3, slack 100 + 600 - 200 - 200 = 300 >= 200 left; at 300: 200 >= 100 left; at
 *     400 the lease is over: J0 preempted. J2 400-600, J0 600-1200.
 *   J1 runs 1200-4200 in these four. */
static void test_dike_lease_knob(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "a"}, {0, 3000, 8, "b"}, {100, 100, 8, "c"}};
    static const char *const w[] = {"dike.fairness_weight=0", "dike.fairness_weight=1"};
    for (int k = 0; k < 2; k++) {
        const char *sets[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100",
                              "dike.min_lease_s=400", w[k], NULL};
        sc_expect(jobs, 3, sets, (const sc_want[]){{0, 1100, 1}, {1100, 4100, 0}, {100, 200, 0}});
    }
    static const sc_job patient[] = {{0, 1000, 8, "a"}, {0, 3000, 8, "b"}, {100, 200, 8, "c"}};
    static const char *const pw[] = {"dike.fairness_weight=0", "dike.fairness_weight=0.5",
                                     "dike.fairness_weight=0.7", "dike.fairness_weight=1"};
    static const double at[] = {100, 100, 400, 400};
    for (int k = 0; k < 4; k++) {
        const char *sets[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100",
                              "dike.min_lease_s=400", pw[k], NULL};
        sc_expect(patient, 3, sets, (const sc_want[]){
            {0, 1200, 1}, /* J0 runs 0-at, waits J2's 200 s, then its 1000 - at left */
            {1200, 4200, 0}, {at[k], at[k] + 200, 0}});
    }
}

/* Each restore is paid on the GPUs of the job that pays it. One node of 8 GPUs, restore cost
 * 100 s, w = 0 (no guard, no lease). J0 (8 GPUs, 1000 s, a) at 0; J1 (1 GPU, X s, b) at 100. At
 * 100 J0 has 900 s left; J1 may take it if X x 1 <= (0.9 x 900 - 100) x 8 = 5680 GPU-s: J0's
 * restore stops all 8 of its GPUs for 100 s. (Counted on J1's one GPU, as if
 * (X + 100) x 1 <= 0.9 x 900 x 8, X = 6000 would pass.)
 *   X = 6000: no preemption. J0 0-1000, J1 1000-7000.
 *   X = 5000: J0 preempted at 100. J1 100-5100 (7 GPUs stay free: J0 needs 8, and J1 started
 *     at this instant may not be taken); J0 resumes at 5100, pays 100 s, 900 s left: ends 6100. */
static void test_dike_victim_restore(void **st)
{
    static const sc_job big[] = {{0, 1000, 8, "a"}, {100, 6000, 1, "b"}};
    static const sc_job small[] = {{0, 1000, 8, "a"}, {100, 5000, 1, "b"}};
    const char *sets[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100000",
                          "dike.fairness_weight=0", "scheduler.preemption_cost_s=100", NULL};
    sc_expect(big, 2, sets, (const sc_want[]){{0, 1000, 0}, {1000, 7000, 0}});
    sc_expect(small, 2, sets, (const sc_want[]){{0, 6100, 1}, {100, 5100, 0}});
}

/* A gang wider than a node takes whole nodes in one rack when one suffices. Four nodes of 8 GPUs,
 * racks of two ({0, 1}, {2, 3}), w = 0. At 0: J0 (8 GPUs, 1000 s, a), J1, J2, J3 (8 GPUs, 5000 s,
 * b, c, d) take a node each, in order. J4 (16 GPUs, 1000 s, e) arrives at 100: 16,000 GPU-s,
 * first in order, nothing free. J0 (900 s left: 0.9 x 900 x 8 = 6480 < 16,000) may not be taken;
 * J1, J2, J3 (4900 s left: 35,280) may. The first emptiable nodes are 1 and 2 (two racks, where
 * J4 would run at cluster.locality_cross_rack / locality_rack of its rate); rack 1 has two: J2
 * and J3 are preempted and J4 runs on nodes 2 and 3 at its best rate, 100-1100. At 1000 J0 ends:
 * J2 (4900 s left, lower index than J3) resumes on node 0, 1000-5900; at 1100 J3 resumes,
 * 1100-6000. J1 0-5000. */
static void test_dike_wide_rack(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "a"}, {0, 5000, 8, "b"}, {0, 5000, 8, "c"},
                                  {0, 5000, 8, "d"}, {100, 1000, 16, "e"}};
    const char *sets[] = {"cluster.nodes=4", "cluster.nodes_per_rack=2", DK_BASE,
                          "scheduler.round_s=100000", "dike.fairness_weight=0", NULL};
    sc_expect(jobs, 5, sets, (const sc_want[]){
        {0, 1000, 0}, {0, 5000, 0}, {0, 5900, 1}, {0, 6000, 1}, {100, 1100, 0}});
}

/* A gang never mixes GPU types, so the whole nodes emptied for a wide gang are of one type. Four
 * nodes of 8 GPUs in one rack, nodes 0-1 of type a and 2-3 of type b (same speed), restore 30 s,
 * no lease, rounds far apart, w = 0 (the size test alone). A and B are pinned to type a, C and D
 * to b; Q (16 GPUs) may run on either type.
 *   0:    in order of remaining GPU-time B and D (1,000 s), then A and C (5,000 s): one long and one
 *         short job on each type's two nodes.
 *   100:  Q (16 GPUs, 1,000 s: 16,000 GPU-s) does not fit. B and D (900 s left: (0.9 x 900 - 30) x
 *         8 = 6,240) cannot be taken; A and C (4,900 s left: 35,040) can. Their nodes make 16 GPUs,
 *         but one of each type: Q could not start there, so nobody is taken. (Until 2026-12-05 both
 *         were taken, Q did not start, and fill-in restarted them at once: 30 s lost each, and the
 *         same again at every later decision.)
 *   1000: B and D end. Type a now has B's free node and A's (4,000 s left: 28,560 >= 16,000): A is
 *         taken, Q runs 1000-2000 on type a; A resumes there at 2000 and ends 2000 + 30 + 4,000 =
 *         6,030. C 0-5000. */
static void test_dike_wide_one_type(void **st)
{
    static const sc_job jobs[] = {{0, 5000, 8, "a", 1}, {0, 1000, 8, "a", 1}, {0, 5000, 8, "b", 2},
                                  {0, 1000, 8, "b", 2}, {100, 1000, 16, "q", 0}};
    const char *sets[] = {"cluster.nodes=4", "cluster.nodes_per_rack=4", "cluster.gpu_types=a:2,b:2",
                          DK_FAR30, "dike.fairness_weight=0", NULL};
    sc_expect(jobs, 5, sets, (const sc_want[]){
        {0, 6030, 1}, {0, 1000, 0}, {0, 5000, 0}, {0, 1000, 0}, {1000, 2000, 0}});
}

/* The swap margin learned from estimate errors (noisy durations: a job's estimate is its duration
 * x exp(sigma Z), Z drawn from the stream (run.seed, job index, DIKE_STREAM_DURATION_ERROR); the
 * test draws the same Z). One node, w = 0, hysteresis 0, no lease, no restore cost, sigma 1.
 *   0:    J0 (8 GPUs, 1000 s) runs 0-1000; its estimate was E0 = 1000 e^Z0, off by the factor
 *         e^|Z0|: the margin becomes m = e^|Z0| (one finished job).
 *   1000: J1 (8 GPUs, 100,000 s, estimate E1 = 100,000 e^Z1) starts.
 *   T:    J2 (8 GPUs, 100 s, estimate E2 = 100 e^Z2) arrives; T is chosen so that J1's estimated
 *         remaining, R1 = E1 - (T - 1000), is E2 (1 + m) / 2: between J2's estimate and m times
 *         it. Without a margin J2 would take J1's GPUs (E2 <= R1); with it, m E2 > R1: no swap.
 *         Nothing happens before J1 ends (rounds of 10^7 s): J1 1000-101,000, J2 101,000-101,100.
 * Under `none` the margin stays 1 (docs/dike.md). Bh (b, 3600 s) runs 0-3600, estimated 3600 s
 * (the prior): error 0. Ah (a, 900 s) runs 3600-4500, estimated 3600 s (all finished jobs' mean; a
 * has none): error log 4, which would make a margin of exp(log 4 / 2) = 2. B (b, 10,000 s) starts
 * at 4500 estimated 3600 s (b's mean). At 6500 C (a, 500 s, estimated 900 s: a's mean) finds B with
 * 3600 - 2000 = 1600 s estimated left: 900 <= 1600, so C takes B's GPUs (a margin of 2 would have
 * stopped it: 1800 > 1600): C 6500-7000, B resumes with 8000 s left, 7000-15,000. */
static void test_dike_estimate_margin(void **st)
{
    const double seed = 1, sigma = 1;
    double z[3];
    gsl_rng *g = dike_rng_gsl_alloc((uint64_t)seed, 0, DIKE_STREAM_DURATION_ERROR);
    for (int i = 0; i < 3; i++) {
        dike_rng_gsl_rekey(g, (uint64_t)seed, (uint64_t)i, DIKE_STREAM_DURATION_ERROR);
        z[i] = sigma * gsl_ran_gaussian(g, 1.0);
    }
    gsl_rng_free(g);
    double m = exp(fabs(z[0])), e1 = 100000 * exp(z[1]), e2 = 100 * exp(z[2]);
    double t = 1000 + e1 - e2 * (1 + m) / 2;
    assert_true(fabs(z[0]) > 0.1); /* a margin worth testing: m E2 is 10% above E2 or more */
    assert_true(t > 1001 && t < 101000);
    sc_job noisy[] = {{0, 1000, 8, "a"}, {1000, 100000, 8, "b"}, {t, 100, 8, "c"}};
    const char *sets[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=10000000",
                          "dike.fairness_weight=0", "dike.hysteresis=0",
                          "scheduler.duration_knowledge=noisy", "scheduler.duration_error_sigma=1",
                          "run.seed=1", NULL};
    sc_expect(noisy, 3, sets, (const sc_want[]){
        {0, 1000, 0}, {1000, 101000, 0}, {101000, 101100, 0}});

    static const sc_job none[] = {{0, 3600, 8, "b"}, {3600, 900, 8, "a"}, {4500, 10000, 8, "b"},
                                  {6500, 500, 8, "a"}};
    const char *nsets[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100000",
                           "dike.fairness_weight=0", "dike.hysteresis=0",
                           "scheduler.duration_knowledge=none", NULL};
    sc_expect(none, 4, nsets, (const sc_want[]){
        {0, 3600, 0}, {3600, 4500, 0}, {4500, 15000, 1}, {6500, 7000, 0}});
}

/* A chain of swaps taken at its end. Two nodes of 8 GPUs (pack). At 0 J0 (8 GPUs, 1000 s, a) starts
 * on node 0 and J1 (8 GPUs, 10,000 s, b) on node 1; J2 (8 GPUs, 100 s, c) arrives at 100. w = 0,
 * hysteresis 0.1, restore cost 10 s.
 *   J2 may take either: 100 x 8 <= (0.9 x 900 - 10) x 8 = 6400 and <= (0.9 x 9900 - 10) x 8 = 71,200
 *   GPU-s. Both nodes stop 8 GPUs; the first, node 0 (J0), is chosen.
 *   J0, if taken, would at once take J1's GPUs: (900 + 10 restore) x 8 = 7280 <= 71,200 (and J1
 *   may not take J0's: (9900 + 10) x 8 > 6400). So J2 takes J1's node directly, the job the chain
 *   would have ended with: J2 100-200 on node 1, J0 keeps node 0, 0-1000; J1 resumes at 200,
 *   pays 10 s: 200-10,110. One preemption.
 *   (Without the chain followed: J2 takes J0's node, J0 takes J1's at 100 and ends at
 *   100 + 10 + 900 = 1010: two preemptions, and J0 pays a restore for nothing.)
 * With w = 1 neither may be taken (N_avg = 2, G = 16: T_ideal = duration, slack 0 < 100): J2 runs
 * when J0 ends, 1000-1100. */
static void test_dike_chain(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 8, "a"}, {0, 10000, 8, "b"}, {100, 100, 8, "c"}};
    const char *w0[] = {"cluster.nodes=2", DK_BASE, "scheduler.round_s=100000",
                        "scheduler.placement=pack", "dike.fairness_weight=0",
                        "scheduler.preemption_cost_s=10", NULL};
    const char *w1[] = {"cluster.nodes=2", DK_BASE, "scheduler.round_s=100000",
                        "scheduler.placement=pack", "dike.fairness_weight=1",
                        "scheduler.preemption_cost_s=10", NULL};
    sc_expect(jobs, 3, w0, (const sc_want[]){{0, 1000, 0}, {0, 10110, 1}, {100, 200, 0}});
    sc_expect(jobs, 3, w1, (const sc_want[]){{0, 1000, 0}, {0, 10000, 0}, {1000, 1100, 0}});
}

/* The late pass (dike.late_pass): one job made late absorbs a burst. One node of 8 GPUs, w = 1,
 * no restore cost, decisions at events only. J0 (8 GPUs, 500 s, a) and J1 (8 GPUs, 1000 s, b) at
 * 0: J0 0-500, J1 from 500 (test_dike_knob). J2 (8 GPUs, 100 s, c) at 1000, J3 (8 GPUs, 100 s, c)
 * at 1100.
 *   At 1000 the guard refuses J1 for J2: J1's N_avg since 0 is (2 x 500 + 1 x 500) / 1000 = 1.5,
 *   T_ideal 1500, slack 1500 - 1000 - 500 = 0 < 100, and it is not late if left alone.
 *   - late_pass off: J2 waits. At 1100 (J3 arrives) J1's N_avg = (1000 + 500 + 2 x 100) / 1100 =
 *     1.545, slack 1545.5 - 1100 - 400 = 45.5 < 100: refused again. J1 500-1500, J2 1500-1600,
 *     J3 1600-1700: J2 and J3 wait 500 s each and both finish unfairly.
 *   - late_pass on: J2 could finish fairly if it started now (2 jobs in the system at its
 *     arrival: T_ideal 100 x 8 x 2 / 8 = 200, slack 200 - 100 = 100 >= 0), but no GPU frees before
 *     J1's estimated end at 1500, 500 s > 100: the guard is set aside, and J2 takes J1 (100 x 8 <=
 *     0.9 x 500 x 8). J2 1000-1100; at 1100 J3 (800 GPU-s) goes before J1 (4000): 1100-1200; J1
 *     resumes 1200-1700. Only J1 is late (T_ideal 1000 x 2400 / 1700 = 1411.8 < 1700).
 *   - on, with a lease of 600 s: J1 has run 500 s, and J2's slack (100) is no shorter than the
 *     lease left (100), so the lease holds in the guard's pass; the late pass sets it aside: the
 *     same schedule.
 *   - on, but five more jobs (8 GPUs, 5000 s) arrive with J2 at 1000: 7 jobs in the system, J2's
 *     T_ideal 700, slack 600 >= the 500 s until J1 ends. J2 can wait and still be fair, so nobody
 *     is made late: J1 500-1500, J2 1500-1600, then the five, 5000 s each, from 1600. */
static void test_dike_late_pass(void **st)
{
    static const sc_job jobs[] = {{0, 500, 8, "a"}, {0, 1000, 8, "b"}, {1000, 100, 8, "c"},
                                  {1100, 100, 8, "c"}};
    static const sc_want kept[] = {{0, 500, 0}, {500, 1500, 0}, {1500, 1600, 0}, {1600, 1700, 0}};
    static const sc_want taken[] = {{0, 500, 0}, {500, 1700, 1}, {1000, 1100, 0}, {1100, 1200, 0}};
    const char *off[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100000",
                         "dike.fairness_weight=1", NULL};
    const char *on[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100000",
                        "dike.fairness_weight=1", "dike.late_pass=true", NULL};
    const char *lease[] = {"cluster.nodes=1", DK_BASE, "scheduler.round_s=100000",
                           "dike.fairness_weight=1", "dike.late_pass=true", "dike.min_lease_s=600",
                           NULL};
    (void)st;
    sc_expect(jobs, 4, off, kept);
    sc_expect(jobs, 4, on, taken);
    sc_expect(jobs, 4, lease, taken);
    static const sc_job batch[] = {{0, 500, 8, "a"},     {0, 1000, 8, "b"},    {1000, 100, 8, "c"},
                                   {1000, 5000, 8, "d"}, {1000, 5000, 8, "d"}, {1000, 5000, 8, "d"},
                                   {1000, 5000, 8, "d"}, {1000, 5000, 8, "d"}};
    sc_expect(batch, 8, on, (const sc_want[]){{0, 500, 0}, {500, 1500, 0}, {1500, 1600, 0},
                                              {1600, 6600, 0}, {6600, 11600, 0},
                                              {11600, 16600, 0}, {16600, 21600, 0},
                                              {21600, 26600, 0}});
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waterfill_weights), cmocka_unit_test(test_las_queues),
        cmocka_unit_test(test_las_promotion),     cmocka_unit_test(test_las_restore_not_service),
        cmocka_unit_test(test_las_latency_not_service),
        cmocka_unit_test(test_las_round_walk),
        cmocka_unit_test(test_themis),
        cmocka_unit_test(test_themis_close_rho),  cmocka_unit_test(test_themis_rho_index_same),
        cmocka_unit_test(test_gandiva_fair),      cmocka_unit_test(test_gandiva_fair_short_rounds),
        cmocka_unit_test(test_drf),
        cmocka_unit_test(test_drf_blocked_tenant),
        cmocka_unit_test(test_dike_shortest_first), cmocka_unit_test(test_dike_preemption),
        cmocka_unit_test(test_dike_knob),           cmocka_unit_test(test_dike_victim_nodes),
        cmocka_unit_test(test_dike_cheapest_later_node),
        cmocka_unit_test(test_dike_local_start),    cmocka_unit_test(test_dike_lease_knob),
        cmocka_unit_test(test_dike_victim_restore), cmocka_unit_test(test_dike_wide_rack),
        cmocka_unit_test(test_dike_wide_one_type),
        cmocka_unit_test(test_dike_estimate_margin), cmocka_unit_test(test_dike_chain),
        cmocka_unit_test(test_dike_late_pass),
        cmocka_unit_test(test_dike_outlived_estimate), cmocka_unit_test(test_dike_outlived_queued),
        cmocka_unit_test(test_dike_probe),
        cmocka_unit_test(test_dike_spare_slack),
        cmocka_unit_test(test_dike_wide_one_state),
        cmocka_unit_test(test_dike_wide_spare),
        cmocka_unit_test(test_dike_wide_spare_found),
        cmocka_unit_test(test_dike_guard_bounds),
        cmocka_unit_test(test_dike_guard_bounds_same),
        cmocka_unit_test(test_dike_keyed_refresh_same),
        cmocka_unit_test(test_dike_est_slack_same),
        cmocka_unit_test(test_srtf_keyed_refresh_same),
        cmocka_unit_test(test_srtf_rate_classes_same),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
