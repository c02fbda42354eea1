/* Metrics: JCT quantiles, finish-time fairness, Jain's index, utilisation. */
#include "dike/metrics.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double dike_t_ideal(double duration_s, uint32_t num_gpus, double navg, uint64_t total_gpus)
{
    double share = (double)num_gpus * navg / (double)total_gpus;
    return duration_s * (share > 1.0 ? share : 1.0);
}

double dike_jain(const double *x, size_t n)
{
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        s2 += x[i] * x[i];
    }
    if (n == 0 || s2 == 0)
        return 1.0;
    return s * s / ((double)n * s2);
}

double dike_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    return gsl_stats_quantile_from_sorted_data(sorted, 1, n, q);
}

double dike_quantile_select(double *data, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    /* gsl_stats_quantile_from_sorted_data's formula, on the two order statistics it reads */
    const double index = q * (double)(n - 1);
    const size_t lhs = (size_t)index;
    const double delta = index - (double)lhs;
    double a = gsl_stats_select(data, 1, n, lhs);
    if (lhs == n - 1)
        return a;
    /* The next order statistic from one pass, not a second select: if more than lhs + 1 values
     * are <= a, it is a itself (a tie); otherwise it is the smallest value above a. */
    size_t at_most = 0;
    double b = INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (data[i] <= a)
            at_most++;
        else if (data[i] < b)
            b = data[i];
    }
    if (at_most > lhs + 1)
        b = a;
    return (1 - delta) * a + delta * b;
}

void dike_summarize(const dike_job_record *jobs, size_t njobs, dike_tenant_record *tenants,
                    size_t ntenants, uint64_t total_gpus, double allocated_gpu_s,
                    double effective_gpu_s, dike_summary *out)
{
    memset(out, 0, sizeof *out);
    out->jobs = njobs;
    out->gpus = total_gpus;
    double *jct = dike_xmalloc((njobs + 1) * sizeof *jct);
    double *rho = dike_xmalloc((njobs + 1) * sizeof *rho);
    double *sum_ideal = dike_xcalloc(ntenants + 1, sizeof *sum_ideal);
    double *sum_jct = dike_xcalloc(ntenants + 1, sizeof *sum_jct);
    double *sum_rho = dike_xcalloc(ntenants + 1, sizeof *sum_rho);
    double first_submit = INFINITY, last_finish = -INFINITY, qd_sum = 0;
    size_t nf = 0, started = 0, unfair = 0;

    for (size_t t = 0; t < ntenants; t++)
        tenants[t].finished = 0;
    for (size_t i = 0; i < njobs; i++) {
        const dike_job_record *j = &jobs[i];
        if (j->submit_time < first_submit)
            first_submit = j->submit_time;
        if (j->start_time >= 0) {
            started++;
            qd_sum += j->queue_delay;
        }
        if (j->finish_time < 0)
            continue;
        if (j->finish_time > last_finish)
            last_finish = j->finish_time;
        jct[nf] = j->jct;
        rho[nf] = j->rho;
        nf++;
        if (j->rho > 1.0)
            unfair++;
        if (j->tenant < ntenants) {
            tenants[j->tenant].finished++;
            sum_ideal[j->tenant] += j->t_ideal;
            sum_jct[j->tenant] += j->jct;
            sum_rho[j->tenant] += j->rho;
        }
    }
    out->finished = nf;
    if (nf > 0) {
        double s = 0, sr = 0;
        for (size_t i = 0; i < nf; i++) {
            s += jct[i];
            sr += rho[i];
        }
        out->avg_jct = s / (double)nf;
        out->mean_rho = sr / (double)nf;
        /* Selection, not a sort: gsl_sort (a heapsort) of 5,000,000 JCTs and rhos took about 3.6 s
         * of a 1,000,000-GPU run's output (docs/performance.md). */
        double max_rho = rho[0];
        for (size_t i = 1; i < nf; i++)
            if (rho[i] > max_rho)
                max_rho = rho[i];
        out->p50_jct = dike_quantile_select(jct, nf, 0.50);
        out->p95_jct = dike_quantile_select(jct, nf, 0.95);
        out->p99_jct = dike_quantile_select(jct, nf, 0.99);
        out->p99_rho = dike_quantile_select(rho, nf, 0.99);
        out->max_rho = max_rho;
        out->unfair_fraction = (double)unfair / (double)nf;
        out->makespan = last_finish - first_submit;
    }
    out->avg_queue_delay = started ? qd_sum / (double)started : 0.0;

    /* Jain over tenants with finished jobs: x_u = sum t_ideal / sum jct (1 = every job ideal). */
    double *x = dike_xmalloc((ntenants + 1) * sizeof *x);
    size_t nx = 0;
    for (size_t t = 0; t < ntenants; t++) {
        dike_tenant_record *tr = &tenants[t];
        uint32_t id = tr->tenant;
        if (id >= ntenants || tr->finished == 0) {
            tr->avg_jct = tr->mean_rho = tr->fairness_ratio = 0;
            continue;
        }
        tr->avg_jct = sum_jct[id] / tr->finished;
        tr->mean_rho = sum_rho[id] / tr->finished;
        tr->fairness_ratio = sum_jct[id] > 0 ? sum_ideal[id] / sum_jct[id] : 0;
        x[nx++] = tr->fairness_ratio;
    }
    out->jain = dike_jain(x, nx);
    out->allocated_gpu_seconds = allocated_gpu_s;
    if (out->makespan > 0 && total_gpus > 0) {
        out->utilization = allocated_gpu_s / ((double)total_gpus * out->makespan);
        out->effective_utilization = effective_gpu_s / ((double)total_gpus * out->makespan);
    }
    for (size_t i = 0; i < njobs; i++) {
        out->preemptions += jobs[i].preemptions;
        out->migrations += jobs[i].migrations;
        out->restarts += jobs[i].restarts;
        out->lost_work += jobs[i].lost_work;
    }
    out->goodput = allocated_gpu_s > 0 ? 1.0 - out->lost_work / allocated_gpu_s : 1.0;
    free(x);
    free(jct);
    free(rho);
    free(sum_ideal);
    free(sum_jct);
    free(sum_rho);
}
