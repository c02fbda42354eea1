/* Workload container (the job array and the interned tenant and model names) and the steps that
 * turn a trace into the workload a run replays: window, time scaling, model classes. */
#include "dike/workload.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dike/rng.h"
#include "dike/throughput.h"

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
    w->time_scale = 1.0;
}

static void free_names(char **names, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The rows kept larger than the cluster (keep_too_large) and their messages, freed; the list empty. */
static void free_too_large(dike_workload *w)
{
    for (size_t i = 0; i < w->ntoo_large; i++)
        free(w->too_large[i].msg);
    free(w->too_large);
    w->too_large = NULL;
    w->ntoo_large = w->too_large_cap = 0;
}

void dike_workload_free(dike_workload *w)
{
    free_names(w->tenants, w->ntenants);
    free_names(w->models, w->nmodels);
    for (int r = 0; r < DIKE_SKIP_NRULES; r++)
        free(w->skip_msg[r]);
    free(w->model_class);
    free(w->jobs);
    free_too_large(w);
    dike_workload_init(w);
}

void dike_workload_renumber_names(dike_workload *w)
{
    char **tenants = NULL, **models = NULL;
    uint32_t ntenants = 0, nmodels = 0;
    for (size_t i = 0; i < w->njobs; i++) {
        dike_job_spec *j = &w->jobs[i];
        j->tenant = intern(&tenants, &ntenants, w->tenants[j->tenant]);
        if (j->model >= 0)
            j->model = (int16_t)intern(&models, &nmodels, w->models[j->model]);
    }
    free_names(w->tenants, w->ntenants);
    free_names(w->models, w->nmodels);
    w->tenants = tenants;
    w->ntenants = ntenants;
    w->models = models;
    w->nmodels = nmodels;
    free(w->model_class); /* indices changed: bind again */
    w->model_class = NULL;
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

/* --- from a trace to the replayed workload --- */

/* Simulated time restarts at the first job (after jobs were removed): the shift joins
 * w->time_offset, so outputs can map back to trace time. */
static void restart_time(dike_workload *w)
{
    const dike_time t0 = w->jobs[0].submit;
    w->time_offset += t0;
    for (size_t i = 0; i < w->njobs; i++)
        w->jobs[i].submit -= t0;
}

bool dike_workload_windowed(const dike_config *c)
{
    return c->workload_first_job != 0 || c->workload_last_job >= 0 || c->workload_start_s != 0 ||
           c->workload_end_s != 0;
}

/* Keep the jobs inside workload.first_job..last_job and start_s..end_s (both measured on the whole
 * trace: index in submit order, seconds since its first submit); time restarts at the first kept.
 * Marks which of the rows kept larger than the cluster fall inside (judge_too_large). */
static int cut_window(const dike_config *c, dike_workload *w, dike_err *e)
{
    for (size_t i = 0; i < w->ntoo_large; i++)
        w->too_large[i].kept = true;
    if (!dike_workload_windowed(c))
        return 0;
    const dike_time start = dike_time_from_s(c->workload_start_s);
    const dike_time end = c->workload_end_s > 0 ? dike_time_from_s(c->workload_end_s) : DIKE_TIME_INF;
    const uint64_t first = (uint64_t)c->workload_first_job;
    const uint64_t last = c->workload_last_job < 0 ? UINT64_MAX : (uint64_t)c->workload_last_job;
    for (size_t i = 0; i < w->ntoo_large; i++) {
        size_t x = w->too_large[i].idx;
        w->too_large[i].kept =
            x >= first && x <= last && w->jobs[x].submit >= start && w->jobs[x].submit < end;
    }
    size_t k = 0;
    for (size_t i = 0; i < w->njobs; i++) {
        const dike_job_spec *j = &w->jobs[i];
        if (i >= first && i <= last && j->submit >= start && j->submit < end)
            w->jobs[k++] = *j;
    }
    if (k == 0)
        return dike_err_set(e, DIKE_EINVAL,
                            "%s: no job in the window (workload.first_job %" PRId64 ", last_job %" PRId64
                            ", start_s %.15g, end_s %.15g) of its %zu jobs spanning %.15g s",
                            w->source, c->workload_first_job, c->workload_last_job,
                            c->workload_start_s, c->workload_end_s, w->njobs,
                            dike_time_to_s(w->jobs[w->njobs - 1].submit));
    w->window_dropped = w->njobs - k;
    w->njobs = k;
    restart_time(w);
    dike_workload_renumber_names(w);
    return 0;
}

double dike_workload_offered_load(const dike_workload *w, uint64_t total_gpus)
{
    if (w->njobs < 2 || total_gpus == 0)
        return 0;
    double gpu_us = 0;
    for (size_t i = 0; i < w->njobs; i++)
        gpu_us += (double)w->jobs[i].num_gpus * (double)w->jobs[i].duration;
    double span = (double)(w->jobs[w->njobs - 1].submit - w->jobs[0].submit);
    return span > 0 ? gpu_us / ((double)total_gpus * span) : 0;
}

/* Multiply every submit time (inter-arrival times, since time starts at 0) by workload.time_scale,
 * or by the factor that gives workload.trace_load on @p cl. Durations stay as they are. */
static int scale_arrivals(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e)
{
    double k = c->workload_time_scale;
    if (c->workload_trace_load > 0) {
        double load = dike_workload_offered_load(w, cl->total_gpus);
        if (!(load > 0))
            return dike_err_set(e, DIKE_EINVAL, "[workload] trace_load: %s has no inter-arrival time "
                                "to scale (all %zu jobs submitted at once)", w->source, w->njobs);
        k = load / c->workload_trace_load;
    }
    if (k == 1)
        return 0;
    if (!(k > 0) || (double)w->jobs[w->njobs - 1].submit * k > 1e12 * 1e6)
        return dike_err_set(e, DIKE_EINVAL, "[workload] %s: scaling inter-arrival times by %g puts "
                            "the last submit beyond 10^12 s", c->workload_trace_load > 0 ?
                            "trace_load" : "time_scale", k);
    for (size_t i = 0; i < w->njobs; i++)
        w->jobs[i].submit = (dike_time)llround((double)w->jobs[i].submit * k);
    w->time_scale = k;
    return 0;
}

/* workload.model_assignment for jobs without a model class: one class for all, or a draw per job
 * from its own keyed stream (seed, job id, DIKE_STREAM_MODEL), uniform over the classes Gavel
 * measured at the job's scale (dike_tput_scale_index), so a job's class depends on nothing else:
 * not on the rank count, the window or the other jobs. */
static int assign_models(const dike_config *c, dike_workload *w, dike_err *e)
{
    const char *how = c->workload_model_assignment;
    if (strcmp(how, "none") == 0)
        return 0;
    const bool uniform = strcmp(how, "uniform") == 0;
    const int fixed = uniform ? -1 : dike_tput_class_find(how);
    if (!uniform && fixed < 0)
        return dike_err_set(e, DIKE_EINVAL, "[workload] model_assignment: unknown class '%s'", how);
    const size_t ncls = dike_tput_gavel_n;
    int16_t *index = dike_xmalloc(ncls * sizeof *index); /* workload model of each class, -1 = not yet */
    int *cand = dike_xmalloc(DIKE_TPUT_NSCALES * ncls * sizeof *cand);
    size_t ncand[DIKE_TPUT_NSCALES] = {0};
    for (size_t k = 0; k < ncls; k++) {
        index[k] = -1;
        for (int si = 0; si < DIKE_TPUT_NSCALES; si++)
            if (dike_tput_gavel[k].ref[si] > 0)
                cand[si * ncls + ncand[si]++] = (int)k;
    }
    int rc = 0;
    for (size_t i = 0; i < w->njobs && !rc; i++) {
        dike_job_spec *j = &w->jobs[i];
        if (j->model >= 0)
            continue;
        int cls = fixed;
        if (cls < 0) {
            int si = dike_tput_scale_index(j->num_gpus);
            dike_rng r;
            dike_rng_init(&r, (uint64_t)c->run_seed, (uint64_t)j->id, DIKE_STREAM_MODEL);
            cls = cand[si * ncls + dike_rng_below(&r, ncand[si])];
        }
        if (index[cls] < 0 && (index[cls] = dike_workload_model(w, dike_tput_gavel[cls].name)) < 0)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: more than %d model classes", w->source, INT16_MAX);
        j->model = index[cls];
        w->models_assigned++;
    }
    free(index);
    free(cand);
    return rc;
}

/* The rows kept larger than the cluster (keep_too_large) once the window is cut: the first of
 * them inside it, in reading order, stops the run with the message the read would have given;
 * under skip_invalid those inside it are dropped and counted as the read would have. */
static int judge_too_large(const dike_cluster *cl, dike_workload *w, dike_err *e)
{
    const dike_too_large *first = NULL;
    for (size_t i = 0; i < w->ntoo_large && !first; i++)
        if (w->too_large[i].kept)
            first = &w->too_large[i];
    int rc = 0;
    if (first && !w->too_large_skip) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s", first->msg);
    } else if (first) {
        size_t k = 0;
        for (size_t i = 0; i < w->njobs; i++)
            if (w->jobs[i].num_gpus <= dike_cluster_max_gang(cl, w->jobs[i].gpu_type))
                w->jobs[k++] = w->jobs[i];
        size_t dropped = w->njobs - k;
        w->skipped += dropped;
        w->skips[DIKE_SKIP_TOO_LARGE] += dropped;
        if (!w->skip_msg[DIKE_SKIP_TOO_LARGE])
            w->skip_msg[DIKE_SKIP_TOO_LARGE] = dike_xstrdup(first->msg);
        w->njobs = k;
        if (k == 0) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s: no valid jobs (%zu rows skipped)", w->source,
                              w->skipped);
        } else {
            restart_time(w); /* at the first job kept, as after the window */
        }
        dike_workload_renumber_names(w);
    }
    free_too_large(w);
    return rc;
}

int dike_workload_prepare(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e)
{
    int rc = 0;
    if (w->format[0] && w->njobs) {
        if (!(rc = cut_window(c, w, e)) && !(rc = judge_too_large(cl, w, e)))
            rc = scale_arrivals(c, cl, w, e);
    }
    if (!rc)
        rc = assign_models(c, w, e);
    return rc;
}
