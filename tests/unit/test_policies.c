/* Policies on tiny scenarios whose schedules are worked out by hand in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <mpi.h>

#include "scenario.h"

#define EPS 1e-6


/* One 8-GPU node; every job wants the whole node.
 *   J0 submit 0, 100 s;  J1 submit 10, 50 s;  J2 submit 20, 20 s. */
static const sc_job three_whole_node[] = {
    {0, 100, 8, "a"}, {10, 50, 8, "a"}, {20, 20, 8, "b"}};
#define ONE_NODE "cluster.nodes=1", "cluster.gpus_per_node=8"

static void test_fifo_three_jobs(void **st)
{
    /* FIFO: J0 0-100, J1 100-150, J2 150-170. JCT 100, 140, 150. */
    const char *sets[] = {ONE_NODE, "scheduler.policy=fifo", NULL};
    dike_results r;
    assert_int_equal(sc_run(three_whole_node, 3, sets, &r), 0);
    expect_job(&r, 0, 0, 100, 0);
    expect_job(&r, 1, 100, 150, 0);
    expect_job(&r, 2, 150, 170, 0);
    assert_float_equal(r.summary.avg_jct, (100.0 + 140.0 + 150.0) / 3, EPS);
    assert_float_equal(r.summary.makespan, 170, EPS);
    dike_results_free(&r);
}

static void test_sjf_three_jobs(void **st)
{
    /* SJF: J0 0-100; at 100 J2 (20 s) before J1 (50 s): J2 100-120, J1 120-170. */
    const char *sets[] = {ONE_NODE, "scheduler.policy=sjf", NULL};
    dike_results r;
    assert_int_equal(sc_run(three_whole_node, 3, sets, &r), 0);
    expect_job(&r, 0, 0, 100, 0);
    expect_job(&r, 1, 120, 170, 0);
    expect_job(&r, 2, 100, 120, 0);
    assert_float_equal(r.summary.avg_jct, (100.0 + 160.0 + 100.0) / 3, EPS);
    dike_results_free(&r);
}

static void test_srtf_no_cost(void **st)
{
    /* SRTF, preemption cost 0:
     *   t=0  J0 starts (100 left).
     *   t=10 J1 (50) < J0's 90 left: J0 preempted, J1 runs 10-60.
     *   t=20 J2 (20) < J1's 40 left: J1 preempted, J2 runs 20-40.
     *   t=40 J1 (40 left) before J0 (90): J1 40-80; then J0 80-170.
     * JCT: J0 170, J1 70, J2 20. */
    const char *sets[] = {ONE_NODE, "scheduler.policy=srtf", "scheduler.preemption_cost_s=0", NULL};
    dike_results r;
    assert_int_equal(sc_run(three_whole_node, 3, sets, &r), 0);
    expect_job(&r, 0, 0, 170, 1);
    expect_job(&r, 1, 10, 80, 1);
    expect_job(&r, 2, 20, 40, 0);
    assert_int_equal(r.summary.preemptions, 2);
    /* GPUs are held 170 s in all (no idle gap, no restore time). */
    assert_float_equal(r.summary.allocated_gpu_seconds, 8 * 170.0, EPS);
    dike_results_free(&r);
}

static void test_srtf_with_cost(void **st)
{
    /* SRTF, preemption cost 30 s paid on every resume with the GPUs held:
     *   t=10 J0 preempted (90 left), J1 starts fresh (no cost), would end at 60.
     *   t=20 J2 (20) < J1's 40: J1 preempted (40 left); J2 20-40.
     *   t=40 J1 resumes: restore 40-70, work 70-110.
     *   t=110 J0 resumes: restore 110-140, work 140-230.
     * JCT: J0 230, J1 100, J2 20. */
    const char *sets[] = {ONE_NODE, "scheduler.policy=srtf", "scheduler.preemption_cost_s=30", NULL};
    dike_results r;
    assert_int_equal(sc_run(three_whole_node, 3, sets, &r), 0);
    expect_job(&r, 0, 0, 230, 1);
    expect_job(&r, 1, 10, 110, 1);
    expect_job(&r, 2, 20, 40, 0);
    assert_float_equal(r.jobs[0].run_time, 10 + 120.0, EPS); /* 0-10 and 110-230 */
    assert_float_equal(r.summary.allocated_gpu_seconds, 8 * 230.0, EPS);
    dike_results_free(&r);
}

