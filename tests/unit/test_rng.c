/* Keyed random streams: reproducible per key, independent across keys, GSL adapter equivalent. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>

#include "dike/rng.h"

#define N 1000

static void fill(uint64_t seed, uint64_t entity, uint64_t stream, uint64_t out[N])
{
    dike_rng r;
    dike_rng_init(&r, seed, entity, stream);
    for (int i = 0; i < N; i++)
        out[i] = dike_rng_next(&r);
}

/* Count positions where two sequences agree; unrelated 64-bit streams essentially never do. */
static int same_positions(const uint64_t *a, const uint64_t *b)
{
    int n = 0;
    for (int i = 0; i < N; i++)
        n += a[i] == b[i];
    return n;
}

static void test_same_key_same_sequence(void **state)
{
    uint64_t a[N], b[N];
    fill(42, 7, DIKE_STREAM_ARRIVALS, a);
    fill(42, 7, DIKE_STREAM_ARRIVALS, b);
    assert_memory_equal(a, b, sizeof a);
}

static void test_different_keys_differ(void **state)
{
    uint64_t base[N], other[N];
    fill(42, 7, 1, base);
    fill(43, 7, 1, other); /* seed */
    assert_int_equal(same_positions(base, other), 0);
    fill(42, 8, 1, other); /* entity */
    assert_int_equal(same_positions(base, other), 0);
    fill(42, 7, 2, other); /* stream */
    assert_int_equal(same_positions(base, other), 0);
    /* Swapping entity and stream must not give the same key. */
    fill(42, 1, 7, other);
    assert_int_equal(same_positions(base, other), 0);
}

static void test_uniform_open_interval_and_mean(void **state)
{
    dike_rng r;
    dike_rng_init(&r, 1, 0, DIKE_STREAM_DURATION);
    double sum = 0;
    for (int i = 0; i < 100000; i++) {
        double u = dike_rng_uniform(&r);
        assert_true(u > 0.0 && u < 1.0);
        sum += u;
    }
    /* sd of the mean of 100k uniforms is 0.0009: 0.01 is a >10-sigma margin. */
    assert_true(sum / 100000 > 0.49 && sum / 100000 < 0.51);
}

static void test_below_in_range_and_covers(void **state)
{
    dike_rng r;
    dike_rng_init(&r, 5, 3, DIKE_STREAM_PLACEMENT);
    int seen[7] = {0};
    for (int i = 0; i < 10000; i++) {
        uint64_t x = dike_rng_below(&r, 7);
        assert_true(x < 7);
        seen[x]++;
    }
    for (int k = 0; k < 7; k++)
        assert_true(seen[k] > 1000); /* expected 1429 each */
    for (int i = 0; i < 100; i++)
        assert_int_equal(dike_rng_below(&r, 1), 0);
}

static void test_gsl_adapter_matches(void **state)
{
    dike_rng r;
    dike_rng_init(&r, 99, 4, DIKE_STREAM_TENANT);
    gsl_rng *g = dike_rng_gsl_alloc(99, 4, DIKE_STREAM_TENANT);
    for (int i = 0; i < 1000; i++)
        assert_true(gsl_rng_uniform_pos(g) == dike_rng_uniform(&r));
    gsl_rng_free(g);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_key_same_sequence),
        cmocka_unit_test(test_different_keys_differ),
        cmocka_unit_test(test_uniform_open_interval_and_mean),
        cmocka_unit_test(test_below_in_range_and_covers),
        cmocka_unit_test(test_gsl_adapter_matches),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
