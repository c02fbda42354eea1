/* Transient per-node slowdowns (docs/models.md#slowdowns): thermal throttling, a noisy neighbour,
 * a degraded link. Episodes arrive as a Poisson process per node (exponential gaps, drawn in whole
 * microseconds, at least 1) and last a fixed duration; the factor is applied by the engine. */
#include "dike/nodemodel.h"

#include <math.h>

static dike_time draw_gap(dike_rng *r, double mean_us)
{
    dike_time d = (dike_time)llround(-log(dike_rng_uniform(r)) * mean_us);
    return d > 0 ? d : 1;
}

void dike_slowdown_init(dike_slowdown *d, uint64_t seed, uint32_t node, double mtbf_us)
{
    dike_rng_init(&d->rng, seed, node, DIKE_STREAM_SLOWDOWN);
    d->on = 0;
    d->next = draw_gap(&d->rng, mtbf_us);
}

void dike_slowdown_step(dike_slowdown *d, double mtbf_us, dike_time duration_us)
{
    d->on = !d->on;
    d->next += d->on ? (duration_us > 0 ? duration_us : 1) : draw_gap(&d->rng, mtbf_us);
}
