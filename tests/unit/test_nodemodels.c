/* The node models (docs/models.md), each on a hand-worked case: the expected finish times are
 * computed in the comments from the model's definition, not taken from a run. Every scenario runs
 * in the emulating mode (the node ranks track progress) on one rank; tests/mpi/equivalence.sh
 * checks the same mode on 1-4 ranks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dike/nodemodel.h"
#include "dike/rng.h"
#include "scenario.h"

#define EPS 2e-6 /* one microsecond of rounding either way */

/* ---- the pure functions ---- */

static void test_interference_factor(void **st)
{
    (void)st;
    /* one neighbour stretches the step by 20 %: speed 1 / 1.2; three: 1 / 1.6 */
    assert_float_equal(dike_interference_factor(0.2, 1), 1 / 1.2, 1e-15);
    assert_float_equal(dike_interference_factor(0.2, 3), 1 / 1.6, 1e-15);
    assert_float_equal(dike_interference_factor(0.2, 0), 1.0, 0);
}

static void test_maxmin_by_hand(void **st)
{
    (void)st;
    double share[3];
    uint32_t order[3];
    /* 16 Gb/s for demands 5 and 15: the equal split (8) covers the 5, the 15 gets the other 11 */
    dike_netshare_maxmin(16, 2, (double[]){15, 5}, share, order);
    assert_float_equal(share[0], 11, 1e-12);
    assert_float_equal(share[1], 5, 1e-12);
    /* 10 Gb/s for three demands of 10: a third each */
    dike_netshare_maxmin(10, 3, (double[]){10, 10, 10}, share, order);
    for (int i = 0; i < 3; i++)
        assert_float_equal(share[i], 10.0 / 3, 1e-12);
    /* enough for everyone: each gets its demand */
    dike_netshare_maxmin(100, 2, (double[]){15, 5}, share, order);
    assert_float_equal(share[0], 15, 1e-12);
    assert_float_equal(share[1], 5, 1e-12);
    /* half the bandwidth, half the step communicating: 0.5 + 0.5 / 0.5 = 1.5, speed 2/3 */
    assert_float_equal(dike_net_factor(0.5, 0.5), 2.0 / 3, 1e-15);
    assert_float_equal(dike_net_factor(0.5, 1.0), 1.0, 0);
}

/* From any starting order the shares and the final order are those of a fresh sort. 16 Gb/s,
 * demands 15, 5, 5: by (demand, index) the order is 1, 2, 0. Flow 1 gets 5 (level 16/3), flow 2
 * gets 5 (level 11/2), flow 0 the 6 left. */
static void test_maxmin_from_any_order(void **st)
{
    (void)st;
    static const uint32_t starts[][3] = {{0, 1, 2}, {2, 1, 0}, {0, 2, 1}, {1, 2, 0}};
    for (size_t t = 0; t < sizeof starts / sizeof *starts; t++) {
        double share[3];
        uint32_t order[3] = {starts[t][0], starts[t][1], starts[t][2]};
        dike_netshare_maxmin_from(16, 3, (double[]){15, 5, 5}, share, order);
        assert_int_equal(order[0], 1);
        assert_int_equal(order[1], 2);
        assert_int_equal(order[2], 0);
        assert_float_equal(share[0], 6, 1e-12);
        assert_float_equal(share[1], 5, 1e-12);
        assert_float_equal(share[2], 5, 1e-12);
    }
}

/* ---- interference ---- */

/* One node of 8 GPUs, A (4 GPUs, 100 s) and B (4 GPUs, 50 s) submitted at 0, interference 0.2,
 * no latency. Both run at 1/1.2 while the other is there. B needs 50 s of work: 60 s. A has then
 * done 60 / 1.2 = 50 s of work, and does the other 50 alone: finishes at 110 s. */
