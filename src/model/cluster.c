/* Cluster model: node ranges per GPU type (given as counts, or read from a node list), racks, and
 * the throughput of a placed gang. */
#include "dike/cluster.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
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

/* --- node lists (cluster.nodes_file) --- */

/* A node list is a CSV with a header naming at least `gpu` (GPUs of the node) and `model` (its GPU
 * type), like Alibaba's openb node lists (sn,cpu_milli,memory_mib,gpu,model); other columns are
 * ignored, `sn` names the node in messages. Nodes without GPUs are left out (a GPU emulator has
 * nothing to place on them). The engine needs each GPU type to be one contiguous node range, so
 * nodes are grouped by type, types in order of first appearance, nodes of a type in file order;
 * racks (nodes_per_rack) are cut from that order. */

typedef struct node_row {
    uint32_t gpus;
    uint32_t type;
} node_row;

static bool type_name_ok(const char *s)
{
    if (!*s || strlen(s) >= DIKE_GPU_TYPE_NAME)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return false;
    return true;
}

/* Split at commas into at most max trimmed fields; returns the field count (may exceed max). */
static size_t split_fields(char *s, char **fields, size_t max)
{
    size_t n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        if (n < max)
            fields[n] = dike__trim(s);
        n++;
        if (!comma)
            return n;
        s = comma + 1;
    }
}

static int read_node_list(dike_cluster *cl, const char *path, dike_err *e)
{
    enum { MAXF = 64 };
    char *buf = NULL, *f[MAXF];
    size_t cap = 0, nf = 0, rows_cap = 0, nrows = 0;
    node_row *rows = NULL;
    uint32_t line = 0, without_gpus = 0;
    int pos_gpu = -1, pos_model = -1, pos_sn = -1, rc = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return dike_err_set(e, DIKE_EIO, "[cluster] nodes_file: %s: cannot open: %s", path, strerror(errno));
    ssize_t len;
    errno = 0;
    while ((len = getline(&buf, &cap, fp)) >= 0) {
        line++;
        if (memchr(buf, '\0', (size_t)len)) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": contains a NUL byte (binary file?)", path, line);
            goto out;
        }
        char *s = dike__trim(line == 1 && strncmp(buf, "\xEF\xBB\xBF", 3) == 0 ? buf + 3 : buf);
        if (!*s || *s == '#')
            continue;
        if (!nf) {
            nf = split_fields(s, f, MAXF);
            for (size_t i = 0; i < nf && i < MAXF; i++) {
                if (strcmp(f[i], "gpu") == 0)
                    pos_gpu = (int)i;
                else if (strcmp(f[i], "model") == 0)
                    pos_model = (int)i;
                else if (strcmp(f[i], "sn") == 0)
                    pos_sn = (int)i;
            }
            if (nf > MAXF || pos_gpu < 0 || pos_model < 0) {
                rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": header: %s", path, line,
                                  nf > MAXF ? "more than 64 columns"
                                  : pos_gpu < 0 ? "missing column 'gpu' (a node list needs gpu and model)"
                                                : "missing column 'model' (a node list needs gpu and model)");
                goto out;
            }
            continue;
        }
        size_t n = split_fields(s, f, MAXF);
        if (n != nf) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": %zu fields, the header has %zu", path, line,
                              n, nf);
            goto out;
        }
        int64_t gpus;
        const char *bad = dike__parse_i64(f[pos_gpu], &gpus);
        if (bad || gpus < 0 || gpus > 65535) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": field 'gpu': %s (got '%s')", path, line,
                              bad ? bad : "must be in [0, 65535]", f[pos_gpu]);
            goto out;
        }
        if (gpus == 0) {
            without_gpus++;
            continue;
        }
        const char *model = f[pos_model];
        if (!type_name_ok(model)) {
            rc = dike_err_set(e, DIKE_EINVAL,
                              "%s:%" PRIu32 ": field 'model': %s%s%s (got '%s')", path, line,
                              *model ? "a GPU type name has at most 15 letters, digits, '_', '-', '.'"
                                     : "empty for a node with GPUs",
                              pos_sn >= 0 ? ", node " : "", pos_sn >= 0 ? f[pos_sn] : "", model);
            goto out;
        }
        int t = dike_cluster_type_by_name(cl, model);
        if (t < 0) {
            if (cl->ntypes == DIKE_MAX_GPU_TYPES) {
                rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": field 'model': more than %d GPU types",
                                  path, line, DIKE_MAX_GPU_TYPES);
                goto out;
            }
            t = (int)cl->ntypes++;
            snprintf(cl->types[t].name, sizeof cl->types[t].name, "%s", model);
            cl->types[t].speed = 1.0;
        }
        if (nrows == rows_cap) {
            rows_cap = rows_cap ? 2 * rows_cap : 256;
            rows = dike_xrealloc(rows, rows_cap * sizeof *rows);
        }
        if (nrows == UINT32_MAX) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s: more than %u nodes", path, UINT32_MAX);
            goto out;
        }
        rows[nrows++] = (node_row){(uint32_t)gpus, (uint32_t)t};
        cl->types[t].nnodes++;
        cl->types[t].gpus += (uint64_t)gpus;
    }
    if (ferror(fp)) {
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
        goto out;
    }
    if (!nf) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: empty node list: no header line", path);
        goto out;
    }
    if (!nrows) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: no node with GPUs (%" PRIu32 " without)", path, without_gpus);
        goto out;
    }

    /* Group by type: a counting sort that keeps file order within a type. */
    uint32_t next[DIKE_MAX_GPU_TYPES], first = 0;
    for (uint32_t t = 0; t < cl->ntypes; t++) {
        cl->types[t].first_node = next[t] = first;
        first += cl->types[t].nnodes;
    }
    cl->nodes = (uint32_t)nrows;
    cl->node_gpus = dike_xmalloc(nrows * sizeof *cl->node_gpus);
    cl->gpus_per_node = 0;
    cl->total_gpus = 0;
    bool uniform = true;
    for (size_t i = 0; i < nrows; i++) {
        cl->node_gpus[next[rows[i].type]++] = rows[i].gpus;
        if (rows[i].gpus > cl->gpus_per_node)
            cl->gpus_per_node = rows[i].gpus;
        uniform = uniform && rows[i].gpus == rows[0].gpus;
        cl->total_gpus += rows[i].gpus;
    }
    if (uniform) { /* every node alike: the engine's fast path, as for nodes x gpus_per_node */
        free(cl->node_gpus);
        cl->node_gpus = NULL;
    }
