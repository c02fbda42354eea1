/* [tenants] weights: the modes, their resolution against a workload, and weighted max-min
 * water-filling (the entitlements the coordinator records and Dike schedules by). */
#include "dike/tenants.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/parse.h"

#define FILE_PREFIX "file:"

int dike_tenant_weights_mode(const char *value)
{
    if (!*value || strcmp(value, "equal") == 0)
        return DIKE_WEIGHTS_EQUAL;
    if (strcmp(value, "demand") == 0)
        return DIKE_WEIGHTS_DEMAND;
    if (strncmp(value, FILE_PREFIX, strlen(FILE_PREFIX)) == 0)
        return DIKE_WEIGHTS_FILE;
    return DIKE_WEIGHTS_LIST;
}

/* One weight as text: a positive finite number, else a reason. */
static const char *weight_reason(const char *text, double *v)
{
    const char *why = dike_parse_f64(text, v);
    if (why)
        return why;
    return *v > 0 ? NULL : "must be > 0";
}

/* A name -> index lookup over the workload's tenants (sorted indices, binary search): files and
 * lists may name thousands of tenants. */
typedef struct name_index {
    const dike_workload *w;
    uint32_t *sorted;
} name_index;

static const dike_workload *cmp_w; /* qsort has no context argument; set only around the sort */

static int cmp_name(const void *a, const void *b)
{
    return strcmp(cmp_w->tenants[*(const uint32_t *)a], cmp_w->tenants[*(const uint32_t *)b]);
}

static void index_init(name_index *x, const dike_workload *w)
{
    x->w = w;
    x->sorted = dike_xmalloc((w->ntenants + 1) * sizeof *x->sorted);
    for (uint32_t t = 0; t < w->ntenants; t++)
        x->sorted[t] = t;
    cmp_w = w;
    qsort(x->sorted, w->ntenants, sizeof *x->sorted, cmp_name);
    cmp_w = NULL;
}

/* Tenant index of @p name, or -1. */
static int64_t index_find(const name_index *x, const char *name)
{
    size_t lo = 0, hi = x->w->ntenants;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(x->w->tenants[x->sorted[mid]], name);
        if (c == 0)
            return x->sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Split a list value into its entries, calling @p fn(ctx, name, weight text, entry number) for
 * each; stops at the first non-zero return. The copy is modified in place. */
typedef int (*entry_fn)(void *ctx, char *name, char *num, size_t k);

static int each_entry(char *copy, entry_fn fn, void *ctx)
{
    size_t k = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        k++;
        char *colon = strrchr(tok, ':');
        if (colon)
            *colon = '\0';
        int rc = fn(ctx, dike_trim(tok), colon ? dike_trim(colon + 1) : NULL, k);
        if (rc)
            return rc;
    }
    return 0;
}

typedef struct check_ctx {
    char *why;
    size_t whylen;
    char **names; /* names seen so far (point into the copy) */
    size_t n;
} check_ctx;

static int check_entry(void *vctx, char *name, char *num, size_t k)
{
    check_ctx *c = vctx;
    double v;
    const char *why;
    if (!num || !*name || !*num) {
        snprintf(c->why, c->whylen,
                 "entry %zu '%s' is not name:weight (modes: equal, demand, file:PATH, name:weight,...)",
                 k, name);
        return DIKE_EINVAL;
    }
    if ((why = weight_reason(num, &v))) {
        snprintf(c->why, c->whylen, "weight of '%s': %s", name, why);
        return DIKE_EINVAL;
    }
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->names[i], name) == 0) {
            snprintf(c->why, c->whylen, "tenant '%s' listed twice", name);
            return DIKE_EINVAL;
        }
    c->names[c->n++] = name;
    return 0;
}

