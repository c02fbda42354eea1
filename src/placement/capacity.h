/* Free-capacity index used by every placement strategy (internal).
 *
 * Nodes sit in one doubly linked bucket per (GPU type, free GPUs), so "a node of type t with
 * exactly k free GPUs" is O(1) and best-fit / worst-fit look at gpus_per_node + 1 buckets instead
 * of every node. Per-rack free counts let multi-node placement skip racks that cannot help. */
#ifndef DIKE_CAPACITY_H
#define DIKE_CAPACITY_H

#include <stdint.h>
#include "dike/cluster.h"
#include "dike/sched.h"

#define DIKE_NIL UINT32_MAX

struct dike_capacity {
    const dike_cluster *cl;  /**< the cluster */
    uint32_t gpn;            /**< GPUs per node */
    uint32_t *free;          /**< free GPUs per node */
    uint8_t *type;           /**< GPU type per node */
    uint32_t *next, *prev;   /**< bucket links per node */
    uint32_t *head;          /**< [type][k] first node of bucket, DIKE_NIL if empty */
    uint32_t *count;         /**< [type][k] nodes in bucket */
    uint32_t *rack_free;     /**< free GPUs per rack (all types) */
    uint32_t *rack_full;     /**< fully free nodes per rack */
    uint32_t *rack_cnt;      /**< [rack][k] nodes of the rack (up) with k free GPUs */
    uint8_t *down;           /**< node failed: in no bucket, free = 0, its GPUs counted nowhere */
    uint64_t type_free[DIKE_MAX_GPU_TYPES]; /**< free GPUs per type */
    uint64_t total_free;     /**< free GPUs, all types */
    uint64_t version;        /**< bumped by every change (take, give, down, up): answers that
                                  depend only on the free GPUs stay valid while it stands */
    uint8_t type_order[DIKE_MAX_GPU_TYPES]; /**< types by speed (fastest first), then index */
    uint64_t seed;           /**< run.seed, for the random placement's keyed streams */
    const void *params;      /**< the placement's params struct (its options), NULL if none */
};

dike_capacity *dike_capacity_new(const dike_cluster *cl);
void dike_capacity_free(dike_capacity *c);
/** Allocate / release @p gpus GPUs on @p node (moves it between buckets). */
void dike_capacity_take(dike_capacity *c, uint32_t node, uint32_t gpus);
void dike_capacity_give(dike_capacity *c, uint32_t node, uint32_t gpus);
/** A node fails (it must be idle: its jobs were stopped first) / is repaired. */
void dike_capacity_set_down(dike_capacity *c, uint32_t node);
void dike_capacity_set_up(dike_capacity *c, uint32_t node);

static inline uint32_t dike_capacity_bucket(const dike_capacity *c, int type, uint32_t k)
{
    return c->head[(size_t)type * (c->gpn + 1) + k];
}
static inline uint32_t dike_capacity_bucket_count(const dike_capacity *c, int type, uint32_t k)
{
    return c->count[(size_t)type * (c->gpn + 1) + k];
}

/** Locality level of a list of slices. */
int dike_slices_level(const dike_cluster *cl, const dike_slice *s, uint32_t n);

/* Shared building blocks of the strategies. Each returns 1 and fills out/nout on success. */
/** One node of @p type with free >= g: best fit (fewest free) or worst fit (most free). */
int dike_place_single(const dike_capacity *c, int type, uint32_t g, int best_fit, dike_slice *out,
                       uint32_t *nout);
/** The racks [*r0, *r1] that hold nodes of @p type; 0 if it has no node or fewer than @p g free
 *  GPUs (no placement of g GPUs of it can succeed). */
int dike_type_racks(const dike_capacity *c, int type, uint32_t g, uint32_t *r0, uint32_t *r1);
/** Fewest nodes inside one rack of @p type; best-fit rack on ties. */
int dike_place_in_rack(const dike_capacity *c, int type, uint32_t g, dike_slice *out,
                        uint32_t *nout);
/** Gather the free nodes of @p type in rack @p r into @p out (at most 1024); returns the count. */
uint32_t dike_rack_nodes(const dike_capacity *c, int type, uint32_t r, uint32_t *out);
/** Take g GPUs from candidate nodes, whole nodes largest first, remainder best fit. */
uint32_t dike_take_from(const dike_capacity *c, const uint32_t *nodes, uint32_t n, uint32_t g,
                         dike_slice *out);
/** Fewest nodes anywhere: largest free nodes first. */
int dike_place_greedy(const dike_capacity *c, int type, uint32_t g, dike_slice *out,
                       uint32_t *nout);
/** Take g GPUs of @p type from racks r0 + i (i < nr), the rack with the largest f[i] first (ties
 *  to the lower rack; f[i] = 0: never), setting f[i] = 0 for each rack used. Returns the slices
 *  written to @p out; *left = the GPUs it could not find. */
uint32_t dike_take_racks(const dike_capacity *c, int type, uint32_t r0, uint32_t *f, uint32_t nr,
                         uint32_t g, dike_slice *out, uint32_t *left);
/** The passes of `pack` and `tree`: for the job's allowed GPU types, fastest first, one node (best
 *  fit); else one rack (dike_place_in_rack); else @p wide. */
typedef int (*dike_wide_fn)(const dike_capacity *c, int type, uint32_t g, dike_slice *out,
                            uint32_t *nout);
int dike_place_passes(const dike_capacity *c, const dike_job *j, dike_wide_fn wide, dike_slice *out,
                      uint32_t *nout, int *type, int *level);

#endif
