/* What the scheduler knows of job lengths (scheduler.duration_knowledge).
 *
 * The true duration drives the emulation (a job finishes when its work is done) and every metric;
 * policies see only the estimates below. Three modes:
 *   oracle  the true duration (the baselines' textbook assumption).
 *   noisy   true duration x exp(sigma Z), Z standard normal, drawn once per job at start-up from the
 *           stream (run.seed, job index, DIKE_STREAM_DURATION_ERROR): the same estimate whatever
 *           the policy or the rank count, and only rank 0 draws it.
 *   none    what a real scheduler has: the run times of jobs that have finished. The estimate of a
 *           job is the mean duration of its tenant's finished jobs, else of all finished jobs, else
 *           a prior of one hour (DIKE_DURATION_PRIOR_US). Observed run times are measured in
 *           reference work (the spec duration), so a job's slow placement does not lengthen the
 *           history.
 * For any mode but oracle, remaining work is "estimate - work done", and a job that has done its
 * estimate is expected to run as long again (remaining = work done), floored at 1 s.
 *
 * The history is kept as exact integer sums of microseconds, so the mean does not depend on the
 * order in which jobs finished and can be rebuilt from the jobs' states after a checkpoint. */
#include "engine/coord.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

#include "base/idlist.h"
#include "dike/rng.h"

