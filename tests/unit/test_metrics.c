/* rho, T_ideal, Jain and the summary on numbers worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "dike/metrics.h"
#include "scenario.h"

#define EPS 1e-9

static void test_t_ideal(void **st)
{
    /* 4 GPUs of 16 with 2 jobs on average: share 4*2/16 = 0.5 < 1, so T_ideal = duration. */
    assert_float_equal(dike_t_ideal(100, 4, 2.0, 16), 100, EPS);
    /* 8 of 16 GPUs with 3 jobs on average: 8*3/16 = 1.5, T_ideal = 150. */
    assert_float_equal(dike_t_ideal(100, 8, 3.0, 16), 150, EPS);
}

static void test_jain(void **st)
{
    double equal[] = {2, 2, 2};
    assert_float_equal(dike_jain(equal, 3), 1.0, EPS);
    double one_starved[] = {1, 0};
    assert_float_equal(dike_jain(one_starved, 2), 0.5, EPS); /* 1^2 / (2 * 1) */
    double x[] = {1, 2, 3};
    assert_float_equal(dike_jain(x, 3), 36.0 / 42.0, EPS); /* 6^2 / (3 * 14) */
}

static void test_quantiles(void **st)
{
    double d[] = {10, 20, 30, 40, 50};
    assert_float_equal(dike_quantile_sorted(d, 5, 0.5), 30, EPS);
    assert_float_equal(dike_quantile_sorted(d, 5, 0.99), 49.6, EPS); /* 40 + 0.96 * 10 */
}

/* dike_quantile_select: the same values from unsorted data. By hand: {50, 10, 40, 30, 20} sorted
 * is {10, 20, 30, 40, 50}; q = 0.5 -> index 2 -> 30; q = 0.99 -> index 3.96 -> 40 + 0.96 * 10;
 * q = 1 -> the maximum; q = 0 -> the minimum; one value -> itself. Then, for arrays with ties in
 * every order, bit-equal to dike_quantile_sorted on a sorted copy. */
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_quantile_select(void **st)
{
    (void)st;
    double d[] = {50, 10, 40, 30, 20};
    assert_float_equal(dike_quantile_select(d, 5, 0.5), 30, EPS);
    double e[] = {50, 10, 40, 30, 20};
    assert_float_equal(dike_quantile_select(e, 5, 0.99), 49.6, EPS);
    double f[] = {50, 10, 40, 30, 20};
    assert_true(dike_quantile_select(f, 5, 1.0) == 50);
    assert_true(dike_quantile_select(f, 5, 0.0) == 10);
    double one[] = {7.5};
    assert_true(dike_quantile_select(one, 1, 0.99) == 7.5);
    assert_true(dike_quantile_select(one, 0, 0.5) == 0);
    uint32_t x = 12345;
    for (int round = 0; round < 50; round++) {
        size_t n = 1 + (size_t)(round * 37 % 997);
        double a[1000], b[1000];
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            a[i] = b[i] = (double)(x >> 22) * 0.37; /* values repeat: 1,024 distinct */
        }
        qsort(b, n, sizeof *b, cmp_d);
        const double qs[] = {0, 0.01, 0.5, 0.95, 0.99, 1};
        for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
            double c[1000];
            memcpy(c, a, n * sizeof *c);
            assert_true(dike_quantile_select(c, n, qs[k]) == dike_quantile_sorted(b, n, qs[k]));
        }
    }
}

/* FIFO on one 8-GPU node, J0 (0, 100 s, tenant a), J1 (10, 50 s, a), J2 (20, 20 s, b), all 8 GPUs.
 * Schedule: J0 0-100, J1 100-150, J2 150-170.
 * Active jobs: 1 on [0,10), 2 on [10,20), 3 on [20,100), 2 on [100,150), 1 on [150,170).
 *   J0 in [0,100]:   area 10 + 20 + 240 = 270,  N_avg 2.7,            T_ideal 100*8*2.7/8 = 270
 *   J1 in [10,150]:  area 20 + 240 + 100 = 360, N_avg 360/140,         T_ideal 50*360/140
 *   J2 in [20,170]:  area 240 + 100 + 20 = 360, N_avg 2.4,             T_ideal 20*2.4 = 48
 * rho = JCT / T_ideal: 100/270, 140/(50*360/140), 150/48. Two of three are above 1.
 * Jain: x_a = (270 + 50*360/140) / (100 + 140), x_b = 48 / 150. */
static void test_fifo_rho_and_jain(void **st)
{
    static const sc_job jobs[] = {{0, 100, 8, "a"}, {10, 50, 8, "a"}, {20, 20, 8, "b"}};
    const char *sets[] = {"cluster.nodes=1", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, 3, sets, &r), 0);
    double ti1 = 50.0 * 360.0 / 140.0;
    assert_float_equal(r.jobs[0].t_ideal, 270, 1e-6);
    assert_float_equal(r.jobs[1].t_ideal, ti1, 1e-6);
    assert_float_equal(r.jobs[2].t_ideal, 48, 1e-6);
    assert_float_equal(r.jobs[0].rho, 100.0 / 270.0, 1e-9);
    assert_float_equal(r.jobs[1].rho, 140.0 / ti1, 1e-9);
    assert_float_equal(r.jobs[2].rho, 150.0 / 48.0, 1e-9);
    assert_float_equal(r.summary.max_rho, 150.0 / 48.0, 1e-9);
    assert_float_equal(r.summary.mean_rho, (100.0 / 270 + 140.0 / ti1 + 150.0 / 48) / 3, 1e-9);
    assert_float_equal(r.summary.unfair_fraction, 2.0 / 3.0, 1e-12);
    double xa = (270 + ti1) / 240.0, xb = 48.0 / 150.0;
    assert_float_equal(r.summary.jain, (xa + xb) * (xa + xb) / (2 * (xa * xa + xb * xb)), 1e-9);
    assert_float_equal(r.tenants[0].fairness_ratio, xa, 1e-9);
    assert_float_equal(r.tenants[1].fairness_ratio, xb, 1e-9);
    /* 170 s busy out of 170 s on 8 GPUs. */
    assert_float_equal(r.summary.utilization, 1.0, 1e-12);
    assert_float_equal(r.summary.avg_queue_delay, (0 + 90.0 + 130.0) / 3, 1e-9);
    dike_results_free(&r);
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t_ideal),
        cmocka_unit_test(test_jain),
        cmocka_unit_test(test_quantiles),
        cmocka_unit_test(test_quantile_select),
        cmocka_unit_test(test_fifo_rho_and_jain),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
