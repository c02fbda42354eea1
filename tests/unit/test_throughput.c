/* The Gavel-derived throughput table and the rate of a job with a model class.
 * Measured values below are copied by hand from Gavel's scheduler/simulation_throughputs.json
 * (../shared/throughputs/gavel, MIT), d[gpu_type][job]["null"], steps/s:
 *   v100                ('A3C', 1)                            7.175767179667988
 *   k80                 ('ResNet-50 (batch size 64)', 1)      0.6190282202246573
 *   v100                ('ResNet-50 (batch size 64)', 1)      4.394774823323071
 *   v100                ('ResNet-50 (batch size 64)', 4)      9.451949566394442
 *   v100_unconsolidated ('ResNet-50 (batch size 64)', 4)     11.136430014818272
 *   p100                ('Transformer (batch size 128)', 4)   8.774055121555529
 *   p100_unconsolidated ('Transformer (batch size 128)', 4)   5.878341806869093
 *   v100                ('Transformer (batch size 128)', 4)  14.17451716526748
 *   v100_unconsolidated ('LM (batch size 20)', 8)            58.88800403527842
 *   k80                 ('ResNet-50 (batch size 128)', 1)     0.3472236920519382
 *   k80                 ('ResNet-50 (batch size 128)', 2)     0.0   (did not run)
 *   k80_unconsolidated  ('ResNet-50 (batch size 64)', 4)      absent */
#include "tracetest.h"

#include <mpi.h>

#include "dike/throughput.h"

#define REL 1e-14 /* relative: the table stores ratios, measured = ratio x reference */

static void near_rel(double got, double want)
{
    tt_near(got, want, REL * fabs(want));
}

static void test_measured(void **state)
{
    int a3c = dike_tput_class_find("a3c"), r50 = dike_tput_class_find("resnet50-bs64");
    int tr = dike_tput_class_find("transformer-bs128"), lm = dike_tput_class_find("lm-bs20");
    int r50b = dike_tput_class_find("resnet50-bs128");
    assert_true(a3c >= 0 && r50 >= 0 && tr >= 0 && lm >= 0 && r50b >= 0);
    assert_int_equal(dike_tput_gavel_n, 26);
    assert_string_equal(dike_tput_gavel[r50].gavel_name, "ResNet-50 (batch size 64)");
    near_rel(dike_tput_measured(a3c, DIKE_TPUT_V100, 0, true), 7.175767179667988);
    near_rel(dike_tput_measured(r50, DIKE_TPUT_K80, 0, true), 0.6190282202246573);
    near_rel(dike_tput_measured(r50, DIKE_TPUT_V100, 0, true), 4.394774823323071);
    near_rel(dike_tput_measured(r50, DIKE_TPUT_V100, 2, false), 11.136430014818272);
    near_rel(dike_tput_measured(tr, DIKE_TPUT_P100, 2, true), 8.774055121555529);
    near_rel(dike_tput_measured(tr, DIKE_TPUT_P100, 2, false), 5.878341806869093);
    near_rel(dike_tput_measured(lm, DIKE_TPUT_V100, 3, false), 58.88800403527842);
    near_rel(dike_tput_measured(r50b, DIKE_TPUT_K80, 0, true), 0.3472236920519382);
    assert_true(dike_tput_measured(r50b, DIKE_TPUT_K80, 1, true) == 0);   /* measured 0: not run */
    assert_true(dike_tput_measured(r50, DIKE_TPUT_K80, 2, false) == 0);   /* not measured */
    assert_true(dike_tput_measured(a3c, DIKE_TPUT_V100, 1, true) == 0);   /* A3C: one GPU only */
    /* the reference is exactly 1 */
    assert_true(dike_tput_gavel[r50].rel[DIKE_TPUT_V100][0][0] == 1.0);
    assert_int_equal(dike_tput_measured(-1, 0, 0, true), 0);
}

static void test_names(void **state)
{
    assert_int_equal(dike_tput_class_find("ResNet50-BS64"), dike_tput_class_find("resnet50-bs64"));
    assert_int_equal(dike_tput_class_find("resnet50"), -1);
    assert_int_equal(dike_tput_type_find("v100"), DIKE_TPUT_V100);
    assert_int_equal(dike_tput_type_find("V100M32"), DIKE_TPUT_V100);
    assert_int_equal(dike_tput_type_find("p100-pcie"), DIKE_TPUT_P100);
    assert_int_equal(dike_tput_type_find("K80"), DIKE_TPUT_K80);
    assert_int_equal(dike_tput_type_find("v1000"), -1);
    assert_int_equal(dike_tput_type_find("T4"), -1);
    assert_int_equal(dike_tput_type_find("a100"), -1);
    assert_string_equal(dike_tput_type_name(DIKE_TPUT_P100), "p100");
    static const uint32_t g[] = {1, 2, 3, 4, 7, 8, 9, 1000};
    static const int want[] = {0, 1, 1, 2, 2, 3, 3, 3};
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(dike_tput_scale_index(g[i]), want[i]);
}

