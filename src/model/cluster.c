/* Cluster model: node ranges per GPU type (given as counts, or from a node list the io layer has
 * read: src/io/nodelist.c), racks, and the throughput of a placed gang. */
#include "dike/cluster.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

#define DEFAULT_TYPE "v100"

/* The config's two GPU type lists, parsed before anything is built. */
static int parse_type_lists(const dike_config *c, dike_type_count *types, size_t *ntypes,
                            dike_type_speed *speeds, size_t *nspeeds, dike_err *e)
{
    char why[512];
    const char *key = "gpu_types", *got = c->cluster_gpu_types;
    if (!dike_parse_gpu_types(got, types, ntypes, why, sizeof why)) {
        key = "gpu_speeds";
        got = c->cluster_gpu_speeds;
        if (!dike_parse_gpu_speeds(got, speeds, nspeeds, why, sizeof why))
            return 0;
    }
    return dike_err_set(e, DIKE_EINVAL, "[cluster] %s: %s (got '%s')", key, why, got);
}

/* Node ranges per type from cluster.nodes x gpus_per_node and gpu_types counts. */
static int set_types(dike_cluster *cl, const dike_config *c, const dike_type_count *list, size_t n,
                     dike_err *e)
{
    dike_type_count dflt = {.nodes = cl->nodes};
    if (n == 0) {
        snprintf(dflt.name, sizeof dflt.name, "%s", DEFAULT_TYPE);
        list = &dflt;
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

/* Nodes of a node list. The engine needs each GPU type to be one contiguous node range, so nodes
 * are grouped by type, types in order of first appearance, nodes of a type in file order (a
 * counting sort); racks (nodes_per_rack) are cut from that order. */
static void set_nodes(dike_cluster *cl, const dike_node_list *nl)
{
    cl->ntypes = nl->ntypes;
    for (uint32_t t = 0; t < nl->ntypes; t++) {
        memcpy(cl->types[t].name, nl->type_names[t], sizeof cl->types[t].name);
        cl->types[t].speed = 1.0;
    }
    for (uint32_t i = 0; i < nl->n; i++) {
        cl->types[nl->type[i]].nnodes++;
        cl->types[nl->type[i]].gpus += nl->gpus[i];
    }
    uint32_t next[DIKE_MAX_GPU_TYPES], first = 0;
    for (uint32_t t = 0; t < cl->ntypes; t++) {
        cl->types[t].first_node = next[t] = first;
        first += cl->types[t].nnodes;
    }
    cl->nodes = nl->n;
    cl->node_gpus = dike_xmalloc((size_t)nl->n * sizeof *cl->node_gpus);
    bool uniform = true;
    for (uint32_t i = 0; i < nl->n; i++) {
        cl->node_gpus[next[nl->type[i]]++] = nl->gpus[i];
        if (nl->gpus[i] > cl->gpus_per_node)
            cl->gpus_per_node = nl->gpus[i];
        uniform = uniform && nl->gpus[i] == nl->gpus[0];
        cl->total_gpus += nl->gpus[i];
    }
    if (uniform) { /* every node alike: the engine's fast path, as for nodes x gpus_per_node */
        free(cl->node_gpus);
        cl->node_gpus = NULL;
    }
}

static int set_speeds(dike_cluster *cl, const dike_config *c, const dike_type_speed *list, size_t n,
                      dike_err *e)
{
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

int dike_cluster_check(const dike_config *c, dike_err *e)
{
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
        return dike_err_set(e, DIKE_EINVAL, "[cluster] locality_rack: must be in (0, 1] (got '%.15g')",
                            c->cluster_locality_rack);
    if (!(c->cluster_locality_cross_rack > 0 && c->cluster_locality_cross_rack <= 1))
        return dike_err_set(e, DIKE_EINVAL,
                            "[cluster] locality_cross_rack: must be in (0, 1] (got '%.15g')",
                            c->cluster_locality_cross_rack);
    if (c->cluster_nodes_file[0] && c->cluster_gpu_types[0])
        return dike_err_set(e, DIKE_EINVAL, "[cluster] gpu_types: must be empty when "
                            "cluster.nodes_file is set (the node list gives the types) (got '%s')",
                            c->cluster_gpu_types);
    return 0;
}

int dike_cluster_build(dike_cluster *cl, const dike_config *c, const dike_node_list *nodes,
                       dike_err *e)
{
    memset(cl, 0, sizeof *cl);
    dike_type_count types[DIKE_MAX_GPU_TYPES];
    dike_type_speed speeds[DIKE_MAX_GPU_TYPES];
    size_t ntypes, nspeeds;
    int rc = dike_cluster_check(c, e);
    if (rc == 0)
        rc = parse_type_lists(c, types, &ntypes, speeds, &nspeeds, e);
    if (rc)
        return rc;
    if (c->cluster_nodes_file[0] && !nodes)
        return dike_err_set(e, DIKE_EINTERNAL, "[cluster] nodes_file: the node list was not read");

    cl->nodes_per_rack = (uint32_t)c->cluster_nodes_per_rack;
    cl->loc_factor[DIKE_LOC_NODE] = 1.0;
    cl->loc_factor[DIKE_LOC_RACK] = c->cluster_locality_rack;
    cl->loc_factor[DIKE_LOC_CROSS] = c->cluster_locality_cross_rack;
    if (c->cluster_nodes_file[0]) {
        set_nodes(cl, nodes);
    } else {
        cl->nodes = (uint32_t)c->cluster_nodes;
        cl->gpus_per_node = (uint32_t)c->cluster_gpus_per_node;
        cl->total_gpus = (uint64_t)cl->nodes * cl->gpus_per_node;
        rc = set_types(cl, c, types, ntypes, e);
    }
    cl->nracks = (uint32_t)(((uint64_t)cl->nodes + cl->nodes_per_rack - 1) / cl->nodes_per_rack);
    if (rc == 0)
        rc = set_speeds(cl, c, speeds, nspeeds, e);
    if (rc)
        dike_cluster_free(cl);
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
