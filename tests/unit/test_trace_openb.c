/* openb reader (Alibaba's GPU pod list) and node lists (cluster.nodes_file), on fixtures written
 * for the tests in openb's column layout.
 *
 * tests/data/nodelist_invented.csv: node-0 has no GPU (left out); P100 nodes 1, 3, 5 with 2, 2, 1
 * GPUs; T4 nodes 2, 4 with 4, 8. Grouped by type in order of first appearance: nodes 0-2 are P100
 * (2, 2, 1 GPUs), nodes 3-4 T4 (4, 8): 17 GPUs, the largest node 8.
 *
 * tests/data/trace_openb_invented.csv:
 *   pod    num_gpu  gpu_milli  gpu_spec  creation  deletion
 *   pod-a     0        0                   100       500     CPU-only: dropped
 *   pod-b     1      500                   100      1100     half a GPU: one whole GPU
 *   pod-c     2     1000                   160       460
 *   pod-d     1     1000        T4         200       260
 *   pod-e     4     1000                    90       190
 * Sorted by creation: e (90), b (100), c (160), d (200); time starts at 90. */
#include "tracetest.h"

#include <mpi.h>

#define DATA DIKE_TEST_DATA "/"
#define NODES DATA "nodelist_invented.csv"
#define HDR "name,num_gpu,gpu_milli,gpu_spec,creation_time,deletion_time\n"

static void nodelist_cluster(dike_cluster *cl, const char *rack)
{
    const char *const sets[] = {"cluster.nodes_file=" NODES, rack, NULL};
    tt_cluster(cl, sets);
}

static void test_node_list(void **state)
{
    static const uint32_t gpus[5] = {2, 2, 1, 4, 8};
    dike_cluster cl;
    nodelist_cluster(&cl, "cluster.nodes_per_rack=2");
    assert_int_equal(cl.nodes, 5);
    assert_int_equal(cl.gpus_per_node, 8);
    assert_int_equal(cl.total_gpus, 17);
    assert_int_equal(cl.nracks, 3);
    assert_int_equal(cl.ntypes, 2);
    assert_string_equal(cl.types[0].name, "P100");
    assert_int_equal(cl.types[0].first_node, 0);
    assert_int_equal(cl.types[0].nnodes, 3);
    assert_int_equal(cl.types[0].gpus, 5);
    assert_string_equal(cl.types[1].name, "T4");
    assert_int_equal(cl.types[1].first_node, 3);
    assert_int_equal(cl.types[1].nnodes, 2);
    assert_int_equal(cl.types[1].gpus, 12);
    assert_non_null(cl.node_gpus);
    for (uint32_t n = 0; n < 5; n++) {
        assert_int_equal(dike_cluster_node_gpus(&cl, n), gpus[n]);
        assert_int_equal(dike_cluster_node_type(&cl, n), n < 3 ? 0 : 1);
    }
    assert_int_equal(dike_cluster_max_gang(&cl, -1), 12);
    assert_true(cl.types[1].speed == 1.0);
    dike_cluster_free(&cl);

    /* gpu_speeds names types of the node list; nodes and gpus_per_node are ignored */
    const char *const sets[] = {"cluster.nodes_file=" NODES, "cluster.gpu_speeds=T4:0.5",
                                "cluster.nodes=999", NULL};
    dike_config c;
    dike_err e = {0};
    tt_config(&c, sets);
    assert_int_equal(dike_config_validate(&c, &e), 0);
    assert_int_equal(dike_cluster_init(&cl, &c, &e), 0);
    assert_true(cl.types[1].speed == 0.5);
    assert_int_equal(cl.nodes, 5);
    dike_cluster_free(&cl);
}

/* Read a node list from @p text; it must fail with "PATH<rest>". */
static void expect_nodes_error(const char *text, const char *rest)
{
    dike_config c;
    dike_cluster cl;
    dike_err e = {0};
    char *p = tt_write_tmp(text), want[1024];
    dike_config_defaults(&c);
    snprintf(c.cluster_nodes_file, sizeof c.cluster_nodes_file, "%s", p);
    assert_int_equal(dike_cluster_init(&cl, &c, &e), DIKE_EINVAL);
    snprintf(want, sizeof want, "%s%s", p, rest);
    assert_string_equal(e.msg, want);
    assert_null(cl.node_gpus);
    tt_drop_tmp(p);
}

