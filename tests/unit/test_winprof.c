/* The window bound (engine/winprof.c): the largest block per window, summed, for the rank counts
 * it predicts, against values worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "dike/cluster.h"
#include "engine/winprof.h"

/* engine.coordinator_owns_nodes as the layout may decide it: a block for rank 0 with 1-2 ranks only
 * (`auto` in the predicting mode; the winprof code takes whatever rule it is given), false, true
 * (`auto` in the emulating mode). */
static int owns_auto(const void *ctx, int nranks) { (void)ctx; return nranks <= 2; }
static int owns_never(const void *ctx, int nranks) { (void)ctx; return nranks == 1; }
static int owns_always(const void *ctx, int nranks) { (void)ctx; (void)nranks; return 1; }

/* A cluster of @p nracks racks of @p per nodes (all the bound reads of it). */
static dike_cluster racks_of(uint32_t nracks, uint32_t per)
{
    dike_cluster cl;
    memset(&cl, 0, sizeof cl);
    cl.nodes = nracks * per;
    cl.nodes_per_rack = per;
    cl.nracks = nracks;
    return cl;
}

/* Four racks of one node (the coordinator owns a block with 1-2 ranks only, owns_auto):
 *   2 ranks: blocks {2, 3} (rank 0, the last racks) and {0, 1};
 *   3 ranks: the coordinator owns none, blocks {0, 1} and {2, 3};
 *   4 ranks: 3 blocks {0}, {1}, {2, 3} (block b holds racks [floor(4b/3), floor(4(b+1)/3)));
 *   5 ranks: one rack per block, the last row.
 * Window 1: owner 10, 20, 5 on racks 0, 1, 2 and 4 on no rack; home 7 on rack 3.
 * Window 2: owner 9 on rack 3; home 3 on rack 0 (job 0's home) and 8 on rack 2.
 *   2 and 3 ranks: owner max(30, 5) + 4/2 = 32, then 9: 41; home 7, then max(3, 8): 15.
 *     Block {0, 1}: 30 + 3 = 33, block {2, 3}: 5 + 7 + 9 + 8 = 29; plus 4/2: heaviest 35.
 *   4 ranks: owner max(10, 20, 5) + 4/3, then 9: 30 + 1/3; home 7 + 8 = 15.
 *   5 ranks: owner 20 + 1, then 9: 30; home 15. */
static void test_bound_by_hand(void **state)
{
    (void)state;
    dike_cluster cl = racks_of(4, 1);
    dike_winprof *w = dike_winprof_new(&cl, 2, owns_auto, NULL, 0);
    dike_winprof_set_home(w, 0, 0);
    dike_winprof_set_home(w, 1, 2);
    assert_int_equal(dike_winprof_home_rack(w, 0), 0);
    assert_int_equal(dike_winprof_home_rack(w, 1), 2);
    assert_int_equal(dike_winprof_home_rack(w, 2), UINT32_MAX); /* not a job */

    dike_winprof_add(w, DIKE_WP_OWNER, 0, 10);
    dike_winprof_add(w, DIKE_WP_OWNER, 1, 20);
    dike_winprof_add(w, DIKE_WP_OWNER, 2, 5);
    dike_winprof_add(w, DIKE_WP_OWNER, UINT32_MAX, 4);
    dike_winprof_add(w, DIKE_WP_HOME, 3, 7);
    dike_winprof_window(w, 0.5);
    dike_winprof_add(w, DIKE_WP_OWNER, 3, 9);
    dike_winprof_add(w, DIKE_WP_HOME, dike_winprof_home_rack(w, 0), 3);
    dike_winprof_add(w, DIKE_WP_HOME, dike_winprof_home_rack(w, 1), 8);
    dike_winprof_window(w, 0.25);

    dike_winprof_row r;
    dike_winprof_get(w, -1, &r);
    assert_int_equal(r.ranks, 1);
    assert_true(r.owner == 48 && r.home == 18 && r.heaviest == 66);

    assert_int_equal(dike_winprof_count(w), 4);
    static const int ranks[] = {2, 3, 4, 5}, blocks[] = {2, 2, 3, 4};
    static const double owner[] = {41, 41, 30 + 1.0 / 3, 30}, home[] = {15, 15, 15, 15};
    for (int i = 0; i < 4; i++) {
        dike_winprof_get(w, i, &r);
        assert_int_equal(r.ranks, ranks[i]);
        assert_int_equal(r.blocks, blocks[i]);
        assert_true(r.owner > owner[i] - 1e-9 && r.owner < owner[i] + 1e-9);
        assert_true(r.home == home[i]);
    }
    dike_winprof_get(w, 0, &r);
    assert_true(r.heaviest == 35);
    assert_true(r.rebalanced == 41 + 15); /* never recut (rebalance_every 0): the same blocks */

    char *txt = dike_winprof_report(w);
    assert_non_null(strstr(txt, "2 windows"));
    assert_non_null(strstr(txt, "coordinator 0.750 s"));
    free(txt);
    dike_winprof_free(w);
}

