/* Cluster model: racks, GPU types by node range, speeds, and rate = speed x locality penalty. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <mpi.h>
#include <string.h>

#include "dike/cluster.h"

#define assert_close(a, b) assert_true(fabs((a) - (b)) <= 1e-15)

/* 10 nodes x 8 GPUs, 4 nodes per rack (racks 0-3, 4-7, 8-9), v100 on nodes 0-5, a100 on 6-9. */
static void mixed_config(dike_config *c)
{
    dike_config_defaults(c);
    c->cluster_nodes = 10;
    c->cluster_nodes_per_rack = 4;
    strcpy(c->cluster_gpu_types, "v100:6, a100:4");
    strcpy(c->cluster_gpu_speeds, "a100:2.0");
}

static void test_default_cluster(void **state)
{
    dike_config c;
    dike_cluster cl;
    dike_config_defaults(&c);
    assert_int_equal(dike_cluster_init(&cl, &c, NULL), 0);
    assert_int_equal(cl.nodes, 64);
    assert_int_equal(cl.gpus_per_node, 8);
    assert_int_equal(cl.nracks, 2);
    assert_int_equal(cl.total_gpus, 512);
    assert_int_equal(cl.ntypes, 1);
    assert_string_equal(cl.types[0].name, "v100");
    assert_int_equal(cl.types[0].nnodes, 64);
    assert_true(cl.types[0].speed == 1.0);
    assert_int_equal(dike_cluster_max_gang(&cl, -1), 512);
    assert_true(cl.loc_factor[DIKE_LOC_NODE] == 1.0);
    assert_true(cl.loc_factor[DIKE_LOC_RACK] == 0.4246);
    assert_true(cl.loc_factor[DIKE_LOC_CROSS] == 0.3821);
}

static void test_racks_and_types(void **state)
{
    dike_config c;
    dike_cluster cl;
    mixed_config(&c);
    assert_int_equal(dike_cluster_init(&cl, &c, NULL), 0);
    assert_int_equal(cl.nracks, 3); /* ceil(10 / 4): the last rack has 2 nodes */
    assert_int_equal(dike_cluster_rack(&cl, 3), 0);
    assert_int_equal(dike_cluster_rack(&cl, 4), 1);
    assert_int_equal(dike_cluster_rack(&cl, 9), 2);
    assert_int_equal(cl.total_gpus, 80);
    assert_int_equal(cl.ntypes, 2);
    assert_string_equal(cl.types[1].name, "a100");
    assert_int_equal(cl.types[1].first_node, 6);
    assert_int_equal(cl.types[1].nnodes, 4);
    assert_int_equal(cl.types[0].gpus, 48);
    assert_int_equal(cl.types[1].gpus, 32);
    assert_int_equal(dike_cluster_node_type(&cl, 0), 0);
    assert_int_equal(dike_cluster_node_type(&cl, 5), 0);
    assert_int_equal(dike_cluster_node_type(&cl, 6), 1);
    assert_int_equal(dike_cluster_node_type(&cl, 9), 1);
    assert_int_equal(dike_cluster_type_by_name(&cl, "a100"), 1);
    assert_int_equal(dike_cluster_type_by_name(&cl, "h100"), -1);
    assert_int_equal(dike_cluster_max_gang(&cl, -1), 48); /* largest pool, v100 */
    assert_int_equal(dike_cluster_max_gang(&cl, 1), 32);
    assert_true(cl.types[0].speed == 1.0); /* unlisted in gpu_speeds */
    assert_true(cl.types[1].speed == 2.0);
}

static void test_best_level(void **state)
{
    dike_config c;
    dike_cluster cl;
    mixed_config(&c);
    assert_int_equal(dike_cluster_init(&cl, &c, NULL), 0);
    assert_int_equal(dike_cluster_best_level(&cl, 1), DIKE_LOC_NODE);
    assert_int_equal(dike_cluster_best_level(&cl, 8), DIKE_LOC_NODE);
    assert_int_equal(dike_cluster_best_level(&cl, 9), DIKE_LOC_RACK);
    assert_int_equal(dike_cluster_best_level(&cl, 32), DIKE_LOC_RACK); /* 4 nodes x 8 */
    assert_int_equal(dike_cluster_best_level(&cl, 33), DIKE_LOC_CROSS);
}

static void test_rates(void **state)
{
    dike_config c;
    dike_cluster cl;
    mixed_config(&c);
    assert_int_equal(dike_cluster_init(&cl, &c, NULL), 0);
    /* 8 GPUs could sit on one node; spread over 2 nodes of a rack they pay the rack factor. */
    assert_close(dike_cluster_rate(&cl, 0, 8, DIKE_LOC_RACK), 0.4246);
    assert_close(dike_cluster_rate(&cl, 0, 8, DIKE_LOC_CROSS), 0.3821);
    /* 16 GPUs must span 2 nodes: in one rack is their best placement. */
    assert_close(dike_cluster_rate(&cl, 0, 16, DIKE_LOC_RACK), 1.0);
    assert_close(dike_cluster_rate(&cl, 0, 16, DIKE_LOC_CROSS), 0.3821 / 0.4246);
    /* 40 GPUs exceed a rack: crossing racks is no penalty. */
    assert_close(dike_cluster_rate(&cl, 0, 40, DIKE_LOC_CROSS), 1.0);
    /* a100 runs twice as fast, the locality factors multiply. */
    assert_close(dike_cluster_rate(&cl, 1, 8, DIKE_LOC_NODE), 2.0);
    assert_close(dike_cluster_rate(&cl, 1, 8, DIKE_LOC_RACK), 2.0 * 0.4246);
    /* An impossible level better than the best one earns nothing extra. */
    assert_close(dike_cluster_rate(&cl, 0, 16, DIKE_LOC_NODE), 1.0);
}

static void test_errors_name_the_key(void **state)
{
    dike_config c;
    dike_cluster cl;
    dike_err e = {0};

    mixed_config(&c);
    strcpy(c.cluster_gpu_types, "v100:6,a100:3");
    assert_int_equal(dike_cluster_init(&cl, &c, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[cluster] gpu_types"));
    assert_non_null(strstr(e.msg, "sum to 9"));
    assert_non_null(strstr(e.msg, "cluster.nodes is 10"));

    mixed_config(&c);
    strcpy(c.cluster_gpu_speeds, "h100:3");
    assert_int_equal(dike_cluster_init(&cl, &c, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[cluster] gpu_speeds"));
    assert_non_null(strstr(e.msg, "'h100'"));

    mixed_config(&c);
    strcpy(c.cluster_gpu_types, "v100=6");
    assert_int_equal(dike_cluster_init(&cl, &c, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[cluster] gpu_types"));
    assert_non_null(strstr(e.msg, "v100=6"));

    mixed_config(&c);
    strcpy(c.cluster_gpu_speeds, "a100:0");
    assert_int_equal(dike_cluster_init(&cl, &c, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "speed must be a number > 0"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_cluster),   cmocka_unit_test(test_racks_and_types),
        cmocka_unit_test(test_best_level),        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_errors_name_the_key),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
