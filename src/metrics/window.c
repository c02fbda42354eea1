/* Metrics over a window of the run (metrics.window): the steady state without warm-up and drain.
 *
 * Which jobs count. A window counts a set of jobs chosen by their arrival, never by what the
 * policy did with them: "jobs:A-B" the jobs whose trace id is in [A, B] (Gavel and Blox measure a
 * steady-state range of job ids), "time:T0-T1" the jobs submitted in [T0, T1). Every policy run on
 * the same workload then counts the same jobs, so their JCT and rho compare. Counting the jobs
 * that *finish* inside a time window would drop, per policy, exactly the jobs it made wait longest
 * (they finish after the window), and make the worst policy look best. A counted job counts with
 * its whole JCT, also when it finishes after the window.
 *
 * Every job metric of the summary is the whole-run definition applied to the counted jobs (by
 * dike_summarize itself). Utilisation is over a time span instead: the GPU-seconds allocated to
 * any job inside the span, / (G x span). The span of "time:T0-T1" is [T0, T1], of "jobs:A-B" the
 * counted jobs' arrivals, [first submit, last submit]: the period they describe. Either is clipped
 * to the run, [0, last finish], so that a window reaching past the end measures no idle time that
 * is not there.
 *
 * Allocated time inside the span comes from /jobs, which records each job's first start, finish and
 * total held time but not the single runs of a preempted job. It is exact for a job that ran once
 * (held exactly [start, finish]) and for one whose [start, finish] lies wholly inside or outside the
 * span; for a preempted or restarted job that straddles a span boundary the held time is spread
 * evenly over [start, finish] and its part counted in apportioned_gpu_seconds, so a reader sees
 * how much of the figure is an estimate (at most the GPU-seconds of the jobs that had started and
 * not finished at one of the two boundaries). */
#include "dike/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Window bounds in seconds are capped like every time of the configuration (config.c). */
#define WINDOW_SECONDS_MAX 1e9

/* The separator of "A-B": the first '-' that is not the sign of an exponent ("1e-3-5"). Bounds are
 * never negative, so a '-' at the start is not a separator either. */
static char *range_dash(char *s)
{
    if (!*s)
        return NULL;
    for (char *p = s + 1; *p; p++)
        if (*p == '-' && p[-1] != 'e' && p[-1] != 'E')
            return p;
    return NULL;
}

static int bad(char *why, size_t n, const char *fmt, const char *arg)
{
    snprintf(why, n, fmt, arg);
    return DIKE_EINVAL;
}

