/* Cluster model: nodes, GPUs per node, racks, GPU types, throughput (speed x locality). */
#ifndef DIKE_CLUSTER_H
#define DIKE_CLUSTER_H

#include <stdint.h>
#include "dike/base.h"
#include "dike/config.h"

#define DIKE_MAX_GPU_TYPES 16
#define DIKE_GPU_TYPE_NAME 16

typedef struct dike_gpu_type {
    char name[DIKE_GPU_TYPE_NAME]; /**< e.g. "v100" */
    double speed;                  /**< throughput relative to the reference type (1 = reference) */
    uint32_t first_node;           /**< first node of this type (types are contiguous node ranges) */
    uint32_t nnodes;               /**< nodes of this type */
    uint64_t gpus;                 /**< GPUs of this type */
} dike_gpu_type;

/** Locality levels of a placement, from best to worst. */
enum { DIKE_LOC_NODE = 0, DIKE_LOC_RACK = 1, DIKE_LOC_CROSS = 2 };

typedef struct dike_cluster {
    uint32_t nodes;          /**< number of nodes */
    uint32_t gpus_per_node;  /**< GPUs per node; with node_gpus, the largest node's count */
    uint32_t nodes_per_rack; /**< nodes per rack; the last rack may be short */
    uint32_t nracks;         /**< number of racks */
    uint64_t total_gpus;     /**< GPUs of all nodes (nodes x gpus_per_node without node_gpus) */
    uint32_t ntypes;         /**< number of GPU types */
    dike_gpu_type types[DIKE_MAX_GPU_TYPES]; /**< GPU types in node order */
    double loc_factor[3];    /**< rate factor per locality level: [NODE]=1, [RACK], [CROSS] */
    uint32_t *node_gpus;     /**< GPUs per node when nodes differ (a node list), NULL when all have
                                  gpus_per_node; owned, freed by dike_cluster_free */
} dike_cluster;

/** The nodes of a node list (cluster.nodes_file), as the io layer reads them (src/io/nodelist.c):
 *  per node its GPUs and GPU type, types numbered in order of first appearance. */
typedef struct dike_node_list {
    uint32_t ntypes;                                       /**< number of GPU types */
    char type_names[DIKE_MAX_GPU_TYPES][DIKE_GPU_TYPE_NAME]; /**< their names */
    uint32_t n;                                            /**< nodes with GPUs */
    uint32_t *gpus;                                        /**< per node: GPUs, >= 1 */
    uint8_t *type;                                         /**< per node: index into type_names */
} dike_node_list;

/** Build the cluster of the config: from cluster.nodes_file when it is set (read by the io layer:
 *  src/io/nodelist.c), else from cluster.nodes, gpus_per_node and gpu_types. */
int dike_cluster_init(dike_cluster *cl, const dike_config *c, dike_err *e);
/** Check the config's cluster keys that need no file (0 or DIKE_EINVAL naming the key). */
int dike_cluster_check(const dike_config *c, dike_err *e);
/** Build the cluster from the config and, when cluster.nodes_file is set, the node list @p nodes
 *  read from it (NULL otherwise). Reads no file. */
int dike_cluster_build(dike_cluster *cl, const dike_config *c, const dike_node_list *nodes,
                       dike_err *e);
void dike_cluster_free(dike_cluster *cl);
/** GPUs of @p node. */
static inline uint32_t dike_cluster_node_gpus(const dike_cluster *cl, uint32_t node)
{
    return cl->node_gpus ? cl->node_gpus[node] : cl->gpus_per_node;
}
static inline uint32_t dike_cluster_rack(const dike_cluster *cl, uint32_t node)
{
    return node / cl->nodes_per_rack;
}
/** GPU type index of @p node. */
int dike_cluster_node_type(const dike_cluster *cl, uint32_t node);
/** Type index by name, or -1. */
int dike_cluster_type_by_name(const dike_cluster *cl, const char *name);
/** Largest gang a job may ask for: GPUs of its allowed type (gpu_type < 0: largest type pool). */
uint64_t dike_cluster_max_gang(const dike_cluster *cl, int gpu_type);
/** Best locality level reachable for a gang of @p gpus GPUs on an empty cluster. */
int dike_cluster_best_level(const dike_cluster *cl, uint32_t gpus);
/** Rate of a gang of @p gpus GPUs of type @p type placed at locality @p level, relative to its best
 *  placement on the reference type: speed(type) x loc_factor[level] / loc_factor[best level]. */
double dike_cluster_rate(const dike_cluster *cl, int type, uint32_t gpus, int level);

#endif