out:
    fclose(fp);
    free(buf);
    free(rows);
    return rc;
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

    cl->nodes_per_rack = (uint32_t)c->cluster_nodes_per_rack;
    cl->loc_factor[DIKE_LOC_NODE] = 1.0;
    cl->loc_factor[DIKE_LOC_RACK] = c->cluster_locality_rack;
    cl->loc_factor[DIKE_LOC_CROSS] = c->cluster_locality_cross_rack;

    int rc;
    if (c->cluster_nodes_file[0]) {
        if (c->cluster_gpu_types[0])
            return dike_err_set(e, DIKE_EINVAL, "[cluster] gpu_types: must be empty when "
                                "cluster.nodes_file is set (the node list gives the types) (got '%s')",
                                c->cluster_gpu_types);
        rc = read_node_list(cl, c->cluster_nodes_file, e);
    } else {
        cl->nodes = (uint32_t)c->cluster_nodes;
        cl->gpus_per_node = (uint32_t)c->cluster_gpus_per_node;
        cl->total_gpus = (uint64_t)cl->nodes * cl->gpus_per_node;
        rc = set_types(cl, c, e);
    }
    cl->nracks = (uint32_t)(((uint64_t)cl->nodes + cl->nodes_per_rack - 1) / cl->nodes_per_rack);
    if (rc == 0)
        rc = set_speeds(cl, c, e);
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
