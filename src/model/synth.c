/* Synthetic workload: Poisson arrivals at a target offered load, lognormal (heavy-tailed) durations,
 * a GPU-count mix and Zipf-like tenant popularity. Each quantity draws from its own keyed stream
 * (rng.h), so changing how one is drawn never shifts the numbers of another. */
#include "dike/workload.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "dike/rng.h"

/* Expected value of clip(X, lo, hi) for X lognormal with median exp(mu) and log-sd sigma:
 *
 *     lo P(X < lo) + E[X; lo <= X <= hi] + hi P(X > hi)
 *   = lo Phi(a) + exp(mu + sigma^2/2) (Phi(b - sigma) - Phi(a - sigma)) + hi (1 - Phi(b)),
 *
 * a = (ln lo - mu)/sigma, b = (ln hi - mu)/sigma. This is the analytic mean of the durations the
 * generator draws (floored at 1 s, capped at duration_max_s) except for rounding to whole seconds,
 * which moves the mean by far less than a second. Using the capped mean matters: with the default
 * sigma of 1.8 the 14-day cap removes a visible part of the uncapped mean exp(mu + sigma^2/2). */
static double clipped_lognormal_mean(double mu, double sigma, double lo, double hi)
{
    if (sigma == 0)
        return fmin(fmax(exp(mu), lo), hi);
    double a = (log(lo) - mu) / sigma, b = (log(hi) - mu) / sigma;
    return lo * gsl_cdf_ugaussian_P(a) +
           exp(mu + sigma * sigma / 2) * (gsl_cdf_ugaussian_P(b - sigma) - gsl_cdf_ugaussian_P(a - sigma)) +
           hi * gsl_cdf_ugaussian_Q(b);
}

/* The GPU-count mix restricted to gangs the cluster can hold. */
static int usable_mix(const dike_config *c, const dike_cluster *cl, dike_mix_entry *mix, size_t *n,
                      dike_err *e)
{
    char why[512];
    size_t all = 0, kept = 0;
    double weight = 0;
    uint64_t max = dike_cluster_max_gang(cl, -1);
    if (dike_parse_gpu_mix(c->workload_gpu_mix, mix, &all, why, sizeof why))
        return dike_err_set(e, DIKE_EINVAL, "[workload] gpu_mix: %s (got '%s')", why, c->workload_gpu_mix);
    for (size_t i = 0; i < all; i++) {
        if (mix[i].gpus <= max) {
            mix[kept++] = mix[i];
            weight += mix[i].weight;
        }
    }
    if (!(weight > 0))
        return dike_err_set(e, DIKE_EINVAL,
                            "[workload] gpu_mix: no GPU count with a positive weight fits the largest GPU "
                            "pool (%llu GPUs) (got '%s')",
                            (unsigned long long)max, c->workload_gpu_mix);
    *n = kept;
    return 0;
}

/* One generation: the usable mix, the duration law, the arrival rate and the samplers (a keyed
 * stream per quantity, GSL's discrete tables). */
typedef struct synth {
    dike_mix_entry mix[DIKE__MIX_MAX];
    size_t nmix;
    double mu, sigma; /* lognormal durations: median exp(mu), log-sd sigma */
    double dmax;      /* largest whole second <= duration_max_s */
    double lambda;    /* arrivals per s */
    gsl_rng *r_size, *r_dur, *r_ten, *r_arr;
    gsl_ran_discrete_t *size_table, *tenant_table;
    double *tenant_w;
    uint32_t *tenant_of_rank; /* workload tenant index of each popularity rank, UINT32_MAX = none yet */
} synth;

/* The arrival rate that gives workload.load on @p cl. */
static int arrival_rate(const dike_config *c, const dike_cluster *cl, synth *g, dike_err *e)
{
    /* Durations are floored at 1 s and capped at the largest whole second <= duration_max_s, so every
     * rounded value lies in [1, duration_max_s]. */
    g->mu = log(c->workload_duration_median_s);
    g->sigma = c->workload_duration_sigma;
    g->dmax = floor(c->workload_duration_max_s);
    double mean_gpus = 0, total_w = 0;
    for (size_t i = 0; i < g->nmix; i++) {
        total_w += g->mix[i].weight;
        mean_gpus += g->mix[i].weight * g->mix[i].gpus;
    }
    mean_gpus /= total_w;
    /* Offered load = arrival rate x E[gpus x duration] / cluster GPUs; gang size and duration are
     * drawn independently, so E[gpus x duration] = E[gpus] E[duration]. */
    const double mean_dur = clipped_lognormal_mean(g->mu, g->sigma, 1.0, g->dmax);
    g->lambda = c->workload_load * (double)cl->total_gpus / (mean_gpus * mean_dur);
    if (!(g->lambda > 0) || !isfinite(g->lambda))
        return dike_err_set(e, DIKE_EINVAL, "[workload] load: arrival rate %g per s is not usable", g->lambda);
    return 0;
}

