/* Node models (docs/models.md): what slows a running job down on the nodes that host it, beyond
 * the placement's rate. Pure functions, one model per file (src/model/interference.c,
 * slowdown.c, netshare.c), so each can be checked by hand; the engine (src/engine/nodes.c)
 * applies them on the ranks that own the nodes. */
#ifndef DIKE_NODEMODEL_H
#define DIKE_NODEMODEL_H

#include <stddef.h>
#include <stdint.h>
#include "dike/base.h"
#include "dike/rng.h"

/** Co-location interference: the speed factor of a job that shares a node with @p neighbours
 *  other jobs, each stretching its step time by @p alpha: 1 / (1 + alpha x neighbours). */
double dike_interference_factor(double alpha, uint32_t neighbours);

/** Transient slowdowns of one node: episodes start after exponential gaps of mean mtbf, last a
 *  fixed duration, and multiply the speed of every job on the node by a factor while they last.
 *  One stream per node, keyed (seed, node, DIKE_STREAM_SLOWDOWN): the same episodes whichever
 *  rank owns the node. */
typedef struct dike_slowdown {
    dike_rng rng;   /**< the node's stream */
    dike_time next; /**< time of the next boundary (start or end of an episode), us */
    int on;         /**< inside an episode now */
} dike_slowdown;

/** First episode start drawn; @p mtbf_us > 0. */
void dike_slowdown_init(dike_slowdown *d, uint64_t seed, uint32_t node, double mtbf_us);
/** Cross the boundary at d->next: toggle d->on and draw the following boundary. */
void dike_slowdown_step(dike_slowdown *d, double mtbf_us, dike_time duration_us);

/** Per-link max-min fair shares (water-filling): @p n flows with demands @p demand (> 0) share a
 *  link of capacity @p cap; each gets min(demand, level), where the level fills the link or
 *  satisfies everyone. @p order is scratch for n indices. */
void dike_netshare_maxmin(double cap, size_t n, const double *demand, double *share, uint32_t *order);
/** The same, with @p order holding on entry a permutation of 0..n-1 to start from. It is sorted in
 *  place by (demand, index), the same order dike_netshare_maxmin makes, so the shares are the same;
 *  the cost is the distance each flow moves, small when @p order is nearly sorted already. */
void dike_netshare_maxmin_from(double cap, size_t n, const double *demand, double *share, uint32_t *order);
/** Speed factor of a gang whose cross-rack communication takes a fraction @p iota of its step at
 *  full bandwidth, when it gets a fraction @p q (0 < q <= 1) of the bandwidth it needs: the
 *  communication part stretches by 1/q, so the step takes (1 - iota) + iota / q. */
double dike_net_factor(double iota, double q);

#endif