/* Half-node jobs: J0 (8 GPUs, 100 s) at 0, J1 (4, 50) at 10, J2 (4, 30) at 20.
 * FIFO: J0 0-100, then J1 and J2 share the node: J1 100-150, J2 100-130. */
static void test_fifo_two_fit_together(void **st)
{
    static const sc_job jobs[] = {{0, 100, 8, "a"}, {10, 50, 4, "a"}, {20, 30, 4, "a"}};
    const char *sets[] = {ONE_NODE, "scheduler.policy=fifo", NULL};
    sc_expect(jobs, 3, sets, (const sc_want[]){{0, 100, 0}, {100, 150, 0}, {100, 130, 0}});
}

/* Head-of-line blocking vs fill-in: J0 (6 GPUs, 100) at 0, J1 (8, 10) at 1, J2 (2, 10) at 2.
 * Blocking FIFO: J1 waits for J0 and runs 100-110; J2 waits behind J1 and runs 110-120.
 * Fill-in: J2 fits next to J0 at once (2-12); J1 still runs 100-110. */
static void test_fifo_backfill(void **st)
{
    static const sc_job jobs[] = {{0, 100, 6, "a"}, {1, 10, 8, "a"}, {2, 10, 2, "a"}};
    const char *blocking[] = {ONE_NODE, "scheduler.policy=fifo", NULL};
    const char *fill[] = {ONE_NODE, "scheduler.policy=fifo", "scheduler.backfill=true", NULL};
    sc_expect(jobs, 3, blocking, (const sc_want[]){{0, 100, 0}, {100, 110, 0}, {110, 120, 0}});
    sc_expect(jobs, 3, fill, (const sc_want[]){{0, 100, 0}, {100, 110, 0}, {2, 12, 0}});
}

/* Placement on two 8-GPU nodes of one rack, locality_rack = 0.5:
 *   J0 (2 GPUs, 100) at 0, J1 (2, 100) at 1, J2 (8, 100) at 2.
 * pack: J0 and J1 share node 0; J2 gets node 1 whole: 2-102.
 * spread: J1 goes to the emptier node 1; J2 must span both nodes (6 + 2) in one rack and
 *   runs at rate 0.5: 2-202. */
static void test_pack_vs_spread(void **st)
{
    static const sc_job jobs[] = {{0, 100, 2, "a"}, {1, 100, 2, "a"}, {2, 100, 8, "a"}};
    const char *pack[] = {"cluster.nodes=2", "cluster.locality_rack=0.5", "scheduler.placement=pack",
                          NULL};
    const char *spread[] = {"cluster.nodes=2", "cluster.locality_rack=0.5",
                            "scheduler.placement=spread", NULL};
    const char *spread_flat[] = {"cluster.nodes=2", "cluster.locality_rack=1",
                                 "scheduler.placement=spread", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 3, pack, &r), 0);
    expect_job(&r, 2, 2, 102, 0);
    dike_results_free(&r);
    sc_expect(jobs, 3, spread, (const sc_want[]){{0, 100, 0}, {1, 101, 0}, {2, 202, 0}});
    /* Locality factors of 1 make placement irrelevant to run time. */
    assert_int_equal(sc_run(jobs, 3, spread_flat, &r), 0);
    expect_job(&r, 2, 2, 102, 0);
    dike_results_free(&r);
}

/* Locality is relative to the best placement a gang could have on an empty cluster.
 * A 16-GPU gang on two 8-GPU nodes of one rack is at its best: 100 s. With one node per rack its
 * best is already cross-rack: still 100 s.
 * spread, J0 (4 GPUs) on node 0, J1 (4) on node 1, then J2 (8 GPUs, 100 s) at t=1 must split
 * 4 + 4: in one rack it runs at locality_rack = 0.5 (1-201); across racks at
 * locality_cross_rack = 0.25 (1-401). */
