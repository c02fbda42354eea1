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

#include "dike/rng.h"
#include "io/parse.h"

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
static int usable_mix(const dike_config *c, const dike_cluster *cl, dike__mix_entry *mix, size_t *n,
                      dike_err *e)
{
    char why[512];
    size_t all = 0, kept = 0;
    double weight = 0;
    uint64_t max = dike_cluster_max_gang(cl, -1);
    if (dike__parse_gpu_mix(c->workload_gpu_mix, mix, &all, why, sizeof why))
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

/* @p w must be freshly initialised; on error it is left empty. */
int dike_synth_generate(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e)
{
    dike__mix_entry mix[DIKE__MIX_MAX];
    double mix_w[DIKE__MIX_MAX];
    size_t nmix = 0;
    int rc;
    gsl_rng *r_size = NULL, *r_dur = NULL, *r_ten = NULL, *r_arr = NULL;
    gsl_ran_discrete_t *size_table = NULL, *tenant_table = NULL;
    double *tenant_w = NULL;
    uint32_t *tenant_of_rank = NULL;

    if ((rc = usable_mix(c, cl, mix, &nmix, e)))
        goto out;
    if (c->workload_jobs < 1 || c->workload_tenants < 1 || !(c->workload_load > 0) ||
        !(c->workload_duration_median_s > 0) || !(c->workload_duration_max_s >= 1) ||
        !(c->workload_duration_sigma >= 0) || !(c->workload_tenant_skew >= 0)) {
        rc = dike_err_set(e, DIKE_EINVAL, "[workload]: jobs, tenants, load, duration_* or tenant_skew "
                                          "out of range (run dike_config_validate first)");
        goto out;
    }

    /* Durations are floored at 1 s and capped at the largest whole second <= duration_max_s, so every
     * rounded value lies in [1, duration_max_s]. */
    const double mu = log(c->workload_duration_median_s), sigma = c->workload_duration_sigma;
    const double dmax = floor(c->workload_duration_max_s);
    double mean_gpus = 0, total_w = 0;
    for (size_t i = 0; i < nmix; i++) {
        mix_w[i] = mix[i].weight;
        total_w += mix[i].weight;
        mean_gpus += mix[i].weight * mix[i].gpus;
    }
    mean_gpus /= total_w;
    /* Offered load = arrival rate x E[gpus x duration] / cluster GPUs; gang size and duration are
     * drawn independently, so E[gpus x duration] = E[gpus] E[duration]. */
    const double mean_dur = clipped_lognormal_mean(mu, sigma, 1.0, dmax);
    const double lambda = c->workload_load * (double)cl->total_gpus / (mean_gpus * mean_dur);
    if (!(lambda > 0) || !isfinite(lambda)) {
        rc = dike_err_set(e, DIKE_EINVAL, "[workload] load: arrival rate %g per s is not usable", lambda);
        goto out;
    }

    const uint64_t seed = (uint64_t)c->run_seed;
    const size_t ntenants = (size_t)c->workload_tenants;
    r_size = dike_rng_gsl_alloc(seed, 0, DIKE_STREAM_JOBSIZE);
    r_dur = dike_rng_gsl_alloc(seed, 0, DIKE_STREAM_DURATION);
    r_ten = dike_rng_gsl_alloc(seed, 0, DIKE_STREAM_TENANT);
    r_arr = dike_rng_gsl_alloc(seed, 0, DIKE_STREAM_ARRIVALS);
    size_table = gsl_ran_discrete_preproc(nmix, mix_w);
    tenant_w = dike_xmalloc(ntenants * sizeof *tenant_w);
    for (size_t k = 0; k < ntenants; k++)
        tenant_w[k] = pow((double)(k + 1), -c->workload_tenant_skew);
    tenant_table = gsl_ran_discrete_preproc(ntenants, tenant_w);
    if (!size_table || !tenant_table) {
        rc = dike_err_set(e, DIKE_ENOMEM, "[workload]: GSL could not build a sampling table");
        goto out;
    }
    /* Tenant of popularity rank k is "t<k>"; indices are given in order of first appearance, as for
     * traces, so every tenant in the workload has at least one job. */
    tenant_of_rank = dike_xmalloc(ntenants * sizeof *tenant_of_rank);
    for (size_t k = 0; k < ntenants; k++)
        tenant_of_rank[k] = UINT32_MAX;

    double t = 0;
    for (int64_t i = 0; i < c->workload_jobs; i++) {
        dike_job_spec *j = dike_workload_push(w);
        if (i > 0)
            t += gsl_ran_exponential(r_arr, 1.0 / lambda);
        /* the same bound as a trace's submit times: beyond it, microseconds overflow int64 long
         * before the run ends (a tiny load makes huge gaps) */
        if (!(t <= 1e12)) {
            rc = dike_err_set(e, DIKE_EINVAL, "[workload] load: %g gives %g s between arrivals on average, so "
                              "job %" PRId64 " of %" PRId64 " would be submitted after %g s, beyond the 1e12 s "
                              "limit of simulated time (raise workload.load or lower workload.jobs)",
                              c->workload_load, 1.0 / lambda, i, c->workload_jobs, t);
            goto out;
        }
        j->id = i;
        j->submit = dike_time_from_s(t);
        j->num_gpus = mix[gsl_ran_discrete(r_size, size_table)].gpus;
        double d = round(gsl_ran_lognormal(r_dur, mu, sigma));
        j->duration = dike_time_from_s(fmin(fmax(d, 1.0), dmax));
        size_t k = gsl_ran_discrete(r_ten, tenant_table);
        if (tenant_of_rank[k] == UINT32_MAX) {
            char name[32];
            snprintf(name, sizeof name, "t%zu", k);
            tenant_of_rank[k] = dike_workload_tenant(w, name);
        }
        j->tenant = tenant_of_rank[k];
    }
    snprintf(w->source, sizeof w->source, "synthetic");
    w->sha256[0] = '\0';
    w->time_offset = 0;
    w->skipped = 0;
out:
    if (rc)
        dike_workload_free(w);
    gsl_ran_discrete_free(size_table);
    gsl_ran_discrete_free(tenant_table);
    gsl_rng_free(r_size);
    gsl_rng_free(r_dur);
    gsl_rng_free(r_ten);
    gsl_rng_free(r_arr);
    free(tenant_w);
    free(tenant_of_rank);
    return rc;
}
