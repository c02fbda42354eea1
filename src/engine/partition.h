/* Node partition: which rank owns which nodes, and the per-node state a node rank keeps (internal).
 *
 * Node ranks own contiguous blocks of whole racks (block + remainder over racks), so a gang placed
 * inside one rack touches one owner. owner(node) is a pure function of (cluster, ranks, whether
 * the coordinator owns a block) and needs no table. */
#ifndef DIKE_PARTITION_H
#define DIKE_PARTITION_H

#include <stdint.h>
#include "dike/cluster.h"
#include "dike/results.h"
#include "engine/event.h"
#include "dike/rng.h"
#include "engine/coord.h"

/** What a node rank tells the coordinator about a node event it cannot predict. Followed in the
 *  report buffer by njobs uint32 job indices (the jobs running on the node when it failed). */
typedef struct dike_node_report {
    dike_time time;  /**< when, us */
    uint32_t node;   /**< node index */
    uint32_t kind;   /**< DIKE_EV_NODE_FAIL or DIKE_EV_NODE_REPAIR */
    uint32_t seq;    /**< per-node event sequence */
    uint32_t njobs;  /**< job indices that follow */
} dike_node_report;

typedef struct dike_part_layout {
    int nranks;      /**< ranks in the communicator */
    int first_owner; /**< 0 if the coordinator owns a block, else 1 */
    uint32_t nracks; /**< racks in the cluster */
    uint32_t nodes_per_rack, nodes;
    int reverse;     /**< blocks in reverse rank order: the coordinator's block is the last racks
                          (emulating mode, see dike_part_layout_reverse) */
} dike_part_layout;

void dike_part_layout_init(dike_part_layout *l, const dike_cluster *cl, int nranks, int coord_owns);
/** Emulating mode with a coordinator that owns nodes: give it the last block of racks, the one
 *  `pack`-like placements (lowest node first) load least, so that its node work and its
 *  coordination together weigh about what the other blocks weigh. Results do not depend on it. */
void dike_part_layout_reverse(dike_part_layout *l);
/** Rank that owns @p node. */
int dike_part_owner(const dike_part_layout *l, uint32_t node);
/** Nodes [*first, *first + *n) owned by @p rank (n may be 0). */
void dike_part_block(const dike_part_layout *l, int rank, uint32_t *first, uint32_t *n);

/** Order @p n records of @p size bytes by the owner of their node (a uint32_t at @p node_offset)
 *  into @p out, stably (each owner gets its records in their original order), and fill the
 *  per-rank @p counts and @p displs (in records) for an MPI_Scatterv. */
void dike_part_bucket(const dike_part_layout *l, const void *recs, size_t n, size_t size,
                      size_t node_offset, void *out, int *counts, int *displs);

/** A node rank's state: only the owner holds these arrays. */
typedef struct dike_part {
    const dike_cluster *cl;
    uint32_t first, n;          /**< owned node range */
    uint32_t *free;             /**< free GPUs per owned node */
    double *busy_gpu_s;         /**< GPU-seconds allocated per owned node */
    uint32_t *jobs_hosted;      /**< runs started per owned node */
    uint32_t *failures;         /**< failures per owned node */
    uint64_t applied;           /**< actions applied */
    uint64_t node_events;       /**< failures and repairs processed */
    /* faults (all NULL / empty when faults.mtbf_s = 0) */
    uint8_t *down;              /**< node is failed */
    uint32_t *jobs;             /**< [n][gpus_per_node] jobs running per node, UINT32_MAX = empty slot */
    uint32_t *seq;              /**< per-node event sequence */
    dike_rng *rng;              /**< per-node failure stream, keyed (seed, node, DIKE_STREAM_FAILURE) */
    dike_event_pool pool;
    dike_heap heap;             /**< this block's next failure / repair per node */
    double mtbf_us, mttr_us;
} dike_part;

/** @p cfg may be NULL (no faults). */
void dike_part_init(dike_part *p, const dike_cluster *cl, const dike_config *cfg, uint32_t first,
                    uint32_t n);
void dike_part_free(dike_part *p);
/** Apply actions in order; a start on a node without room or a stop returning more than it holds
 *  is a broken invariant (a GPU allocated twice) and ends the job through dike_fatal. */
void dike_part_apply(dike_part *p, const dike_action *a, size_t n);
/** Time of the next event the coordinator cannot predict (a failure or repair in this block),
 *  DIKE_TIME_INF if none. */
dike_time dike_part_next_time(const dike_part *p);
/** Process this block's node events at time @p t (the global horizon) in event order, appending
 *  one dike_node_report (+ job indices) per event to *buf (grown as needed; *len in bytes). */
void dike_part_process(dike_part *p, dike_time t, char **buf, size_t *len, size_t *cap);
/** Rows of /nodes for the owned block; caller frees. */
dike_node_record *dike_part_records(const dike_part *p);

#endif