/* A coordinator that owns no block (engine.coordinator_owns_nodes = false): P ranks, P - 1 blocks,
 * up to one rack each. */
static void test_rank_counts_without_coordinator_block(void **state)
{
    (void)state;
    dike_cluster cl = racks_of(16, 4);
    dike_winprof *w = dike_winprof_new(&cl, 0, owns_never, NULL, 0);
    static const int ranks[] = {2, 3, 4, 8, 16, 17}, blocks[] = {1, 2, 3, 7, 15, 16};
    assert_int_equal(dike_winprof_count(w), 6);
    for (int i = 0; i < 6; i++) {
        dike_winprof_row r;
        dike_winprof_get(w, i, &r);
        assert_int_equal(r.ranks, ranks[i]);
        assert_int_equal(r.blocks, blocks[i]);
    }
    dike_winprof_free(w);
}

/* Recut after every window, coordinator owning a block (engine.coordinator_owns_nodes = true):
 * four racks of one node, two windows of owner work 30, 10, 10, 10 on racks 0-3.
 *   2 ranks, layout blocks {0, 1} and {2, 3}: 40 in each window, 80. Recut after window 1 from
 *     the charged work 30 | 10 10 10: blocks {0} and {1, 2, 3}, 30 each; so 40 + 30 = 70.
 *   3 ranks, layout blocks {0}, {1}, {2, 3}: 30 in each window, 60. The recut's smallest cap is
 *     30 (rack 0 alone), which fills {0} and {1, 2, 3}: 30 again, 60.
 *   4 ranks (one rack each, the last row): 30 + 30 = 60 either way. */
static void test_rebalanced_by_hand(void **state)
{
    (void)state;
    dike_cluster cl = racks_of(4, 1);
    dike_winprof *w = dike_winprof_new(&cl, 0, owns_always, NULL, 1);
    for (int win = 0; win < 2; win++) {
        dike_winprof_add(w, DIKE_WP_OWNER, 0, 30);
        for (uint32_t rk = 1; rk < 4; rk++)
            dike_winprof_add(w, DIKE_WP_OWNER, rk, 10);
        dike_winprof_window(w, 0);
    }
    assert_int_equal(dike_winprof_count(w), 3);
    static const int ranks[] = {2, 3, 4};
    static const double fixed[] = {80, 60, 60}, recut[] = {70, 60, 60};
    for (int i = 0; i < 3; i++) {
        dike_winprof_row r;
        dike_winprof_get(w, i, &r);
        assert_int_equal(r.ranks, ranks[i]);
        assert_int_equal(r.blocks, ranks[i]);
        assert_true(r.owner == fixed[i]);
        assert_true(r.rebalanced == recut[i]);
    }
    dike_winprof_free(w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_by_hand),
        cmocka_unit_test(test_rank_counts_without_coordinator_block),
        cmocka_unit_test(test_rebalanced_by_hand),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
