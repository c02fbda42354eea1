/* The max segment tree Dike uses to find the nodes worth examining: worked examples and a
 * brute-force comparison. */
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>

#include "policy/maxtree.h"

/* Five values 3, -1, 7, 2, 7: worked by hand. */
static void test_worked_example(void **unused)
{
    dike_maxtree m;
    dike_maxtree_init(&m, 5);
    assert_int_equal(m.p, 8);
    assert_int_equal(dike_maxtree_next(&m, 0, -1e300), 5); /* all -inf: nothing is >= anything finite */
    const double v[] = {3, -1, 7, 2, 7};
    for (size_t i = 0; i < 5; i++)
        dike_maxtree_set(&m, i, v[i]);
    assert_true(m.t[1] == 7);
    assert_int_equal(dike_maxtree_next(&m, 0, 3), 0);  /* 3 >= 3 */
    assert_int_equal(dike_maxtree_next(&m, 1, 3), 2);  /* skips -1 */
    assert_int_equal(dike_maxtree_next(&m, 3, 3), 4);  /* skips 2 */
    assert_int_equal(dike_maxtree_next(&m, 5, 3), 5);  /* past the end */
    assert_int_equal(dike_maxtree_next(&m, 0, 8), 5);  /* nothing reaches 8 */
    assert_int_equal(dike_maxtree_next(&m, 1, -1), 1); /* -1 >= -1 */
    dike_maxtree_set(&m, 2, 0); /* 3, -1, 0, 2, 7 */
    assert_int_equal(dike_maxtree_next(&m, 1, 1), 3);
    dike_maxtree_set(&m, 4, -5); /* the maximum falls from 7 to 3 */
    assert_true(m.t[1] == 3);
    assert_int_equal(dike_maxtree_next(&m, 1, 2.5), 5);
    assert_true(dike_maxtree_get(&m, 3) == 2);
    dike_maxtree_free(&m);
}

/* Random values and updates against a linear scan, batch build included; sizes around powers of
 * two, where the padding leaves start. */
static void test_against_scan(void **unused)
{
    uint64_t x = 12345;
    const size_t sizes[] = {1, 2, 3, 7, 8, 9, 100, 257};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        double *ref = calloc(n, sizeof *ref);
        dike_maxtree m;
        dike_maxtree_init(&m, n);
        for (size_t i = 0; i < n; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            ref[i] = (double)(x >> 54);
            dike_maxtree_put(&m, i, ref[i]);
        }
        dike_maxtree_build(&m);
        for (int round = 0; round < 400; round++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t i = (size_t)(x >> 33) % n;
            ref[i] = (double)((x >> 13) % 1024);
            dike_maxtree_set(&m, i, ref[i]);
            double thr = (double)((x >> 3) % 1100);
            size_t from = (size_t)(x >> 40) % (n + 1), want = n;
            for (size_t k = from; k < n; k++)
                if (ref[k] >= thr) {
                    want = k;
                    break;
                }
            assert_int_equal(dike_maxtree_next(&m, from, thr), want);
        }
        dike_maxtree_free(&m);
        free(ref);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_against_scan),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