static void test_node_list_errors(void **state)
{
    expect_nodes_error("sn,gpus,model\nn0,8,V100\n", ":1: header: missing column 'gpu' (a node list needs gpu and model)");
    expect_nodes_error("sn,gpu,model\nn0,8x,V100\n", ":2: field 'gpu': not an integer (got '8x')");
    expect_nodes_error("sn,gpu,model\nn0,8,V100\nn1,2,\n", ":3: field 'model': empty for a node with GPUs, node n1 (got '')");
    expect_nodes_error("sn,gpu,model\nn0,8,V100\nn1,2\n", ":3: 2 fields, the header has 3");
    expect_nodes_error("sn,gpu,model\nn0,0,\n", ": no node with GPUs (1 without)");
    expect_nodes_error("", ": empty node list: no header line");
    dike_config c;
    dike_err e = {0};
    const char *const both[] = {"cluster.nodes_file=" NODES, "cluster.gpu_types=v100:64", NULL};
    tt_config(&c, both);
    assert_int_equal(dike_config_validate(&c, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[cluster] gpu_types: must be empty when cluster.nodes_file is set (the "
                               "node list gives the types) (got 'v100:64')");
    dike_cluster cl;
    const char *const speed[] = {"cluster.nodes_file=" NODES, "cluster.gpu_speeds=v100:2", NULL};
    tt_config(&c, speed);
    assert_int_equal(dike_config_validate(&c, &e), 0); /* types unknown until the file is read */
    assert_int_equal(dike_cluster_init(&cl, &c, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[cluster] gpu_speeds: type 'v100' is not in cluster.gpu_types (got 'v100:2')");
    assert_null(cl.node_gpus);
}

static void test_pods(void **state)
{
    static const int64_t submit[4] = {0, 10, 70, 110}, dur[4] = {100, 1000, 300, 60};
    static const uint32_t gpus[4] = {4, 1, 2, 1}, line[4] = {6, 3, 4, 5};
    static const int16_t type[4] = {-1, -1, -1, 1};
    dike_cluster cl;
    dike_workload w;
    char got[1024], want[1024];
    const char *path = DATA "trace_openb_invented.csv";
    nodelist_cluster(&cl, NULL);
    tt_read(path, "auto", &cl, false, &w);
    assert_string_equal(w.format, "openb");
    assert_int_equal(w.njobs, 4);
    assert_int_equal(w.time_offset, US(90));
    for (int i = 0; i < 4; i++) {
        assert_int_equal(w.jobs[i].id, i);
        assert_int_equal(w.jobs[i].submit, US(submit[i]));
        assert_int_equal(w.jobs[i].duration, US(dur[i]));
        assert_int_equal(w.jobs[i].num_gpus, gpus[i]);
        assert_int_equal(w.jobs[i].gpu_type, type[i]);
        assert_int_equal(w.jobs[i].line, line[i]);
    }
    assert_string_equal(w.tenants[0], "trace_openb_invented");
    assert_int_equal(w.no_gpu_rows, 1);
    assert_int_equal(w.fractional, 1);
    snprintf(want, sizeof want, "dropped 1 rows without GPUs (CPU-only jobs) of %s; 1 fractional-GPU "
             "requests count as one whole GPU", path);
    dike_workload_report(&w, got, sizeof got);
    assert_string_equal(got, want);
    dike_workload_free(&w);
    dike_cluster_free(&cl);

    /* On a cluster without T4: pod-d's gpu_spec is unknown. */
    tt_cluster(&cl, NULL);
    tt_expect_error(path, "openb", &cl, false, 5, "field 'gpu_spec': unknown GPU type 'T4' (cluster types: v100)");
}

static void test_pod_errors(void **state)
{
    dike_cluster cl;
    tt_cluster(&cl, NULL);
    tt_expect_error(DATA "trace_openb_multi_spec.csv", "auto", &cl, false, 3,
                    "field 'gpu_spec': several GPU types (got 'V100M16|V100M32'): a job can require one type only");
    struct {
        const char *row, *msg;
    } cases[] = {
        {"p,2,500,,0,10", "field 'gpu_milli': below 1000 with num_gpu 2: only single-GPU pods share a GPU (got '500')"},
        {"p,1,1001,,0,10", "field 'gpu_milli': must be <= 1000 (got '1001')"},
        {"p,1,0,,0,10", "field 'gpu_milli': must be >= 1 (got '0')"},
        {"p,1,1000,,10,5", "field 'deletion_time': before creation_time 10 (got '5')"},
        {"p,1,1000,,10,10", "field 'deletion_time': equals creation_time: zero duration (got '10')"},
        {"p,600,1000,,0,10", "field 'num_gpu': 600 GPUs requested, the cluster has 512"},
        {",1,1000,,0,10", "field 'name': empty"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, HDR "%s\n", cases[i].row);
        char *p = tt_write_tmp(text);
        tt_expect_error(p, "openb", &cl, false, 2, cases[i].msg);
        tt_drop_tmp(p);
    }
    char *p = tt_write_tmp(HDR "p,1,1000,,0,10\np,1,1000,,5,10\n");
    tt_expect_error(p, "openb", &cl, false, 3, "field 'name': duplicate job id p (first on line 2)");
    tt_drop_tmp(p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_list),
        cmocka_unit_test(test_node_list_errors),
        cmocka_unit_test(test_pods),
        cmocka_unit_test(test_pod_errors),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