/* 5 nodes x 8 GPUs, 4 per rack: v100 nodes 0-1, k80 2, p100 3, a100 4 (speed 2, not in Gavel). */
static void cluster_and_workload(dike_cluster *cl, dike_workload *w)
{
    const char *const sets[] = {"cluster.nodes=5", "cluster.nodes_per_rack=4",
                                "cluster.gpu_types=v100:2,k80:1,p100:1,a100:1",
                                "cluster.gpu_speeds=a100:2", NULL};
    tt_cluster(cl, sets);
    dike_workload_init(w);
    assert_int_equal(dike_workload_model(w, "resnet50-bs64"), 0);
    assert_int_equal(dike_workload_model(w, "bert"), 1); /* not in the table */
    assert_int_equal(dike_workload_model(w, "transformer-bs128"), 2);
    assert_int_equal(dike_workload_model(w, "a3c"), 3);
    assert_int_equal(dike_workload_model(w, "resnet50-bs128"), 4);
}

enum { V100, K80, P100, A100 };

static void test_rate(void **state)
{
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    cluster_and_workload(&cl, &w);

    /* unbound: exactly the cluster's rate */
    for (int t = 0; t < 4; t++)
        for (int level = 0; level < 3; level++)
            for (uint32_t g = 1; g <= 16; g *= 2)
                assert_true(dike_tput_rate(&cl, &w, 0, t, g, level) == dike_cluster_rate(&cl, t, g, level));

    assert_int_equal(dike_workload_bind_throughput(&w, &cl, "gavel", &e), 0);
    assert_non_null(w.model_class);
    assert_int_equal(w.model_class[1], -1);
    assert_int_equal(w.type_class[V100], DIKE_TPUT_V100);
    assert_int_equal(w.type_class[A100], -1);

    /* ResNet-50 (64) on one K80: 0.6190282202246573 / 4.394774823323071 of a V100 */
    near_rel(dike_tput_rate(&cl, &w, 0, K80, 1, DIKE_LOC_NODE), 0.6190282202246573 / 4.394774823323071);
    /* on V100 at its best placement: 1 */
    assert_true(dike_tput_rate(&cl, &w, 0, V100, 4, DIKE_LOC_NODE) == 1.0);
    /* 4 GPUs spread in a rack: unconsolidated 11.14 > consolidated 9.45 steps/s: capped at 1 */
    assert_true(dike_tput_rate(&cl, &w, 0, V100, 4, DIKE_LOC_RACK) == 1.0);
    /* Transformer (128) on 4 P100s: speed 8.774 / 14.175; spread in a rack: x 5.878 / 8.774;
     * across racks: x 0.3821 / 0.4246 more */
    near_rel(dike_tput_rate(&cl, &w, 2, P100, 4, DIKE_LOC_NODE), 8.774055121555529 / 14.17451716526748);
    near_rel(dike_tput_rate(&cl, &w, 2, P100, 4, DIKE_LOC_RACK), 5.878341806869093 / 14.17451716526748);
    near_rel(dike_tput_rate(&cl, &w, 2, P100, 4, DIKE_LOC_CROSS),
             5.878341806869093 / 14.17451716526748 * 0.3821 / 0.4246);
    /* 12 GPUs of P100 span nodes at best (rack level): the 8-GPU ratios, and only a worse-than-needed
     * placement (across racks) costs, by the cluster's cross/rack ratio */
    const dike_tput_class *tc = &dike_tput_gavel[dike_tput_class_find("transformer-bs128")];
    near_rel(dike_tput_rate(&cl, &w, 2, P100, 12, DIKE_LOC_RACK), tc->rel[DIKE_TPUT_P100][3][0]);
    near_rel(dike_tput_rate(&cl, &w, 2, P100, 12, DIKE_LOC_CROSS), tc->rel[DIKE_TPUT_P100][3][0] * 0.3821 / 0.4246);
    /* A3C is measured on one GPU only: a 4-GPU A3C gang uses the 1-GPU speed and the cluster's
     * locality factor */
    near_rel(dike_tput_rate(&cl, &w, 3, V100, 4, DIKE_LOC_RACK), 0.4246);
    /* ResNet-50 (128) did not run on 2 K80s (0 in Gavel): the 1-GPU ratio stands in */
    near_rel(dike_tput_rate(&cl, &w, 4, K80, 2, DIKE_LOC_NODE),
             0.3472236920519382 / dike_tput_measured(dike_tput_class_find("resnet50-bs128"), DIKE_TPUT_V100, 0, true));
    /* no class, unknown class, or a GPU type Gavel lacks: the cluster's rate, unchanged */
    for (int level = 0; level < 3; level++) {
        assert_true(dike_tput_rate(&cl, &w, -1, K80, 4, level) == dike_cluster_rate(&cl, K80, 4, level));
        assert_true(dike_tput_rate(&cl, &w, 1, K80, 4, level) == dike_cluster_rate(&cl, K80, 4, level));
        assert_true(dike_tput_rate(&cl, &w, 0, A100, 4, level) == dike_cluster_rate(&cl, A100, 4, level));
    }
    assert_true(dike_tput_rate(&cl, &w, 0, A100, 1, DIKE_LOC_NODE) == 2.0);

    /* cluster.throughput = none unbinds */
    assert_int_equal(dike_workload_bind_throughput(&w, &cl, "none", &e), 0);
    assert_null(w.model_class);
    assert_true(dike_tput_rate(&cl, &w, 0, K80, 1, DIKE_LOC_NODE) == 1.0);
    dike_workload_free(&w);
    dike_cluster_free(&cl);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measured),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_rate),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