static int make_samplers(const dike_config *c, synth *g, dike_err *e)
{
    double mix_w[DIKE__MIX_MAX];
    for (size_t i = 0; i < g->nmix; i++)
        mix_w[i] = g->mix[i].weight;
    const uint64_t seed = (uint64_t)c->run_seed;
    const size_t ntenants = (size_t)c->workload_tenants;
    g->r_size = dike_rng_gsl_alloc(seed, 0, DIKE_STREAM_JOBSIZE);
    g->r_dur = dike_rng_gsl_alloc(seed, 0, DIKE_STREAM_DURATION);
    g->r_ten = dike_rng_gsl_alloc(seed, 0, DIKE_STREAM_TENANT);
    g->r_arr = dike_rng_gsl_alloc(seed, 0, DIKE_STREAM_ARRIVALS);
    g->size_table = gsl_ran_discrete_preproc(g->nmix, mix_w);
    g->tenant_w = dike_xmalloc(ntenants * sizeof *g->tenant_w);
    for (size_t k = 0; k < ntenants; k++)
        g->tenant_w[k] = pow((double)(k + 1), -c->workload_tenant_skew);
    g->tenant_table = gsl_ran_discrete_preproc(ntenants, g->tenant_w);
    if (!g->size_table || !g->tenant_table)
        return dike_err_set(e, DIKE_ENOMEM, "[workload]: GSL could not build a sampling table");
    /* Tenant of popularity rank k is "t<k>"; indices are given in order of first appearance, as for
     * traces, so every tenant in the workload has at least one job. */
    g->tenant_of_rank = dike_xmalloc(ntenants * sizeof *g->tenant_of_rank);
    for (size_t k = 0; k < ntenants; k++)
        g->tenant_of_rank[k] = UINT32_MAX;
    return 0;
}

static int draw_jobs(const dike_config *c, synth *g, dike_workload *w, dike_err *e)
{
    double t = 0;
    for (int64_t i = 0; i < c->workload_jobs; i++) {
        dike_job_spec *j = dike_workload_push(w);
        if (i > 0)
            t += gsl_ran_exponential(g->r_arr, 1.0 / g->lambda);
        /* the same bound as a trace's submit times: beyond it, microseconds overflow int64 long
         * before the run ends (a tiny load makes huge gaps) */
        if (!(t <= 1e12))
            return dike_err_set(e, DIKE_EINVAL, "[workload] load: %g gives %g s between arrivals on average, so "
                                "job %" PRId64 " of %" PRId64 " would be submitted after %g s, beyond the 1e12 s "
                                "limit of simulated time (raise workload.load or lower workload.jobs)",
                                c->workload_load, 1.0 / g->lambda, i, c->workload_jobs, t);
        j->id = i;
        j->submit = dike_time_from_s(t);
        j->num_gpus = g->mix[gsl_ran_discrete(g->r_size, g->size_table)].gpus;
        double d = round(gsl_ran_lognormal(g->r_dur, g->mu, g->sigma));
        j->duration = dike_time_from_s(fmin(fmax(d, 1.0), g->dmax));
        size_t k = gsl_ran_discrete(g->r_ten, g->tenant_table);
        if (g->tenant_of_rank[k] == UINT32_MAX) {
            char name[32];
            snprintf(name, sizeof name, "t%zu", k);
            g->tenant_of_rank[k] = dike_workload_tenant(w, name);
        }
        j->tenant = g->tenant_of_rank[k];
    }
    return 0;
}

/* @p w must be freshly initialised; on error it is left empty. */
int dike_synth_generate(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e)
{
    synth g = {0};
    int rc = usable_mix(c, cl, g.mix, &g.nmix, e);
    if (!rc && (c->workload_jobs < 1 || c->workload_tenants < 1 || !(c->workload_load > 0) ||
                !(c->workload_duration_median_s > 0) || !(c->workload_duration_max_s >= 1) ||
                !(c->workload_duration_sigma >= 0) || !(c->workload_tenant_skew >= 0)))
        rc = dike_err_set(e, DIKE_EINVAL, "[workload]: jobs, tenants, load, duration_* or tenant_skew "
                                          "out of range (run dike_config_validate first)");
    if (!rc)
        rc = arrival_rate(c, cl, &g, e);
    if (!rc)
        rc = make_samplers(c, &g, e);
    if (!rc)
        rc = draw_jobs(c, &g, w, e);
    if (rc) {
        dike_workload_free(w);
    } else {
        snprintf(w->source, sizeof w->source, "synthetic");
        w->sha256[0] = '\0';
        w->time_offset = 0;
        w->skipped = 0;
    }
    gsl_ran_discrete_free(g.size_table);
    gsl_ran_discrete_free(g.tenant_table);
    gsl_rng_free(g.r_size);
    gsl_rng_free(g.r_dur);
    gsl_rng_free(g.r_ten);
    gsl_rng_free(g.r_arr);
    free(g.tenant_w);
    free(g.tenant_of_rank);
    return rc;
}
