/* Node lists (cluster.nodes_file) and the cluster of a config: the reading is here, in the io
 * layer; the cluster is built from what was read by the model (dike_cluster_build).
 *
 * A node list is a CSV with a header naming at least `gpu` (GPUs of the node) and `model` (its GPU
 * type), like Alibaba's openb node lists (sn,cpu_milli,memory_mib,gpu,model); other columns are
 * ignored, `sn` names the node in messages. Nodes without GPUs are left out (a GPU emulator has
 * nothing to place on them). */
#include "dike/cluster.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

enum { MAXF = 64 }; /* columns of a node list */

/* Where the columns of interest are, from the header line. */
typedef struct header {
    size_t nf; /* fields of the header, 0 before it is read */
    int gpu, model, sn;
} header;

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

static int read_header(header *h, char *s, const char *path, uint32_t line, dike_err *e)
{
    char *f[MAXF];
    h->nf = dike_split_csv(s, f, MAXF);
    h->gpu = h->model = h->sn = -1;
    for (size_t i = 0; i < h->nf && i < MAXF; i++) {
        if (strcmp(f[i], "gpu") == 0)
            h->gpu = (int)i;
        else if (strcmp(f[i], "model") == 0)
            h->model = (int)i;
        else if (strcmp(f[i], "sn") == 0)
            h->sn = (int)i;
    }
    if (h->nf > MAXF || h->gpu < 0 || h->model < 0)
        return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": header: %s", path, line,
                            h->nf > MAXF ? "more than 64 columns"
                            : h->gpu < 0 ? "missing column 'gpu' (a node list needs gpu and model)"
                                         : "missing column 'model' (a node list needs gpu and model)");
    return 0;
}

/* Type index of @p model, added to the list at its first appearance. */
static int type_of(dike_node_list *nl, const char *model, const char *path, uint32_t line, dike_err *e)
{
    for (uint32_t t = 0; t < nl->ntypes; t++)
        if (strcmp(nl->type_names[t], model) == 0)
            return (int)t;
    if (nl->ntypes == DIKE_MAX_GPU_TYPES)
        return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": field 'model': more than %d GPU types",
                            path, line, DIKE_MAX_GPU_TYPES);
    snprintf(nl->type_names[nl->ntypes], sizeof nl->type_names[0], "%s", model);
    return (int)nl->ntypes++;
}

/* One node row: appended to @p nl, or counted in @p without_gpus. */
static int read_row(dike_node_list *nl, size_t *cap, const header *h, char *s, const char *path,
                    uint32_t line, uint32_t *without_gpus, dike_err *e)
{
    char *f[MAXF];
    size_t n = dike_split_csv(s, f, MAXF);
    if (n != h->nf)
        return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": %zu fields, the header has %zu", path,
                            line, n, h->nf);
    int64_t gpus;
    const char *bad = dike_parse_i64(f[h->gpu], &gpus);
    if (bad || gpus < 0 || gpus > 65535)
        return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": field 'gpu': %s (got '%s')", path, line,
                            bad ? bad : "must be in [0, 65535]", f[h->gpu]);
    if (gpus == 0) {
        (*without_gpus)++;
        return 0;
    }
    const char *model = f[h->model];
    if (!type_name_ok(model))
        return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": field 'model': %s%s%s (got '%s')", path,
                            line,
                            *model ? "a GPU type name has at most 15 letters, digits, '_', '-', '.'"
                                   : "empty for a node with GPUs",
                            h->sn >= 0 ? ", node " : "", h->sn >= 0 ? f[h->sn] : "", model);
    int t = type_of(nl, model, path, line, e);
    if (t < 0)
        return t;
    if (nl->n == UINT32_MAX)
        return dike_err_set(e, DIKE_EINVAL, "%s: more than %u nodes", path, UINT32_MAX);
    if (nl->n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        nl->gpus = dike_xrealloc(nl->gpus, *cap * sizeof *nl->gpus);
        nl->type = dike_xrealloc(nl->type, *cap * sizeof *nl->type);
    }
    nl->gpus[nl->n] = (uint32_t)gpus;
    nl->type[nl->n++] = (uint8_t)t;
    return 0;
}

static void node_list_free(dike_node_list *nl)
{
    free(nl->gpus);
    free(nl->type);
    memset(nl, 0, sizeof *nl);
}

/* 0, or DIKE_EIO / DIKE_EINVAL naming the file and line; @p nl is empty on error. */
static int node_list_read(const char *path, dike_node_list *nl, dike_err *e)
{
    memset(nl, 0, sizeof *nl);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return dike_err_set(e, DIKE_EIO, "[cluster] nodes_file: %s: cannot open: %s", path, strerror(errno));
    char *buf = NULL;
    size_t bufcap = 0, cap = 0;
    header h = {0};
    uint32_t line = 0, without_gpus = 0;
    int rc = 0;
    ssize_t len;
    errno = 0;
    while (rc == 0 && (len = getline(&buf, &bufcap, fp)) >= 0) {
        line++;
        if (memchr(buf, '\0', (size_t)len)) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": contains a NUL byte (binary file?)", path, line);
            break;
        }
        char *s = dike_trim(line == 1 && strncmp(buf, "\xEF\xBB\xBF", 3) == 0 ? buf + 3 : buf);
        if (!*s || *s == '#')
            continue;
        rc = h.nf ? read_row(nl, &cap, &h, s, path, line, &without_gpus, e)
                  : read_header(&h, s, path, line, e);
    }
    if (rc == 0 && ferror(fp))
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
    else if (rc == 0 && !h.nf)
        rc = dike_err_set(e, DIKE_EINVAL, "%s: empty node list: no header line", path);
    else if (rc == 0 && !nl->n)
        rc = dike_err_set(e, DIKE_EINVAL, "%s: no node with GPUs (%" PRIu32 " without)", path, without_gpus);
    fclose(fp);
    free(buf);
    if (rc)
        node_list_free(nl);
    return rc;
}

int dike_cluster_init(dike_cluster *cl, const dike_config *c, dike_err *e)
{
    memset(cl, 0, sizeof *cl);
    int rc = dike_cluster_check(c, e);
    if (rc || !c->cluster_nodes_file[0])
        return rc ? rc : dike_cluster_build(cl, c, NULL, e);
    dike_node_list nl;
    if ((rc = node_list_read(c->cluster_nodes_file, &nl, e)))
        return rc;
    rc = dike_cluster_build(cl, c, &nl, e);
    node_list_free(&nl);
    return rc;
}