int dike_duration_knowledge_parse(const char *name)
{
    static const char *const names[] = {"oracle", "noisy", "none"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* ---- which tenants' versions moved (dike_sched_est_moved) ----
 * A tenant's version moves at its own steps (a finish of its own under `none`, a stop report) and,
 * while it has no finished job, at every finish. The own steps keep the tenants in a list by their
 * last step, the latest first, so the tenants stepped since a mark are a prefix of it; the tenants
 * without a finished job that a policy can hold jobs of (one was submitted) are kept in a set. */

static void moved_init(dike_sched *s)
{
    uint32_t nt = s->w->ntenants;
    s->est_bumps = 0;
    s->tenant_bump = dike_xcalloc(nt + 1, sizeof *s->tenant_bump);
    s->bump_next = dike_xcalloc(nt + 1, sizeof *s->bump_next);
    s->bump_prev = dike_xcalloc(nt + 1, sizeof *s->bump_prev);
    s->bump_head = -1;
    s->nofin = dike_xcalloc(nt + 1, sizeof *s->nofin);
    s->nofin_pos = dike_xcalloc(nt + 1, sizeof *s->nofin_pos);
    s->nnofin = 0;
    for (uint32_t t = 0; t < nt; t++)
        s->nofin_pos[t] = UINT32_MAX;
}

/* Tenant @p t's version moved by a step of its own: it goes to the head of the list. */
static void bump(dike_sched *s, uint32_t t)
{
    s->tenant_est_ver[t]++;
    if (s->tenant_bump[t])
        dike_idlist_unlink(&s->bump_head, s->bump_next, s->bump_prev, (int32_t)t);
    s->tenant_bump[t] = ++s->est_bumps;
    dike_idlist_push(&s->bump_head, s->bump_next, s->bump_prev, (int32_t)t);
}

static void nofin_add(dike_sched *s, uint32_t t)
{
    if (s->nofin_pos[t] != UINT32_MAX)
        return;
    s->nofin_pos[t] = s->nnofin;
    s->nofin[s->nnofin++] = t;
}

static void nofin_del(dike_sched *s, uint32_t t)
{
    uint32_t k = s->nofin_pos[t];
    if (k == UINT32_MAX)
        return;
    uint32_t last = s->nofin[--s->nnofin];
    s->nofin[k] = last;
    s->nofin_pos[last] = k;
    s->nofin_pos[t] = UINT32_MAX;
}

int dike_est_init(dike_sched *s, dike_err *e)
{
    const dike_config *cfg = s->cfg;
    s->dur_knowledge = dike_duration_knowledge_parse(cfg->scheduler_duration_knowledge);
    if (s->dur_knowledge < 0)
        return dike_err_set(e, DIKE_EINVAL, "[scheduler] duration_knowledge: '%s' must be oracle, noisy or none",
                            cfg->scheduler_duration_knowledge);
    double sigma = cfg->scheduler_duration_error_sigma;
    if (!(sigma >= 0) || !isfinite(sigma))
        return dike_err_set(e, DIKE_EINVAL, "[scheduler] duration_error_sigma: must be a finite value >= 0");
    s->tenant_done_us = dike_xcalloc(s->w->ntenants + 1, sizeof *s->tenant_done_us);
    s->tenant_done_n = dike_xcalloc(s->w->ntenants + 1, sizeof *s->tenant_done_n);
    s->tenant_est_ver = dike_xcalloc(s->w->ntenants + 1, sizeof *s->tenant_est_ver);
    s->tenant_first_all = dike_xcalloc(s->w->ntenants + 1, sizeof *s->tenant_first_all);
    s->all_done_us = 0;
    s->all_done_n = 0;
    s->est_epoch = 0;
    moved_init(s);
    gsl_rng *g = s->dur_knowledge == DIKE_DURATION_NOISY
                     ? dike_rng_gsl_alloc((uint64_t)cfg->run_seed, 0, DIKE_STREAM_DURATION_ERROR)
                     : NULL;
    for (size_t i = 0; i < s->w->njobs; i++) {
        dike_job *j = &s->jobs[i];
        switch (s->dur_knowledge) {
        case DIKE_DURATION_ORACLE:
            j->est_duration = (double)j->spec->duration;
            break;
        case DIKE_DURATION_NOISY:
            dike_rng_gsl_rekey(g, (uint64_t)cfg->run_seed, j->idx, DIKE_STREAM_DURATION_ERROR);
            j->est_duration = (double)j->spec->duration * exp(sigma * gsl_ran_gaussian(g, 1.0));
            break;
        default:
            j->est_duration = 0;
        }
    }
    if (g)
        gsl_rng_free(g);
    return 0;
}

void dike_est_free(dike_sched *s)
{
    free(s->tenant_done_us);
    free(s->tenant_done_n);
    free(s->tenant_est_ver);
    free(s->tenant_first_all);
    free(s->tenant_bump);
    free(s->bump_next);
    free(s->bump_prev);
    free(s->nofin);
    free(s->nofin_pos);
    s->tenant_bump = NULL;
    s->bump_next = s->bump_prev = NULL;
    s->nofin = s->nofin_pos = NULL;
    s->tenant_done_us = NULL;
    s->tenant_done_n = NULL;
    s->tenant_est_ver = NULL;
    s->tenant_first_all = NULL;
}

static void add_done(dike_sched *s, const dike_job *j)
{
    int64_t d = j->spec->duration;
    uint32_t t = j->spec->tenant;
    if (d > INT64_MAX - s->all_done_us)
        dike_fatal("duration_knowledge = none: the finished jobs' durations add up to more than "
                   "%lld us", (long long)INT64_MAX);
    s->tenant_done_us[t] += d;
    s->tenant_done_n[t]++;
    s->all_done_us += d;
    s->all_done_n++;
    if (s->tenant_done_n[t] == 1)
        s->tenant_first_all[t] = s->all_done_n;
    nofin_del(s, t);
    bump(s, t);
}

void dike_est_on_arrival(dike_sched *s, const dike_job *j)
{
    if (s->dur_knowledge == DIKE_DURATION_NONE && !s->tenant_done_n[j->spec->tenant])
        nofin_add(s, j->spec->tenant);
}

void dike_est_on_finish(dike_sched *s, const dike_job *j)
{
    if (s->dur_knowledge != DIKE_DURATION_NONE)
        return;
    add_done(s, j);
    s->est_epoch++;
}

void dike_est_on_stop(dike_sched *s, const dike_job *j)
{
    bump(s, j->spec->tenant);
    s->est_epoch++;
}

void dike_est_rebuild(dike_sched *s)
{
    if (s->dur_knowledge != DIKE_DURATION_NONE)
        return;
    while (s->nnofin)
        nofin_del(s, s->nofin[s->nnofin - 1]);
    memset(s->tenant_done_us, 0, s->w->ntenants * sizeof *s->tenant_done_us);
    memset(s->tenant_done_n, 0, s->w->ntenants * sizeof *s->tenant_done_n);
    s->all_done_us = 0;
    s->all_done_n = 0;
    for (size_t i = 0; i < s->w->njobs; i++)
        if (s->jobs[i].state == DIKE_JOB_DONE)
            add_done(s, &s->jobs[i]);
    for (size_t i = 0; i < s->w->njobs; i++)
        if (s->jobs[i].state != DIKE_JOB_FUTURE)
            dike_est_on_arrival(s, &s->jobs[i]);
    s->est_epoch = s->all_done_n;
}

/* ---- the API policies use ---- */

int dike_sched_duration_knowledge(const dike_sched *s) { return s->dur_knowledge; }
uint64_t dike_sched_est_epoch(const dike_sched *s) { return s->est_epoch; }

uint64_t dike_sched_est_version(const dike_sched *s, uint32_t tenant)
{
    /* Its own events, plus, while it has no finished job (none), every finish: it grows by at
     * least one at each, and never falls (at its first finish the second term stops at the
     * count that includes it). */
    uint64_t all = s->dur_knowledge != DIKE_DURATION_NONE ? 0
                   : s->tenant_done_n[tenant]            ? s->tenant_first_all[tenant]
                                                         : s->all_done_n;
    return s->tenant_est_ver[tenant] + all;
}

dike_est_mark dike_sched_est_mark(const dike_sched *s)
{
    return (dike_est_mark){s->est_bumps, s->all_done_n};
}

uint32_t dike_sched_est_moved(const dike_sched *s, dike_est_mark since, uint32_t *out, uint64_t *seen)
{
    /* the listed tenants' bits, then read in ascending order: O(listed + tenants / 64) */
    uint32_t n = 0, nt = s->w->ntenants;
    for (int32_t i = s->bump_head; i >= 0 && s->tenant_bump[i] > since.bumps; i = s->bump_next[i]) {
        seen[i >> 6] |= UINT64_C(1) << (i & 63);
        n++;
    }
    if (s->dur_knowledge == DIKE_DURATION_NONE && s->all_done_n != since.all)
        for (uint32_t k = 0; k < s->nnofin; k++) {
            uint32_t t = s->nofin[k];
            n += !(seen[t >> 6] >> (t & 63) & 1);
            seen[t >> 6] |= UINT64_C(1) << (t & 63);
        }
    if (!n)
        return 0;
    uint32_t m = 0;
    for (uint32_t wd = 0; wd < (nt + 63) / 64 && m < n; wd++)
        for (uint64_t b = seen[wd]; b; b &= b - 1)
            out[m++] = wd * 64 + (uint32_t)__builtin_ctzll(b);
    for (uint32_t k = 0; k < m; k++)
        seen[out[k] >> 6] = 0;
    return m;
}

double dike_sched_est_duration(const dike_sched *s, const dike_job *j)
{
    if (s->dur_knowledge != DIKE_DURATION_NONE)
        return j->est_duration;
    uint32_t t = j->spec->tenant;
    if (s->tenant_done_n[t])
        return (double)s->tenant_done_us[t] / s->tenant_done_n[t];
    if (s->all_done_n)
        return (double)s->all_done_us / (double)s->all_done_n;
    return DIKE_DURATION_PRIOR_US;
}

/* Reference work @p j has done, us: known to any scheduler (attained service in reference units). */
double dike_sched_done_work(const dike_sched *s, const dike_job *j)
{
    return (double)j->spec->duration - dike_sched_remaining(s, j);
}

double dike_sched_est_total(const dike_sched *s, const dike_job *j)
{
    double est = dike_sched_est_duration(s, j);
    if (s->dur_knowledge == DIKE_DURATION_ORACLE)
        return est;
    double done = dike_sched_done_work(s, j);
    return done >= est ? 2 * done : est;
}

double dike_sched_est_remaining(const dike_sched *s, const dike_job *j)
{
    double left = dike_sched_remaining(s, j);
    if (s->dur_knowledge == DIKE_DURATION_ORACLE)
        return left;
    /* Work done is known to any scheduler (attained service in reference units); the rest is a
     * guess. A job past its estimate is expected to run as long again as it already has. */
    double done = dike_sched_done_work(s, j);
    double est = dike_sched_est_duration(s, j);
    double rem = done >= est ? done : est - done;
    return rem > DIKE_EST_REMAINING_FLOOR_US ? rem : DIKE_EST_REMAINING_FLOOR_US;
}

/* A running job's remaining work for victim tests (srtf, dike). dike_sched_est_remaining
 * expects a job that outlived its estimate E to run as long again as it has: that grows while the
 * job runs, so two long jobs of one tenant would trade places at nearly every decision, each swap
 * for one restore cost (measured: 126,635 preemptions for 3,829 jobs on experiments/default.ini
 * under `none`). Here the revision goes in doublings instead: the job is expected to end at the
 * first of E, 2E, 4E, ... that it has not reached. Between doublings the estimate only falls while
 * the job runs, as under the oracle; it is never above dike_sched_est_remaining, and equal to it
 * until the job outlives E. dike_sched_est_gap_running is that remaining work before the floor:
 * srtf's search bounds need to know when it runs out. */
double dike_sched_est_judged(const dike_sched *s, const dike_job *r)
{
    double est = dike_sched_est_duration(s, r);
    return est >= DIKE_EST_REMAINING_FLOOR_US ? est : DIKE_EST_REMAINING_FLOOR_US;
}

double dike_sched_est_scale(double est, double done)
{
    double end = est;
    while (end <= done)
        end *= 2;
    return end / est; /* a power of two, exactly */
}

double dike_sched_est_gap_running(const dike_sched *s, const dike_job *r)
{
    double est = dike_sched_est_judged(s, r), done = dike_sched_done_work(s, r);
    return est * dike_sched_est_scale(est, done) - done;
}

dike_time dike_sched_est_gap_at(const dike_sched *s, const dike_job *r, double left_us)
{
    if (!(r->rate > 0))
        return INT64_MAX;
    dike_time base = r->progress_start > s->now ? r->progress_start : s->now;
    double dt = (dike_sched_est_gap_running(s, r) - left_us) / r->rate;
    if (!(dt < 1e15))
        return INT64_MAX;
    return dt > 0 ? base + (dike_time)floor(dt) : base;
}

double dike_sched_est_remaining_running(const dike_sched *s, const dike_job *r)
{
    double rem = dike_sched_est_gap_running(s, r);
    return rem > DIKE_EST_REMAINING_FLOOR_US ? rem : DIKE_EST_REMAINING_FLOOR_US;
}

double dike_sched_est_total_running(const dike_sched *s, const dike_job *r)
{
    if (s->dur_knowledge == DIKE_DURATION_ORACLE)
        return r->est_duration;
    return dike_sched_done_work(s, r) + dike_sched_est_remaining_running(s, r);
}