static void test_interference_two_jobs(void **st)
{
    (void)st;
    sc_job jobs[] = {{0, 100, 4, "a"}, {0, 50, 4, "b"}};
    const char *sets[] = {"cluster.nodes=1", "node_model.interference=0.2", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    assert_float_equal(r.jobs[1].start_time, 0, EPS);
    assert_float_equal(r.jobs[1].finish_time, 60, EPS);
    assert_float_equal(r.jobs[0].finish_time, 110, EPS);
    dike_results_free(&r);
}

/* The same with scheduler.decision_latency_s = 2: both start on the node at 2 s (decided at 0, so
 * start_time stays 0). B finishes at 2 + 60 = 62; its release reaches the node at 64, so A runs at
 * 1/1.2 from 2 to 64: 62 / 1.2 = 51.6666667 s of work, 48.3333333 left at full speed; in whole
 * microseconds ceil(48333333.33) = 48333334 us: A finishes at 64 + 48.333334 = 112.333334 s. */
static void test_interference_latency(void **st)
{
    (void)st;
    sc_job jobs[] = {{0, 100, 4, "a"}, {0, 50, 4, "b"}};
    const char *sets[] = {"cluster.nodes=1", "node_model.interference=0.2",
                          "scheduler.decision_latency_s=2", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    assert_float_equal(r.jobs[0].start_time, 0, EPS);
    assert_float_equal(r.jobs[1].finish_time, 62, EPS);
    assert_float_equal(r.jobs[0].finish_time, 112.333334, EPS);
    dike_results_free(&r);
}

/* Turning the model on changes results the way it is defined: with no neighbour and no latency
 * every job takes exactly its duration; with interference > 0 a job that shared a node takes
 * longer, and no job ever finishes sooner than its duration (a light load on a small cluster, so
 * that jobs share nodes but hardly queue). */
static void test_interference_direction(void **st)
{
    (void)st;
    sc_job jobs[] = {{0, 300, 2, "a"}, {10, 200, 2, "b"}, {20, 100, 4, "a"}, {400, 100, 8, "b"},
                     {600, 50, 1, "a"}};
    const size_t n = sizeof jobs / sizeof jobs[0];
    const char *off[] = {"cluster.nodes=1", "node_model.progress=nodes", NULL};
    const char *on[] = {"cluster.nodes=1", "node_model.interference=0.3", NULL};
    dike_results a, b;
    assert_int_equal(sc_run(jobs, n, off, &a), 0);
    assert_int_equal(sc_run(jobs, n, on, &b), 0);
    int slower = 0;
    for (size_t i = 0; i < n; i++) {
        /* off: nothing slows a job down, and nobody queues (8 GPUs hold the first three) */
        assert_float_equal(a.jobs[i].finish_time - a.jobs[i].start_time, jobs[i].duration, EPS);
        assert_true(b.jobs[i].finish_time - b.jobs[i].start_time >= jobs[i].duration - EPS);
        slower += b.jobs[i].finish_time > a.jobs[i].finish_time + EPS;
    }
    /* the first three share the node: each is slower */
    assert_true(slower >= 3);
    /* job 0 has 1 neighbour from 10 s and 2 from 20 s until at least 180 s (job 2's 100 s of work
     * at 1/1.6 end there): by then it has done 10 + 10/1.3 + 160/1.6 = 117.7 s of its 300, so even
     * alone at full speed afterwards it ends after 180 + 182.3 = 362.3 s */
    assert_true(b.jobs[0].finish_time > 362.3 - EPS);
    dike_results_free(&a);
    dike_results_free(&b);
}

/* ---- slowdowns ---- */

/* The engine's draw: exponential with the given mean, in whole microseconds, at least 1. */
static double draw_us(dike_rng *r, double mean_s)
{
    double us = (double)llround(-log(dike_rng_uniform(r)) * mean_s * 1e6);
    return us > 0 ? us : 1;
}

/* One 8-GPU job on one node; the node's first episode starts at t1 (drawn from its stream) and
 * halves its speed for 600 s. The job (duration ceil(t1) + 1000 s) has then 1000 + s of work
 * left, does 300 s of it during the episode and the rest at full speed: it finishes at its
 * duration + 300 s, if the next episode comes later. */
static void test_slowdown_episode(void **st)
{
    (void)st;
    const double mtbf = 50000, dur = 600;
    dike_rng rng;
    dike_rng_init(&rng, 11, 0, DIKE_STREAM_SLOWDOWN); /* seed 11, node 0 */
    double t1 = draw_us(&rng, mtbf);
    double t3 = t1 + dur * 1e6 + draw_us(&rng, mtbf);
    double duration = ceil(t1 / 1e6) + 1000;
    double finish = duration + dur / 2;
    if (!(finish * 1e6 < t3))
        fail_msg("precondition: the next episode (%.6f s) comes before the finish", t3 / 1e6);
    sc_job jobs[] = {{0, 0, 8, "a"}};
    jobs[0].duration = duration;
    const char *sets[] = {"cluster.nodes=1", "run.seed=11", "node_model.slowdown_mtbf_s=50000",
                          "node_model.slowdown_duration_s=600", "node_model.slowdown_factor=0.5", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 1, sets, &r), 0);
    assert_float_equal(r.jobs[0].finish_time, finish, EPS);
    dike_results_free(&r);

    /* factor 1: the episodes change nothing */
    const char *neutral[] = {"cluster.nodes=1", "run.seed=11", "node_model.slowdown_mtbf_s=50000",
                             "node_model.slowdown_factor=1", NULL};
    assert_int_equal(sc_run(jobs, 1, neutral, &r), 0);
    assert_float_equal(r.jobs[0].finish_time, duration, EPS);
    dike_results_free(&r);
}

/* ---- network = rack ---- */

/* Three nodes of 4 GPUs, one node per rack, uplinks of 16 Gb/s, 10 Gb/s per GPU, and
 * locality_cross_rack = 0.5, so a gang that must cross racks spends iota = 1 - 0.5 = 0.5 of its
 * step communicating. A (5 GPUs, 100 s) takes 4 GPUs of one node (rack X) and 1 of another (rack
 * S); B (7 GPUs, 100 s) the 3 left on S and the 4 of the third (rack Y). Demands are iota x GPUs x
 * 10: A 20 on X and 5 on S, B 15 on S and 20 on Y.
 *   X: A alone, 16 of 20: q = 0.8, factor 1 / (0.5 + 0.5 / 0.8) = 1 / 1.125 = 0.888889.
 *   Y: the same for B.
 *   S: max-min of 16 over 5 and 15: A gets 5 (q = 1), B 11 (q = 11/15),
 *      factor 1 / (0.5 + 0.5 x 15/11) = 1 / (0.5 + 0.681818) = 0.846154.
 * A runs at min(0.888889, 1) = 8/9: 100 s of work in 112.5 s. B runs at 0.846154 (its slowest rack)
 * until A leaves at 112.5 s: 112.5 x 0.846154 = 95.192308 s of work; then S gives it 15 (q = 1)
 * and Y's 8/9 is its slowest: 4.807692 / (8/9) = 5.408654 s more: B finishes at 117.908654 s. */
static void test_network_shared_uplink(void **st)
{
    (void)st;
    sc_job jobs[] = {{0, 100, 5, "a"}, {0, 100, 7, "b"}};
    const char *sets[] = {"cluster.nodes=3", "cluster.gpus_per_node=4", "cluster.nodes_per_rack=1",
                          "cluster.locality_cross_rack=0.5", "node_model.network=rack",
                          "cluster.rack_uplink_gbps=16", "node_model.gpu_gbps=10", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    double fx = 1 / (0.5 + 0.5 / 0.8);
    double fs = 1 / (0.5 + 0.5 * 15.0 / 11.0);
    double a_fin = 100 / fx;
    double b_fin = a_fin + (100 - a_fin * fs) / fx;
    assert_float_equal(r.jobs[0].finish_time, a_fin, EPS);
    assert_float_equal(r.jobs[0].finish_time, 112.5, EPS);
    assert_float_equal(r.jobs[1].finish_time, b_fin, 2 * EPS);
    dike_results_free(&r);

    /* network off: both take their duration */
    const char *off[] = {"cluster.nodes=3", "cluster.gpus_per_node=4", "cluster.nodes_per_rack=1",
                         "cluster.locality_cross_rack=0.5", "node_model.progress=nodes", NULL};
    assert_int_equal(sc_run(jobs, 2, off, &r), 0);
    assert_float_equal(r.jobs[0].finish_time, 100, EPS);
    assert_float_equal(r.jobs[1].finish_time, 100, EPS);
    dike_results_free(&r);
}

/* ---- failures, reported by the owner ---- */

/* test_faults.c's case in the emulating mode: the same failure stream, the same rollback to the
 * last checkpoint, the same restore cost, so the same finish: repair + 30 s + the work after the
 * last checkpoint before the failure. */
static void test_failure_rollback(void **st)
{
    (void)st;
    const double mtbf = 50000, mttr = 2000, ckpt = 1000, cost = 30;
    dike_rng r;
    dike_rng_init(&r, 7, 0, DIKE_STREAM_FAILURE);
    double t1 = draw_us(&r, mtbf) / 1e6;
    double rep = t1 + draw_us(&r, mttr) / 1e6;
    double t3 = rep + draw_us(&r, mtbf) / 1e6;
    double duration = ceil(t1) + 5000;
    double kept = floor(t1 / ckpt) * ckpt;
    double finish = rep + cost + (duration - kept);
    if (!(finish < t3))
        fail_msg("precondition: second failure before the finish");
    sc_job jobs[] = {{0, 0, 8, "a"}};
    jobs[0].duration = duration;
    const char *sets[] = {"cluster.nodes=1", "run.seed=7", "faults.mtbf_s=50000", "faults.mttr_s=2000",
                          "faults.checkpoint_interval_s=1000", "scheduler.preemption_cost_s=30",
                          "node_model.progress=nodes", NULL};
    dike_results res;
    assert_int_equal(sc_run(jobs, 1, sets, &res), 0);
    assert_float_equal(res.jobs[0].finish_time, finish, 1e-5);
    assert_int_equal(res.jobs[0].restarts, 1);
    assert_float_equal(res.jobs[0].lost_work, 8 * (t1 - kept), 1e-4);
    dike_results_free(&res);
}

/* ---- latency alone ---- */

/* decision_latency_s = 5: a lone job decided at 0 starts on its node at 5 and finishes at 5 +
 * its duration; the next job, submitted when the first is done, waits for the release (which
 * reaches the node 5 s after the finish) only through the coordinator's mirror: it is placed at
 * its submit time and runs from submit + 5. */
static void test_latency(void **st)
{
    (void)st;
    sc_job jobs[] = {{0, 100, 8, "a"}, {105, 10, 8, "a"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.decision_latency_s=5", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    assert_float_equal(r.jobs[0].start_time, 0, EPS);
    assert_float_equal(r.jobs[0].finish_time, 105, EPS);
    /* job 1 arrives at 105, the same instant job 0 finishes (completions first): placed at 105,
     * on the node at 110 (the release of job 0 lands at 110 too, before the start) */
    assert_float_equal(r.jobs[1].start_time, 105, EPS);
    assert_float_equal(r.jobs[1].finish_time, 120, EPS);
    dike_results_free(&r);
}

/* A job whose work ends between its preemption and the preemption's arrival on its node finishes
 * then (until 2026-12-05 it was requeued with 1 us of work and ran again, after its turn in the
 * queue and another launch). las, threshold 400 GPU-s (50 s of 8 GPUs), rounds of 100 s,
 * decision_latency_s = 60, no restore, no promotion. J0: 8 GPUs, 150 s, at 0; J1: 8 GPUs, 100 s,
 * at 10.
 *   0    J0 decided; on the node at 60, works 60-210.
 *   100  J0 worked 40 s: 320 GPU-s, queue 0, older than J1: it keeps the node.
 *   200  J0 worked 140 s: 1,120 GPU-s, queue 1; J1 is in queue 0: J0 preempted (the stop reaches
 *        the node at 260), J1 decided (on the node at 260).
 *   210  J0's work ends on its node: J0 finishes at 210, its one preemption counted.
 *   J1 works 260-360. */
static void test_finish_before_stop(void **st)
{
    (void)st;
    sc_job jobs[] = {{0, 150, 8, "a"}, {10, 100, 8, "a"}};
    const char *sets[] = {"cluster.nodes=1", "scheduler.policy=las", "scheduler.round_s=100",
                          "scheduler.preemption_cost_s=0", "scheduler.decision_latency_s=60",
                          "las.thresholds_gpu_s=400", "las.promote_knob=0", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    assert_float_equal(r.jobs[0].start_time, 0, EPS);
    assert_float_equal(r.jobs[0].finish_time, 210, EPS);
    assert_int_equal(r.jobs[0].preemptions, 1);
    assert_float_equal(r.jobs[1].start_time, 200, EPS);
    assert_float_equal(r.jobs[1].finish_time, 360, EPS);
    assert_int_equal(r.jobs[1].preemptions, 0);
    dike_results_free(&r);
    /* J0 of 200 s: its work ends at 260, the instant the stop arrives. It finishes at 260; J1 the
     * same as above. */
    jobs[0].duration = 200;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    assert_float_equal(r.jobs[0].finish_time, 260, EPS);
    assert_int_equal(r.jobs[0].preemptions, 1);
    assert_float_equal(r.jobs[1].start_time, 200, EPS);
    assert_float_equal(r.jobs[1].finish_time, 360, EPS);
    dike_results_free(&r);
}

/* Periodic checkpoints in the emulating mode are taken between windows and change nothing: the
 * case of test_interference_latency (hand-worked there: B at 62 s, A at 112.333334 s) with a
 * checkpoint every 30 s of simulated time, which falls inside both jobs' runs. */
static void test_checkpoints_change_nothing(void **st)
{
    (void)st;
    char path[] = "/tmp/dike-test-nodemodels-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path); /* the run writes it whole, under its own temporary name */
    char ckpt[sizeof path + 32];
    snprintf(ckpt, sizeof ckpt, "run.checkpoint=%s", path);
    sc_job jobs[] = {{0, 100, 4, "a"}, {0, 50, 4, "b"}};
    const char *sets[] = {"cluster.nodes=1", "node_model.interference=0.2",
                          "scheduler.decision_latency_s=2", "run.checkpoint_every_s=30", ckpt, NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 2, sets, &r), 0);
    assert_float_equal(r.jobs[1].finish_time, 62, EPS);
    assert_float_equal(r.jobs[0].finish_time, 112.333334, EPS);
    dike_results_free(&r);
    assert_int_equal(access(path, F_OK), 0); /* a checkpoint was written */
    unlink(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interference_factor),
        cmocka_unit_test(test_maxmin_by_hand),
        cmocka_unit_test(test_maxmin_from_any_order),
        cmocka_unit_test(test_interference_two_jobs),
        cmocka_unit_test(test_interference_latency),
        cmocka_unit_test(test_interference_direction),
        cmocka_unit_test(test_slowdown_episode),
        cmocka_unit_test(test_network_shared_uplink),
        cmocka_unit_test(test_failure_rollback),
        cmocka_unit_test(test_latency),
        cmocka_unit_test(test_finish_before_stop),
        cmocka_unit_test(test_checkpoints_change_nothing),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
