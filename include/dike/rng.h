/* Keyed random streams: one independent, reproducible stream per (seed, entity, stream). */
#ifndef DIKE_RNG_H
#define DIKE_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

/** xoshiro256** state, seeded through splitmix64 from the key (seed, entity, stream). */
typedef struct dike_rng {
    uint64_t s[4]; /**< generator state */
} dike_rng;

/* Well-known stream numbers, so two parts of the program never share a stream by accident. */
enum {
    DIKE_STREAM_ARRIVALS = 1,  /**< synthetic inter-arrival times */
    DIKE_STREAM_JOBSIZE = 2,   /**< synthetic GPU counts */
    DIKE_STREAM_DURATION = 3,  /**< synthetic durations */
    DIKE_STREAM_TENANT = 4,    /**< synthetic tenant choice */
    DIKE_STREAM_PLACEMENT = 5, /**< random placement */
    DIKE_STREAM_FAILURE = 6,   /**< per-node failures (entity = node) */
    DIKE_STREAM_MODEL = 7,     /**< model-class assignment */
    DIKE_STREAM_DURATION_ERROR = 8, /**< noisy duration estimates (entity = job index) */
    DIKE_STREAM_SLOWDOWN = 9   /**< per-node slowdown episodes (entity = node) */
};

void dike_rng_init(dike_rng *r, uint64_t seed, uint64_t entity, uint64_t stream);
uint64_t dike_rng_next(dike_rng *r);
/** Uniform double in (0, 1): never 0, never 1, so log() is always safe. */
double dike_rng_uniform(dike_rng *r);
/** Uniform integer in [0, n). n > 0. */
uint64_t dike_rng_below(dike_rng *r, uint64_t n);

/** A gsl_rng whose generator is a keyed dike stream, so GSL's distributions (gsl_ran_*) can use it.
 *  Free with gsl_rng_free(). */
gsl_rng *dike_rng_gsl_alloc(uint64_t seed, uint64_t entity, uint64_t stream);
/** Re-key a gsl_rng from dike_rng_gsl_alloc to the start of stream (seed, entity, stream), so one
 *  allocation serves many entities' streams. */
void dike_rng_gsl_rekey(gsl_rng *g, uint64_t seed, uint64_t entity, uint64_t stream);

#endif