static void test_gang_locality(void **st)
{
    static const sc_job big[] = {{0, 100, 16, "a"}};
    const char *rack[] = {"cluster.nodes=2", "cluster.locality_rack=0.5", NULL};
    const char *cross[] = {"cluster.nodes=2", "cluster.nodes_per_rack=1", "cluster.locality_rack=0.5",
                           "cluster.locality_cross_rack=0.25", NULL};
    dike_results r;
    sc_expect(big, 1, rack, (const sc_want[]){{0, 100, 0}});
    sc_expect(big, 1, cross, (const sc_want[]){{0, 100, 0}});

    static const sc_job split[] = {{0, 1000, 4, "a"}, {0, 1000, 4, "a"}, {1, 100, 8, "a"}};
    const char *in_rack[] = {"cluster.nodes=2", "cluster.locality_rack=0.5",
                             "cluster.locality_cross_rack=0.25", "scheduler.placement=spread", NULL};
    const char *two_racks[] = {"cluster.nodes=2", "cluster.nodes_per_rack=1",
                               "cluster.locality_rack=0.5", "cluster.locality_cross_rack=0.25",
                               "scheduler.placement=spread", NULL};
    assert_int_equal(sc_run(split, 3, in_rack, &r), 0);
    expect_job(&r, 2, 1, 201, 0);
    dike_results_free(&r);
    assert_int_equal(sc_run(split, 3, two_racks, &r), 0);
    expect_job(&r, 2, 1, 401, 0);
    dike_results_free(&r);
}

/* topo weighs GPU type against locality; pack takes one node of the fastest type that has room.
 * Nodes: two v100 (speed 1), one k80 (speed 0.5), one rack, locality_rack 0.8.
 *   J0 (6 GPUs, v100 only) -> node 0;  J1 (6 GPUs, v100 only) -> node 1 (node 0 has only 2 left).
 *   J2 (4 GPUs, any type, 100 s) at 1: no v100 node has 4 free.
 *     pack: the k80 node, rate 0.5: 1-201.
 *     topo: 2 + 2 on the two v100 nodes, rate 1 x 0.8 = 0.8 beats 0.5: 1-126. */
static void test_topo_type_vs_locality(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 6, "a", 1}, {0, 1000, 6, "a", 1}, {1, 100, 4, "a", 0}};
    const char *pack[] = {"cluster.nodes=3", "cluster.gpu_types=v100:2,k80:1",
                          "cluster.gpu_speeds=k80:0.5", "cluster.locality_rack=0.8",
                          "scheduler.placement=pack", NULL};
    const char *topo[] = {"cluster.nodes=3", "cluster.gpu_types=v100:2,k80:1",
                          "cluster.gpu_speeds=k80:0.5", "cluster.locality_rack=0.8",
                          "scheduler.placement=topo", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 3, pack, &r), 0);
    expect_job(&r, 2, 1, 201, 0);
    assert_string_equal(r.jobs[2].gpu_type, "k80");
    dike_results_free(&r);
    assert_int_equal(sc_run(jobs, 3, topo, &r), 0);
    expect_job(&r, 2, 1, 126, 0);
    assert_string_equal(r.jobs[2].gpu_type, "v100");
    dike_results_free(&r);
}

/* tree: a gang that fits in no node and no rack goes to the narrowest run of adjacent racks, the
 * best-fitting run of that width, then inside it to the racks with the most free GPUs.
 * Seven 8-GPU nodes, one per rack. At 0, FIFO starts 4, 8, 6, 8, 6, 7, 6 GPUs (1000 s); each takes
 * the lowest empty node (the empty-node list is in node order), leaving free GPUs per rack
 *     [4, 0, 2, 0, 2, 1, 2].
 * J7 (5 GPUs) at 1: no node or rack has 5. Runs of adjacent racks with >= 5 free: none of width 1
 * or 2; of width 3, racks 0-2 (6 free) and 4-6 (5 free): 4-6 fits best. Inside it: rack 4 (2;
 * of two equal racks the lower first), then rack 6 (2), then rack 5 (1): nodes 4, 5, 6.
 * pack takes the fewest nodes anywhere instead: the 4 free on node 0, then 1 on node 5. */
