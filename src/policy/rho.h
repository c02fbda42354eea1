/* Estimated finish-time fairness (internal): T_ideal_est, shared by themis and dike, and themis's
 * rho_hat. */
#ifndef DIKE_POLICY_RHO_H
#define DIKE_POLICY_RHO_H

#include "dike/sched.h"

/** T_ideal_est, s, of job @p j expected to need @p total_us of reference work, with @p n jobs in
 *  the system: total_us x max(1, num_gpus x n / G), G the GPUs that are up. themis passes the jobs
 *  in the system now, dike the time-average since the job's submission (dike_sched_navg). */
static inline double dike_ideal_est_s(const dike_sched *s, const dike_job *j, double total_us, double n)
{
    double share = (double)j->spec->num_gpus * n / (double)dike_sched_gpus_up(s);
    return total_us / 1e6 * (share > 1 ? share : 1);
}

/** rho_hat of @p j at placement rate @p rate (> 0), the arithmetic of dike_rho_hat (below), for a
 *  caller that knows the rate already (policy/rhoindex.c). T_ideal_est uses dike_sched_est_total
 *  (the estimate, revised once outlived): with a fixed estimate a job that outlived it would look
 *  ever more unfairly treated (elapsed time over a too small T_ideal) and be favoured for it;
 *  under `none`, Themis then served long jobs first (average JCT x5 on a 10,000-job load-1.2
 *  synthetic run, docs/policies.md). */
static inline double dike_rho_hat_at(dike_sched *s, const dike_job *j, double rate)
{
    double now = dike_time_to_s(dike_sched_now(s));
    double rem = dike_sched_est_remaining(s, j) / 1e6 / rate;
    double ideal = dike_ideal_est_s(s, j, dike_sched_est_total(s, j), (double)dike_sched_active(s));
    return (now - dike_time_to_s(j->spec->submit) + rem) / ideal;
}

/** rho_hat = (now - submit + remaining work / rate) / T_ideal_est, with
 *  T_ideal_est = duration x max(1, num_gpus x N / G): N the jobs in the system now (the estimate of
 *  SPEC §6's N_avg available at decision time), G the GPUs that are up. Remaining work and duration
 *  are what the scheduler knows (dike_sched_est_remaining, dike_sched_est_total; exact under
 *  scheduler.duration_knowledge = oracle); the metrics always use the true duration. The rate is the one the job
 *  has (running) or would get from the configured placement now (queued); a queued job that does
 *  not fit now is estimated at rate 1 (its best placement). @p rate_out (may be NULL) gets it. */
static inline double dike_rho_hat(dike_sched *s, const dike_job *j, double *rate_out)
{
    double rate = dike_sched_rate_now(s, j);
    if (rate <= 0)
        rate = 1.0;
    if (rate_out)
        *rate_out = rate;
    return dike_rho_hat_at(s, j, rate);
}

/** themis's ranking key of a job with rho_hat @p rho (smaller first): -rho in the group that goes
 *  first (tenants behind, or all when every tenant is), 1/rho in the other, so that the second
 *  group comes after the first and each has the worse rho first, exactly (until 2026-12-05 the
 *  second group was keyed 1e15 - rho, which rounds rho to 1/8). rho > 0 for every active job. */
static inline double dike_rho_key(double rho, int first)
{
    return first ? 0.0 - rho : 1.0 / rho;
}

#endif
