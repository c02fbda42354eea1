/* Cluster model: node ranges per GPU type, racks, and the throughput of a placed gang. */
#include "dike/cluster.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/parse.h"

#define DEFAULT_TYPE "v100"

static int set_types(dike_cluster *cl, const dike_config *c, dike_err *e)
{
    dike__type_count list[DIKE_MAX_GPU_TYPES];
    size_t n;
    char why[512];
    if (dike__parse_gpu_types(c->cluster_gpu_types, list, &n, why, sizeof why))
        return dike_err_set(e, DIKE_EINVAL, "[cluster] gpu_types: %s (got '%s')", why,
                            c->cluster_gpu_types);
    if (n == 0) {
        snprintf(list[0].name, sizeof list[0].name, "%s", DEFAULT_TYPE);
        list[0].nodes = cl->nodes;
        n = 1;
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += list[i].nodes;
    if (sum != cl->nodes)
        return dike_err_set(e, DIKE_EINVAL, "[cluster] gpu_types: counts sum to %" PRIu64
                            ", cluster.nodes is %" PRIu32, sum, cl->nodes);
    uint32_t first = 0;
    for (size_t i = 0; i < n; i++) {
        dike_gpu_type *t = &cl->types[i];
        memcpy(t->name, list[i].name, sizeof t->name);
        t->speed = 1.0;
        t->first_node = first;
        t->nnodes = list[i].nodes;
        t->gpus = (uint64_t)list[i].nodes * cl->gpus_per_node;
        first += list[i].nodes;
    }
    cl->ntypes = (uint32_t)n;
    return 0;
}

static int set_speeds(dike_cluster *cl, const dike_config *c, dike_err *e)
{
    dike__type_speed list[DIKE_MAX_GPU_TYPES];
    size_t n;
    char why[512];
    if (dike__parse_gpu_speeds(c->cluster_gpu_speeds, list, &n, why, sizeof why))
        return dike_err_set(e, DIKE_EINVAL, "[cluster] gpu_speeds: %s (got '%s')", why,
                            c->cluster_gpu_speeds);
    for (size_t i = 0; i < n; i++) {
        int t = dike_cluster_type_by_name(cl, list[i].name);
        /* A speed for a type the cluster lacks is almost surely a typo in one of the two keys. */
        if (t < 0)
            return dike_err_set(e, DIKE_EINVAL,
                                "[cluster] gpu_speeds: type '%s' is not in cluster.gpu_types (got '%s')",
                                list[i].name, c->cluster_gpu_speeds);
        cl->types[t].speed = list[i].speed;
    }
    return 0;
}

int dike_cluster_init(dike_cluster *cl, const dike_config *c, dike_err *e)
{
    memset(cl, 0, sizeof *cl);
    if (c->cluster_nodes < 1 || c->cluster_nodes > UINT32_MAX)
        return dike_err_set(e, DIKE_EINVAL, "[cluster] nodes: must be in [1, %" PRIu32 "] (got '%" PRId64
                            "')", UINT32_MAX, c->cluster_nodes);
    if (c->cluster_gpus_per_node < 1 || c->cluster_gpus_per_node > 65535)
        return dike_err_set(e, DIKE_EINVAL, "[cluster] gpus_per_node: must be in [1, 65535] (got '%" PRId64
                            "')", c->cluster_gpus_per_node);
    if (c->cluster_nodes_per_rack < 1 || c->cluster_nodes_per_rack > UINT32_MAX)
        return dike_err_set(e, DIKE_EINVAL, "[cluster] nodes_per_rack: must be in [1, %" PRIu32
                            "] (got '%" PRId64 "')", UINT32_MAX, c->cluster_nodes_per_rack);
    if (!(c->cluster_locality_rack > 0 && c->cluster_locality_rack <= 1))
        return dike_err_set(e, DIKE_EINVAL, "[cluster] locality_rack: must be in (0, 1] (got '%.17g')",
                            c->cluster_locality_rack);
    if (!(c->cluster_locality_cross_rack > 0 && c->cluster_locality_cross_rack <= 1))
        return dike_err_set(e, DIKE_EINVAL,
                            "[cluster] locality_cross_rack: must be in (0, 1] (got '%.17g')",
                            c->cluster_locality_cross_rack);

    cl->nodes = (uint32_t)c->cluster_nodes;
    cl->gpus_per_node = (uint32_t)c->cluster_gpus_per_node;
    cl->nodes_per_rack = (uint32_t)c->cluster_nodes_per_rack;
    cl->nracks = (uint32_t)(((uint64_t)cl->nodes + cl->nodes_per_rack - 1) / cl->nodes_per_rack);
    cl->total_gpus = (uint64_t)cl->nodes * cl->gpus_per_node;
    cl->loc_factor[DIKE_LOC_NODE] = 1.0;
    cl->loc_factor[DIKE_LOC_RACK] = c->cluster_locality_rack;
    cl->loc_factor[DIKE_LOC_CROSS] = c->cluster_locality_cross_rack;

    int rc = set_types(cl, c, e);
    if (rc == 0)
        rc = set_speeds(cl, c, e);
    return rc;
}

void dike_cluster_free(dike_cluster *cl)
{
    free(cl->node_gpus);
    cl->node_gpus = NULL;
}

int dike_cluster_node_type(const dike_cluster *cl, uint32_t node)
{
    /* At most DIKE_MAX_GPU_TYPES ranges: a linear scan beats anything cleverer. */
    for (uint32_t t = 0; t < cl->ntypes; t++)
        if (node - cl->types[t].first_node < cl->types[t].nnodes)
            return (int)t;
    return -1;
}

int dike_cluster_type_by_name(const dike_cluster *cl, const char *name)
{
    for (uint32_t t = 0; t < cl->ntypes; t++)
        if (strcmp(cl->types[t].name, name) == 0)
            return (int)t;
    return -1;
}

uint64_t dike_cluster_max_gang(const dike_cluster *cl, int gpu_type)
{
    if (gpu_type >= 0)
        return (uint32_t)gpu_type < cl->ntypes ? cl->types[gpu_type].gpus : 0;
    /* A gang never mixes GPU types, so an unconstrained job is bounded by the largest pool. */
    uint64_t best = 0;
    for (uint32_t t = 0; t < cl->ntypes; t++)
        if (cl->types[t].gpus > best)
            best = cl->types[t].gpus;
    return best;
}

int dike_cluster_best_level(const dike_cluster *cl, uint32_t gpus)
{
    if (gpus <= cl->gpus_per_node)
        return DIKE_LOC_NODE;
    if ((uint64_t)gpus <= (uint64_t)cl->gpus_per_node * cl->nodes_per_rack)
        return DIKE_LOC_RACK;
    return DIKE_LOC_CROSS;
}

double dike_cluster_rate(const dike_cluster *cl, int type, uint32_t gpus, int level)
{
    double speed = type >= 0 && (uint32_t)type < cl->ntypes ? cl->types[type].speed : 1.0;
    int best = dike_cluster_best_level(cl, gpus);
    /* A job's duration is defined on its best placement, so only a worse-than-necessary placement
     * costs throughput; a level better than reachable (a caller's mistake) earns nothing extra. */
    if (level < best)
        level = best;
    if (level > DIKE_LOC_CROSS)
        level = DIKE_LOC_CROSS;
    return speed * cl->loc_factor[level] / cl->loc_factor[best];
}