/* Strict whole-string numbers (no blanks, junk, signs, inf/nan, hex); bounds are >= 0. */
static int parse_id(const char *s, int64_t *v)
{
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return -1;
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno == ERANGE || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_seconds(const char *s, double *v)
{
    if (!*s || !strchr("0123456789.", *s) || strspn(s, "0123456789.eE+-") != strlen(s))
        return -1;
    char *end;
    double x = strtod(s, &end);
    if (*end || !isfinite(x) || x < 0)
        return -1;
    *v = x;
    return 0;
}

int dike_window_parse(const char *text, dike_window *w, char *why, size_t n)
{
    memset(w, 0, sizeof *w);
    if (!*text)
        return 0;
    const char *colon = strchr(text, ':');
    size_t klen = colon ? (size_t)(colon - text) : 0;
    bool jobs = colon && klen == 4 && strncmp(text, "jobs", 4) == 0;
    bool time = colon && klen == 4 && strncmp(text, "time", 4) == 0;
    if (!jobs && !time)
        return bad(why, n, "%s", "expected jobs:FIRST-LAST (job ids) or time:T0-T1 (s); empty = the "
                                 "whole run only");
    char buf[128];
    if (strlen(colon + 1) >= sizeof buf)
        return bad(why, n, "%s", "bounds too long");
    snprintf(buf, sizeof buf, "%s", colon + 1);
    char *dash = range_dash(buf);
    if (!dash)
        return bad(why, n, "expected %s (two bounds joined by '-')",
                   jobs ? "jobs:FIRST-LAST" : "time:T0-T1");
    *dash = '\0';
    const char *lo = buf, *hi = dash + 1;
    if (jobs) {
        if (parse_id(lo, &w->first_id) || parse_id(hi, &w->last_id))
            return bad(why, n, "%s", "job ids must be integers >= 0");
        if (w->last_id < w->first_id)
            return bad(why, n, "%s", "the last job id is before the first");
        w->kind = DIKE_WINDOW_JOBS;
        return 0;
    }
    if (parse_seconds(lo, &w->t0) || parse_seconds(hi, &w->t1))
        return bad(why, n, "%s", "times must be finite numbers >= 0 (s)");
    if (w->t1 > WINDOW_SECONDS_MAX)
        return bad(why, n, "%s", "times must be at most 1e9 s");
    if (w->t1 <= w->t0)
        return bad(why, n, "%s", "T1 must be after T0 (the window is [T0, T1))");
    w->kind = DIKE_WINDOW_TIME;
    return 0;
}

static bool counted(const dike_window *w, const dike_job_record *j)
{
    if (w->kind == DIKE_WINDOW_JOBS)
        return j->job_id >= w->first_id && j->job_id <= w->last_id;
    return j->submit_time >= w->t0 && j->submit_time < w->t1;
}

/* GPU-seconds job @p j held inside [a, b], and (in *useful) the same for its useful work
 * (num_gpus x duration of a finished job, the rate-weighted GPU-seconds it needed); *estimated
 * is set when the value is apportioned rather than known. @p run_end bounds the runs of a job
 * that never finished. */
static double held_inside(const dike_job_record *j, double a, double b, double run_end,
                          double *useful, bool *estimated)
{
    *useful = 0;
    *estimated = false;
    if (j->start_time < 0 || j->run_time <= 0)
        return 0;
    double s = j->start_time, e = j->finish_time >= 0 ? j->finish_time : fmax(run_end, s + j->run_time);
    double held = j->run_time * j->num_gpus;
    double work = j->finish_time >= 0 ? j->duration * j->num_gpus : 0;
    double ov = fmin(e, b) - fmax(s, a);
    if (ov <= 0 || e <= s)
        return 0;
    if (s >= a && e <= b) {
        *useful = work;
        return held;
    }
    /* One run, at one placement: held exactly over [s, e] at a constant rate. */
    bool one_run = j->preemptions == 0 && j->restarts == 0 && j->finish_time >= 0;
    *estimated = !one_run;
    *useful = work * ov / (e - s);
    return one_run ? (double)j->num_gpus * ov : held * ov / (e - s);
}

void dike_summarize_window(const dike_job_record *jobs, size_t njobs,
                           const dike_tenant_record *tenants, size_t ntenants, uint64_t total_gpus,
                           const dike_window *w, dike_summary *out, dike_window_info *info,
                           dike_tenant_record *win_tenants)
{
    dike_job_record *in = dike_xmalloc((njobs + 1) * sizeof *in);
    dike_tenant_record *tr = dike_xcalloc(ntenants + 1, sizeof *tr);
    size_t nin = 0;
    double counted_gpu_s = 0, first_submit = INFINITY, last_submit = -INFINITY, run_end = 0;
    for (size_t t = 0; t < ntenants; t++) {
        tr[t] = tenants[t];
        tr[t].jobs = 0;
        tr[t].gpu_seconds = tr[t].avg_gpus = tr[t].gpu_share = 0;
        tr[t].entitlement = tr[t].entitled_share = 0; /* not known per time span */
    }
    for (size_t i = 0; i < njobs; i++) {
        if (jobs[i].finish_time > run_end)
            run_end = jobs[i].finish_time;
        if (!counted(w, &jobs[i]))
            continue;
        in[nin++] = jobs[i];
        counted_gpu_s += jobs[i].run_time * jobs[i].num_gpus;
        first_submit = fmin(first_submit, jobs[i].submit_time);
        last_submit = fmax(last_submit, jobs[i].submit_time);
        if (jobs[i].tenant < ntenants)
            tr[jobs[i].tenant].jobs++;
    }
    /* The counted jobs' allocation gives goodput (lost work of the same jobs over their GPU-s). */
    dike_summarize(in, nin, tr, ntenants, total_gpus, counted_gpu_s, 0, out);

    double a, b;
    if (w->kind == DIKE_WINDOW_TIME) {
        a = w->t0;
        b = w->t1;
    } else {
        a = nin ? first_submit : 0;
        b = nin ? last_submit : 0;
    }
    a = fmax(a, 0);
    b = fmin(b, run_end);
    if (b < a)
        b = a;
    memset(info, 0, sizeof *info);
    info->span_start = a;
    info->span_end = b;
    double alloc = 0, useful = 0, tsum = 0;
    for (size_t i = 0; i < njobs && b > a; i++) {
        double u;
        bool est;
        double h = held_inside(&jobs[i], a, b, run_end, &u, &est);
        alloc += h;
        useful += u;
        if (est)
            info->apportioned_gpu_seconds += h;
        if (jobs[i].tenant < ntenants)
            tr[jobs[i].tenant].gpu_seconds += h;
    }
    double span = b - a;
    out->allocated_gpu_seconds = alloc;
    out->utilization = span > 0 && total_gpus ? alloc / ((double)total_gpus * span) : 0;
    out->effective_utilization = span > 0 && total_gpus ? useful / ((double)total_gpus * span) : 0;
    for (size_t t = 0; t < ntenants; t++)
        tsum += tr[t].gpu_seconds;
    for (size_t t = 0; t < ntenants; t++) {
        tr[t].avg_gpus = span > 0 ? tr[t].gpu_seconds / span : 0;
        tr[t].gpu_share = tsum > 0 ? tr[t].gpu_seconds / tsum : 0;
    }
    if (win_tenants)
        memcpy(win_tenants, tr, ntenants * sizeof *tr);
    free(tr);
    free(in);
}