static void test_tree_adjacent_racks(void **st)
{
    static const sc_job jobs[] = {{0, 1000, 4, "a"}, {0, 1000, 8, "a"}, {0, 1000, 6, "a"},
                                  {0, 1000, 8, "a"}, {0, 1000, 6, "a"}, {0, 1000, 7, "a"},
                                  {0, 1000, 6, "a"}, {1, 100, 5, "a"}};
    const char *tree[] = {"cluster.nodes=7", "cluster.nodes_per_rack=1", "scheduler.policy=fifo",
                          "scheduler.placement=tree", NULL};
    const char *pack[] = {"cluster.nodes=7", "cluster.nodes_per_rack=1", "scheduler.policy=fifo",
                          "scheduler.placement=pack", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 8, tree, &r), 0);
    for (uint32_t i = 0; i < 7; i++) { /* the fillers: node i each */
        assert_int_equal(r.node_off[i + 1] - r.node_off[i], 1);
        assert_int_equal(r.node_ids[r.node_off[i]], i);
    }
    assert_int_equal(r.node_off[8] - r.node_off[7], 3);
    for (uint32_t k = 0; k < 3; k++)
        assert_int_equal(r.node_ids[r.node_off[7] + k], 4 + k);
    assert_float_equal(r.jobs[7].start_time, 1, 1e-9);
    dike_results_free(&r);
    assert_int_equal(sc_run(jobs, 8, pack, &r), 0);
    assert_int_equal(r.node_off[8] - r.node_off[7], 2);
    assert_int_equal(r.node_ids[r.node_off[7]], 0);
    assert_int_equal(r.node_ids[r.node_off[7] + 1], 5);
    dike_results_free(&r);
}

/* random: the same seed places the same way (same schedule); placement stays whole-gang. Three
 * 1-GPU jobs and a 16-GPU job on 3 nodes, locality_rack 0.5: the big job's rate depends on where
 * the small ones landed, so the schedules of two seeds are compared field by field only for
 * equality of the runs with one seed. */
static void test_random_reproducible(void **st)
{
    static const sc_job jobs[] = {{0, 100, 1, "a"}, {0, 100, 1, "a"}, {0, 100, 1, "a"},
                                  {1, 100, 16, "a"}};
    const char *s1[] = {"cluster.nodes=3", "cluster.locality_rack=0.5", "scheduler.placement=random",
                        "run.seed=3", NULL};
    dike_results a, b;
    assert_int_equal(sc_run(jobs, 4, s1, &a), 0);
    assert_int_equal(sc_run(jobs, 4, s1, &b), 0);
    for (size_t i = 0; i < 4; i++) {
        assert_float_equal(a.jobs[i].start_time, b.jobs[i].start_time, 0);
        assert_float_equal(a.jobs[i].finish_time, b.jobs[i].finish_time, 0);
    }
    /* The 16-GPU gang needs 2 of the 3 nodes: at best both whole (rate 1, 100 s), else split. */
    assert_true(a.jobs[3].finish_time >= 101 - 1e-9);
    dike_results_free(&a);
    dike_results_free(&b);
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_three_jobs),   cmocka_unit_test(test_sjf_three_jobs),
        cmocka_unit_test(test_srtf_no_cost),      cmocka_unit_test(test_srtf_with_cost),
        cmocka_unit_test(test_fifo_two_fit_together), cmocka_unit_test(test_fifo_backfill),
        cmocka_unit_test(test_pack_vs_spread),    cmocka_unit_test(test_gang_locality),
        cmocka_unit_test(test_topo_type_vs_locality), cmocka_unit_test(test_random_reproducible),
        cmocka_unit_test(test_tree_adjacent_racks),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
