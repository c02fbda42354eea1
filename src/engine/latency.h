/* Decision-step latency: a histogram of sampled step times with the active-job count at each
 * sample (internal).
 *
 * Bins are eight per power of two (HDR-histogram style: the leading bit and the next three), so a
 * quantile read from them is at most 12.5 % above the true sample quantile, at any magnitude from
 * nanoseconds to seconds, in a fixed 4 KiB that a checkpoint can store as it is. */
#ifndef DIKE_LATENCY_H
#define DIKE_LATENCY_H

#include <stdint.h>

/** Sub-bins per power of two (a power of two itself). */
#define DIKE_LAT_SUB 8
/** Bins: values 0..15 exactly, then 8 per octave up to 2^64. */
#define DIKE_LAT_BINS (DIKE_LAT_SUB * 62)

typedef struct dike_latency {
    uint64_t count;            /**< samples */
    double sum_ns;             /**< sum of the samples, ns */
    uint64_t max_ns;           /**< largest sample, ns */
    uint32_t active_at_max;    /**< active jobs when the largest sample was taken */
    uint32_t active_max;       /**< most active jobs at any sample */
    double active_sum;         /**< sum of the active jobs over the samples */
    uint64_t hist[DIKE_LAT_BINS]; /**< samples per bin (dike_lat_bin) */
} dike_latency;

/** Octaves of the active-job count: 0, 1, 2-3, 4-7, ..., 2^31..2^32-1. */
#define DIKE_LAT_OCTAVES 33

/** Octave of @p active jobs: 0 for none, else floor(log2(active)) + 1. */
int dike_lat_octave(uint32_t active);
/** Smallest active count of octave @p k (its largest is dike_lat_octave_lo(k + 1) - 1). */
uint64_t dike_lat_octave_lo(int k);

/** Bin of a value in ns. */
int dike_lat_bin(uint64_t ns);
/** Smallest value of bin @p b, ns (its upper edge is dike_lat_lower(b + 1)). */
uint64_t dike_lat_lower(int b);
/** Add one sample of @p ns taken with @p active jobs in the system. */
void dike_lat_add(dike_latency *l, uint64_t ns, uint32_t active);
/** The @p q quantile (0 < q <= 1) as the upper edge of the bin that holds it (the smallest bin
 *  edge with at least q of the samples below it), or the largest sample if that is smaller; ns,
 *  0 without samples. Never below the true sample quantile, at most 1/8 above it. */
double dike_lat_quantile(const dike_latency *l, double q);
/** Mean sample, ns (0 without samples). */
double dike_lat_mean(const dike_latency *l);

#endif