int dike_tenant_weights_check(const char *value, char *why, size_t whylen)
{
    switch (dike_tenant_weights_mode(value)) {
    case DIKE_WEIGHTS_EQUAL:
    case DIKE_WEIGHTS_DEMAND:
        return 0;
    case DIKE_WEIGHTS_FILE: {
        char *copy = dike_xstrdup(value + strlen(FILE_PREFIX));
        int empty = !*dike_trim(copy);
        free(copy);
        if (empty) {
            snprintf(why, whylen, "file: needs a path (file:PATH, a CSV of tenant,weight rows)");
            return DIKE_EINVAL;
        }
        return 0;
    }
    default:
        break;
    }
    if (!strchr(value, ':')) {
        snprintf(why, whylen, "unknown mode '%s' (equal, demand, file:PATH or name:weight,...)", value);
        return DIKE_EINVAL;
    }
    char *copy = dike_xstrdup(value);
    check_ctx c = {why, whylen, dike_xcalloc(strlen(value) + 1, sizeof(char *)), 0};
    int rc = each_entry(copy, check_entry, &c);
    free(c.names);
    free(copy);
    return rc;
}

/* ---- resolution ---- */

typedef struct resolve_ctx {
    const dike_config *c;
    const dike_workload *w;
    const name_index *idx;
    double *weight;
    uint8_t *seen;
    dike_err *e;
    const char *file; /* file mode: its path, and the line being read */
    long line;
} resolve_ctx;

/* "WHERE: " for messages about the value as a whole ("" when it was not set from a source). */
static const char *at(const dike_config *c, char *buf, size_t n)
{
    if (c->tenants_weights_at[0])
        snprintf(buf, n, "%s: ", c->tenants_weights_at);
    else
        buf[0] = '\0';
    return buf;
}

/* One tenant,weight pair, from the list or from a file row. */
static int resolve_entry(void *vctx, char *name, char *num, size_t k)
{
    resolve_ctx *r = vctx;
    char where[DIKE_STR_MAX + 64];
    double v;
    const char *why;
    if (r->file)
        snprintf(where, sizeof where, "%s:%ld: ", r->file, r->line);
    else
        at(r->c, where, sizeof where);
    if (!num || !*name || !*num)
        return dike_err_set(r->e, DIKE_EINVAL, "%s[tenants] weights: expected %s (got '%s')", where,
                            r->file ? "tenant,weight" : "name:weight", name);
    if ((why = weight_reason(num, &v)))
        return dike_err_set(r->e, DIKE_EINVAL, "%s[tenants] weights: weight of '%s': %s (got '%s')",
                            where, name, why, num);
    int64_t t = index_find(r->idx, name);
    if (t < 0)
        return dike_err_set(r->e, DIKE_EINVAL, "%s[tenants] weights: no tenant '%s' in %s", where,
                            name, r->w->source);
    if (r->seen[t])
        return dike_err_set(r->e, DIKE_EINVAL, "%s[tenants] weights: tenant '%s' listed twice", where,
                            name);
    r->seen[t] = 1;
    r->weight[t] = v;
    (void)k;
    return 0;
}

/* file:PATH: optional header `tenant,weight`, then one `tenant,weight` row per line; blank lines
 * and lines starting with '#' are skipped. */
