/* The pure half of the cluster (src/model/cluster.c, dike_cluster_build) on node lists made by hand,
 * without the reader of src/io/nodelist.c, and the base layer's CSV splitter both readers use. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>
#include <string.h>

#include "base/parse.h"
#include "dike/cluster.h"

/* A config that names a node list (the file is never opened: the nodes come with the call). */
static void list_config(dike_config *c, uint32_t nodes_per_rack)
{
    dike_config_defaults(c);
    strcpy(c->cluster_nodes_file, "never-read.csv");
    c->cluster_nodes_per_rack = nodes_per_rack;
}

/* Nodes in file order a(8) b(4) a(8) b(2): grouped by type in order of first appearance, file
 * order kept within a type, so node GPUs become 8 8 4 2; a: nodes 0-1, 16 GPUs; b: nodes 2-3,
 * 6 GPUs; 22 GPUs in all; the largest node (8) is gpus_per_node; 3 nodes per rack make 2 racks. */
static void test_groups_by_type(void **state)
{
    (void)state;
    uint32_t gpus[] = {8, 4, 8, 2};
    uint8_t type[] = {0, 1, 0, 1};
    dike_node_list nl = {.ntypes = 2, .type_names = {"a", "b"}, .n = 4, .gpus = gpus, .type = type};
    dike_config c;
    list_config(&c, 3);
    strcpy(c.cluster_gpu_speeds, "b:0.5");
    dike_cluster cl;
    dike_err e = {0};
    assert_int_equal(dike_cluster_build(&cl, &c, &nl, &e), 0);
    assert_int_equal(cl.nodes, 4);
    assert_int_equal(cl.nracks, 2);
    assert_int_equal(cl.total_gpus, 22);
    assert_int_equal(cl.gpus_per_node, 8);
    assert_int_equal(cl.ntypes, 2);
    assert_string_equal(cl.types[0].name, "a");
    assert_int_equal(cl.types[0].first_node, 0);
    assert_int_equal(cl.types[0].nnodes, 2);
    assert_int_equal(cl.types[0].gpus, 16);
    assert_true(cl.types[0].speed == 1.0);
    assert_string_equal(cl.types[1].name, "b");
    assert_int_equal(cl.types[1].first_node, 2);
    assert_int_equal(cl.types[1].nnodes, 2);
    assert_int_equal(cl.types[1].gpus, 6);
    assert_true(cl.types[1].speed == 0.5);
    assert_non_null(cl.node_gpus);
    const uint32_t want[] = {8, 8, 4, 2};
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(dike_cluster_node_gpus(&cl, i), want[i]);
    assert_int_equal(dike_cluster_node_type(&cl, 1), 0);
    assert_int_equal(dike_cluster_node_type(&cl, 2), 1);
    dike_cluster_free(&cl);
}

/* Every node alike: no per-node array (the engine's fast path), as for nodes x gpus_per_node. */
static void test_uniform_list(void **state)
{
    (void)state;
    uint32_t gpus[] = {4, 4, 4};
    uint8_t type[] = {0, 0, 0};
    dike_node_list nl = {.ntypes = 1, .type_names = {"t4"}, .n = 3, .gpus = gpus, .type = type};
    dike_config c;
    list_config(&c, 32);
    dike_cluster cl;
    assert_int_equal(dike_cluster_build(&cl, &c, &nl, NULL), 0);
    assert_null(cl.node_gpus);
    assert_int_equal(cl.gpus_per_node, 4);
    assert_int_equal(cl.total_gpus, 12);
    assert_int_equal(cl.nracks, 1);
    dike_cluster_free(&cl);
}

/* A speed for a type the list lacks is refused, naming the key; a config that names a node list
 * without one being given is a caller's bug. */
static void test_refusals(void **state)
{
    (void)state;
    uint32_t gpus[] = {8};
    uint8_t type[] = {0};
    dike_node_list nl = {.ntypes = 1, .type_names = {"a"}, .n = 1, .gpus = gpus, .type = type};
    dike_config c;
    list_config(&c, 32);
    strcpy(c.cluster_gpu_speeds, "v100:2");
    dike_cluster cl;
    dike_err e = {0};
    assert_int_equal(dike_cluster_build(&cl, &c, &nl, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[cluster] gpu_speeds: type 'v100'"));
    c.cluster_gpu_speeds[0] = '\0';
    assert_int_equal(dike_cluster_build(&cl, &c, NULL, &e), DIKE_EINTERNAL);
}

/* Fields are trimmed; beyond max they are counted, not stored; an empty line is one empty field. */
static void test_split_csv(void **state)
{
    (void)state;
    char line[] = " a , b,,c ";
    char *f[2];
    assert_int_equal(dike_split_csv(line, f, 2), 4);
    assert_string_equal(f[0], "a");
    assert_string_equal(f[1], "b");
    char empty[] = "";
    assert_int_equal(dike_split_csv(empty, f, 2), 1);
    assert_string_equal(f[0], "");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_by_type),
        cmocka_unit_test(test_uniform_list),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_split_csv),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
