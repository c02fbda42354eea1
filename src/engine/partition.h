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
#include "engine/coord.h"

typedef struct dike_part_layout {
    int nranks;      /**< ranks in the communicator */
    int first_owner; /**< 0 if the coordinator owns a block, else 1 */
    uint32_t nracks; /**< racks in the cluster */
    uint32_t nodes_per_rack, nodes;
} dike_part_layout;

void dike_part_layout_init(dike_part_layout *l, const dike_cluster *cl, int nranks, int coord_owns);
/** Rank that owns @p node. */
int dike_part_owner(const dike_part_layout *l, uint32_t node);
/** Nodes [*first, *first + *n) owned by @p rank (n may be 0). */
void dike_part_block(const dike_part_layout *l, int rank, uint32_t *first, uint32_t *n);

/** A node rank's state: only the owner holds these arrays. */
typedef struct dike_part {
    const dike_cluster *cl;
    uint32_t first, n;          /**< owned node range */
    uint32_t *free;             /**< free GPUs per owned node */
    double *busy_gpu_s;         /**< GPU-seconds allocated per owned node */
    uint32_t *jobs_hosted;      /**< runs started per owned node */
    uint32_t *failures;         /**< failures per owned node */
    uint64_t applied;           /**< actions applied */
} dike_part;

void dike_part_init(dike_part *p, const dike_cluster *cl, uint32_t first, uint32_t n);
void dike_part_free(dike_part *p);
/** Apply actions in order; a start on a node without room or a stop returning more than it holds
 *  is a broken invariant (a GPU allocated twice) and ends the job through dike_fatal. */
void dike_part_apply(dike_part *p, const dike_action *a, size_t n);
/** Time of the next event this rank cannot leave to the coordinator (none yet: failures come
 *  with the fault model), DIKE_TIME_INF if none. */
dike_time dike_part_next_time(const dike_part *p);
/** Rows of /nodes for the owned block; caller frees. */
dike_node_record *dike_part_records(const dike_part *p);

#endif