static int read_file(resolve_ctx *r, const char *path)
{
    char where[DIKE_STR_MAX + 64];
    FILE *f = fopen(path, "r");
    if (!f)
        return dike_err_set(r->e, DIKE_EIO, "%s[tenants] weights: %s: cannot open: %s",
                            at(r->c, where, sizeof where), path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, rows = 0;
    ssize_t got;
    int rc = 0, first = 1;
    r->file = path;
    r->line = 0;
    while (!rc && (got = getline(&line, &cap, f)) >= 0) {
        r->line++;
        if (strlen(line) != (size_t)got) {
            rc = dike_err_set(r->e, DIKE_EINVAL, "%s:%ld: [tenants] weights: contains a NUL byte",
                              path, r->line);
            break;
        }
        char *s = line;
        if (r->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3; /* UTF-8 byte order mark */
        s = dike_trim(s);
        if (!*s || *s == '#')
            continue;
        char *comma = strchr(s, ',');
        if (first) {
            first = 0;
            if (comma) {
                *comma = '\0';
                int header = strcasecmp(dike_trim(s), "tenant") == 0 &&
                             strcasecmp(dike_trim(comma + 1), "weight") == 0;
                *comma = ',';
                if (header)
                    continue;
            }
        }
        if (!comma || strchr(comma + 1, ',')) {
            rc = dike_err_set(r->e, DIKE_EINVAL,
                              "%s:%ld: [tenants] weights: expected tenant,weight (got '%s')", path,
                              r->line, s);
            break;
        }
        *comma = '\0';
        rows++;
        rc = resolve_entry(r, dike_trim(s), dike_trim(comma + 1), rows);
    }
    if (!rc && ferror(f))
        rc = dike_err_set(r->e, DIKE_EIO, "%s: cannot read: %s", path, strerror(errno));
    if (!rc && rows == 0)
        rc = dike_err_set(r->e, DIKE_EINVAL, "%s[tenants] weights: %s: no tenant,weight rows (empty file)",
                          at(r->c, where, sizeof where), path);
    free(line);
    fclose(f);
    r->file = NULL;
    return rc;
}

int dike_tenant_weights_resolve(const dike_config *c, const dike_workload *w, double *weight,
                                dike_err *e)
{
    const char *value = c->tenants_weights;
    char where[DIKE_STR_MAX + 64], why[512];
    for (uint32_t t = 0; t < w->ntenants; t++)
        weight[t] = 1.0;
    /* A value filled in by hand (not through the config layer) is checked here too. */
    if (dike_tenant_weights_check(value, why, sizeof why))
        return dike_err_set(e, DIKE_EINVAL, "%s[tenants] weights: %s (got '%s')",
                            at(c, where, sizeof where), why, value);
    int mode = dike_tenant_weights_mode(value);
    if (mode == DIKE_WEIGHTS_EQUAL)
        return 0;
    if (mode == DIKE_WEIGHTS_DEMAND) {
        /* GPU-seconds per tenant over the whole workload (after the window), summed in job order. */
        double total = 0;
        for (uint32_t t = 0; t < w->ntenants; t++)
            weight[t] = 0;
        for (size_t i = 0; i < w->njobs; i++) {
            double gs = (double)w->jobs[i].num_gpus * dike_time_to_s(w->jobs[i].duration);
            weight[w->jobs[i].tenant] += gs;
            total += gs;
        }
        for (uint32_t t = 0; t < w->ntenants; t++)
            weight[t] = total > 0 && weight[t] > 0 ? weight[t] / total : 1.0;
        return 0;
    }
    name_index idx;
    index_init(&idx, w);
    resolve_ctx r = {c, w, &idx, weight, dike_xcalloc(w->ntenants + 1, 1), e, NULL, 0};
    int rc;
    if (mode == DIKE_WEIGHTS_FILE) {
        char *path = dike_xstrdup(value + strlen(FILE_PREFIX));
        rc = read_file(&r, dike_trim(path));
        free(path);
    } else {
        char *copy = dike_xstrdup(value);
        rc = each_entry(copy, resolve_entry, &r);
        free(copy);
    }
    free(r.seen);
    free(idx.sorted);
    return rc;
}

/* ---- water-filling ---- */

static int before(const double *ratio, uint32_t a, uint32_t b)
{
    return ratio[a] < ratio[b] || (ratio[a] == ratio[b] && a < b);
}

void dike_tenant_order(size_t n, uint32_t *order, const double *ratio)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t k = order[i];
        size_t j = i;
        for (; j > 0 && before(ratio, k, order[j - 1]); j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
}

void dike_tenant_entitle(size_t n, const uint32_t *order, const double *weight, const double *demand,
                         double capacity, double *out)
{
    /* In order of demand / weight: while the next claimant's demand is below its share of what is
     * left at the current level it is satisfied and leaves; the first one that is not fixes the
     * level for it and every later one (their ratios are at least as large). */
    double wsum = 0, left = capacity > 0 ? capacity : 0;
    for (size_t k = 0; k < n; k++)
        wsum += weight[order[k]];
    for (size_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        if (demand[i] * wsum <= left * weight[i]) {
            out[i] = demand[i];
            left = left > demand[i] ? left - demand[i] : 0;
            wsum -= weight[i];
            continue;
        }
        /* the remaining weight summed afresh: no drift from the subtractions above */
        double rest = 0;
        for (size_t m = k; m < n; m++)
            rest += weight[order[m]];
        for (size_t m = k; m < n; m++)
            out[order[m]] = left * weight[order[m]] / rest;
        break;
    }
}
