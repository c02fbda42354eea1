/* The decision-step latency histogram (engine/latency.c): bin edges, quantiles and the active-job
 * counts kept with the samples, against values worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>
#include <string.h>

#include "engine/latency.h"

/* Values below 16 have a bin each; above, eight bins per power of two. */
static void test_bins_by_hand(void **state)
{
    (void)state;
    assert_int_equal(dike_lat_bin(0), 0);
    assert_int_equal(dike_lat_bin(15), 15);
    assert_int_equal(dike_lat_bin(16), 16);  /* [16, 18) */
    assert_int_equal(dike_lat_bin(17), 16);
    assert_int_equal(dike_lat_bin(18), 17);
    assert_int_equal(dike_lat_bin(31), 23);  /* [30, 32) */
    assert_int_equal(dike_lat_bin(32), 24);  /* [32, 36) */
    assert_int_equal(dike_lat_bin(1000), 63); /* 512..1023 in steps of 64: [960, 1024) */
    assert_int_equal(dike_lat_bin(UINT64_MAX), DIKE_LAT_BINS - 1);
    assert_int_equal(dike_lat_lower(16), 16);
    assert_int_equal(dike_lat_lower(23), 30);
    assert_int_equal(dike_lat_lower(63), 960);
    assert_int_equal(dike_lat_lower(64), 1024);
    assert_true(dike_lat_lower(DIKE_LAT_BINS) == UINT64_MAX);
}

/* Every value lies in its bin, and a bin is at most 1/8 of its lower edge wide. */
static void test_bins_cover_values(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < 100000; v += 1 + v / 64) {
        int b = dike_lat_bin(v);
        assert_true(dike_lat_lower(b) <= v);
        assert_true(v < dike_lat_lower(b + 1));
        if (v >= 16)
            assert_true(8 * (dike_lat_lower(b + 1) - dike_lat_lower(b)) <= dike_lat_lower(b));
    }
    for (int s = 4; s < 64; s++) { /* powers of two start a bin */
        uint64_t v = UINT64_C(1) << s;
        assert_true(dike_lat_lower(dike_lat_bin(v)) == v);
        assert_true(dike_lat_lower(dike_lat_bin(v - 1) + 1) == v);
    }
}

/* 99 steps of 100 ns with 10 active jobs and one of 5,000 ns with 40:
 * 100 ns lies in bin [96, 104), so p50 = p99 = 104; the 100th sample is the slow one, in bin
 * [4608, 5120), whose edge is above the largest sample: 5000. Mean (99*100 + 5000)/100 = 149;
 * active jobs mean (99*10 + 40)/100 = 10.3. */
static void test_quantiles_by_hand(void **state)
{
    (void)state;
    dike_latency l;
    memset(&l, 0, sizeof l);
    assert_true(dike_lat_quantile(&l, 0.99) == 0);
    assert_true(dike_lat_mean(&l) == 0);
    for (int i = 0; i < 50; i++)
        dike_lat_add(&l, 100, 10);
    dike_lat_add(&l, 5000, 40);
    for (int i = 0; i < 49; i++)
        dike_lat_add(&l, 100, 10);
    assert_int_equal(l.count, 100);
    assert_true(dike_lat_quantile(&l, 0.50) == 104);
    assert_true(dike_lat_quantile(&l, 0.99) == 104);
    assert_true(dike_lat_quantile(&l, 1.0) == 5000);
    assert_true(dike_lat_mean(&l) == 149);
    assert_int_equal(l.max_ns, 5000);
    assert_int_equal(l.active_at_max, 40);
    assert_int_equal(l.active_max, 40);
    assert_true(l.active_sum == 1030);
}

/* With two samples the 99th percentile is the slower one; the first sample sets the maximum even
 * when it is 0 ns; a later equal maximum keeps the first one's active count. */
static void test_small_counts(void **state)
{
    (void)state;
    dike_latency l;
    memset(&l, 0, sizeof l);
    dike_lat_add(&l, 0, 7);
    assert_int_equal(l.active_at_max, 7);
    assert_true(dike_lat_quantile(&l, 0.99) == 0);
    dike_lat_add(&l, 300, 3); /* bin [288, 320) */
    dike_lat_add(&l, 300, 9);
    assert_int_equal(l.active_at_max, 3);
    assert_int_equal(l.active_max, 9);
    assert_true(dike_lat_quantile(&l, 0.50) == 300); /* edge 320 clamped to the max */
    assert_true(dike_lat_quantile(&l, 0.30) == 1);   /* the 0 ns sample: bin [0, 1) */
}

/* Octaves of active jobs: 0 | 1 | 2-3 | 4-7 | ... */
static void test_octaves(void **state)
{
    (void)state;
    assert_int_equal(dike_lat_octave(0), 0);
    assert_int_equal(dike_lat_octave(1), 1);
    assert_int_equal(dike_lat_octave(2), 2);
    assert_int_equal(dike_lat_octave(3), 2);
    assert_int_equal(dike_lat_octave(4), 3);
    assert_int_equal(dike_lat_octave(1000), 10); /* 512..1023 */
    assert_int_equal(dike_lat_octave(UINT32_MAX), DIKE_LAT_OCTAVES - 1);
    assert_true(dike_lat_octave_lo(0) == 0);
    assert_true(dike_lat_octave_lo(1) == 1);
    assert_true(dike_lat_octave_lo(10) == 512);
    assert_true(dike_lat_octave_lo(11) - 1 == 1023);
    assert_true(dike_lat_octave_lo(DIKE_LAT_OCTAVES) == UINT64_C(1) << 32);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bins_by_hand),
        cmocka_unit_test(test_bins_cover_values),
        cmocka_unit_test(test_quantiles_by_hand),
        cmocka_unit_test(test_small_counts),
        cmocka_unit_test(test_octaves),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
