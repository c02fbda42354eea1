/* Keyed random streams. Every random draw in the emulator comes from a stream named by
 * (seed, entity, stream), so adding a draw in one place never shifts the numbers seen elsewhere,
 * and a node's stream is the same whichever rank owns it. */
#include "dike/rng.h"

#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void dike_rng_init(dike_rng *r, uint64_t seed, uint64_t entity, uint64_t stream)
{
    /* Mix the three key parts through splitmix64 one after another; distinct keys give
     * unrelated 256-bit states. */
    uint64_t x = seed;
    uint64_t h = splitmix64(&x);
    x = h ^ entity;
    h = splitmix64(&x);
    x = h ^ (stream * UINT64_C(0xD1B54A32D192ED03));
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1; /* the all-zero state is the one fixed point of xoshiro */
}

uint64_t dike_rng_next(dike_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double dike_rng_uniform(dike_rng *r)
{
    /* 53 random bits, shifted by half a step: (0,1) open on both ends. */
    return ((double)(dike_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

uint64_t dike_rng_below(dike_rng *r, uint64_t n)
{
    /* Lemire-free simple rejection: unbiased, and n is small everywhere we use it. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = dike_rng_next(r);
    while (x >= limit);
    return x % n;
}

/* --- GSL adapter: lets gsl_ran_* draw from a keyed stream. --- */

static void gsl_set(void *state, unsigned long seed)
{
    /* GSL calls set() from gsl_rng_alloc with its default seed; the key is applied afterwards. */
    dike_rng_init(state, seed, 0, 0);
}

static unsigned long gsl_get(void *state)
{
    return (unsigned long)(dike_rng_next(state) >> 32);
}

static double gsl_get_double(void *state)
{
    return dike_rng_uniform(state);
}

static const gsl_rng_type dike_gsl_type = {
    "dike-xoshiro256**", 0xFFFFFFFFUL, 0, sizeof(dike_rng), gsl_set, gsl_get, gsl_get_double};

gsl_rng *dike_rng_gsl_alloc(uint64_t seed, uint64_t entity, uint64_t stream)
{
    gsl_rng *g = gsl_rng_alloc(&dike_gsl_type);
    if (!g)
        abort();
    dike_rng_init(g->state, seed, entity, stream);
    return g;
}

void dike_rng_gsl_rekey(gsl_rng *g, uint64_t seed, uint64_t entity, uint64_t stream)
{
    dike_rng_init(g->state, seed, entity, stream);
}
