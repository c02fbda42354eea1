/* Workload container: the job array and the interned tenant and model names. */
#include "dike/workload.h"

#include <stdlib.h>
#include <string.h>

/* Name interning.
 *
 * dike_workload has no member for a lookup index, and traces intern a tenant name on each of up to
 * ~100k rows, so the index lives in the same allocation as the name array, right after it:
 *
 *     names[0 .. cap)   char *       (what w->tenants / w->models point at)
 *     slots[0 .. 2cap)  uint32_t     open-addressing table, 0 = empty, else name index + 1
 *
 * cap is a power of two derived from the count alone (cap_for), so no extra member is needed either;
 * the table is at most half full. Consequence: the name arrays must only grow through
 * dike_workload_tenant / dike_workload_model. Reading them, and freeing them with free(), is fine. */

#define MIN_CAP 8u

static uint32_t cap_for(uint32_t n)
{
    uint32_t cap = MIN_CAP;
    while (cap < n)
        cap *= 2;
    return cap;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

static uint32_t *slots_of(char **names, uint32_t cap)
{
    return (uint32_t *)(void *)(names + cap);
}

/* Slot of @p name in the table: the slot holding it, or the empty slot where it would go. */
static uint32_t *probe(char **names, uint32_t cap, const char *name)
{
    uint32_t *slots = slots_of(names, cap);
    uint32_t mask = 2 * cap - 1;
    for (uint64_t i = hash_name(name) & mask;; i = (i + 1) & mask) {
        if (!slots[i] || strcmp(names[slots[i] - 1], name) == 0)
            return &slots[i];
    }
}

/* Move the @p n names to a fresh array of capacity cap_for(n + 1), with a rebuilt table. */
static char **grow(char **names, uint32_t n)
{
    uint32_t cap = cap_for(n + 1);
    char **fresh = dike_xcalloc(1, cap * sizeof(char *) + 2 * cap * sizeof(uint32_t));
    if (n)
        memcpy(fresh, names, n * sizeof(char *));
    free(names);
    for (uint32_t i = 0; i < n; i++)
        *probe(fresh, cap, fresh[i]) = i + 1;
    return fresh;
}

/* Index of @p name among the @p n names, or UINT32_MAX. */
static uint32_t lookup(char **names, uint32_t n, const char *name)
{
    if (!names)
        return UINT32_MAX;
    uint32_t slot = *probe(names, cap_for(n), name);
    return slot ? slot - 1 : UINT32_MAX;
}

/* Invariant: a non-NULL array holding n names has capacity cap_for(n). */
static uint32_t intern(char ***names, uint32_t *n, const char *name)
{
    uint32_t i = lookup(*names, *n, name);
    if (i != UINT32_MAX)
        return i;
    if (!*names || *n == cap_for(*n))
        *names = grow(*names, *n);
    uint32_t *slot = probe(*names, cap_for(*n + 1), name);
    (*names)[*n] = dike_xstrdup(name);
    *slot = ++*n;
    return *n - 1;
}

void dike_workload_init(dike_workload *w)
{
    memset(w, 0, sizeof *w);
}

void dike_workload_free(dike_workload *w)
{
    for (uint32_t i = 0; i < w->ntenants; i++)
        free(w->tenants[i]);
    for (uint32_t i = 0; i < w->nmodels; i++)
        free(w->models[i]);
    free(w->tenants);
    free(w->models);
    free(w->jobs);
    dike_workload_init(w);
}

dike_job_spec *dike_workload_push(dike_workload *w)
{
    if (w->njobs == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 1024;
        w->jobs = dike_xrealloc(w->jobs, w->cap * sizeof *w->jobs);
    }
    dike_job_spec *j = &w->jobs[w->njobs++];
    memset(j, 0, sizeof *j);
    j->model = -1;
    j->gpu_type = -1;
    return j;
}

uint32_t dike_workload_tenant(dike_workload *w, const char *name)
{
    return intern(&w->tenants, &w->ntenants, name);
}

int16_t dike_workload_model(dike_workload *w, const char *name)
{
    /* Model indices are int16: a new name beyond the range cannot be stored. */
    if (w->nmodels >= INT16_MAX) {
        uint32_t i = lookup(w->models, w->nmodels, name);
        return i == UINT32_MAX ? -1 : (int16_t)i;
    }
    return (int16_t)intern(&w->models, &w->nmodels, name);
}

/* --- loading --- */

typedef int (*trace_reader_fn)(const char *path, const dike_cluster *cl, bool skip_invalid,
                               dike_workload *w, dike_err *e);

/* Trace formats by [workload] trace_format; a new reader is one line here. */
static const struct {
    const char *name;
    trace_reader_fn read;
} formats[] = {
    {"dike", dike_trace_read_dike},
};

int dike_workload_load(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e)
{
    if (!c->workload_trace[0])
        return dike_synth_generate(c, cl, w, e);
    char known[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (strcmp(formats[i].name, c->workload_trace_format) == 0)
            return formats[i].read(c->workload_trace, cl, c->workload_skip_invalid, w, e);
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", formats[i].name);
    }
    return dike_err_set(e, DIKE_EINVAL, "[workload] trace_format: unknown format '%s' (known: %s)",
                        c->workload_trace_format, known);
}
