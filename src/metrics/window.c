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
 * span. A preempted or restarted job that straddles a span boundary is known only within bounds
 * (all its held time inside, or only what cannot fit outside). Spreading its held time evenly over
 * [start, finish] would be biased: a policy that preempts long jobs while the cluster is busy runs
 * them in the drain. So these jobs together get what the sampled busy GPUs of /timeseries leave
 * beside the exact part, clamped to their bounds (the even spread only when there are no
 * samples), and that amount is apportioned_gpu_seconds: a reader sees how much of the figure
 * rests on the samples (0 = exact). */
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

/* One job's GPU-seconds inside [a, b]. Known exactly (`exact`), or (a preempted or restarted job
 * that straddles a or b) only within [lo, hi], with `share` = its held GPU-seconds spread evenly
 * over [start, finish]. `useful` is the same for its useful work: num_gpus x duration of a
 * finished job, the rate-weighted GPU-seconds it needed (exact, or spread like `share`). */
typedef struct inside {
    bool known;
    double exact, lo, hi, share; /**< GPU*s */
    double useful;               /**< GPU*s of useful work (exact, or spread) */
} inside;

/* @p run_end bounds the runs of a job that never finished. */
static inside held_inside(const dike_job_record *j, double a, double b, double run_end)
{
    inside r = {.known = true};
    if (j->start_time < 0 || j->run_time <= 0)
        return r;
    double s = j->start_time, e = j->finish_time >= 0 ? j->finish_time : fmax(run_end, s + j->run_time);
    double g = j->num_gpus, held = j->run_time * g;
    double work = j->finish_time >= 0 ? j->duration * g : 0;
    double ov = fmin(e, b) - fmax(s, a);
    if (ov <= 0 || e <= s)
        return r;
    if (s >= a && e <= b) { /* every run inside */
        r.exact = held;
        r.useful = work;
        return r;
    }
    r.useful = work * ov / (e - s);
    if (j->preemptions == 0 && j->restarts == 0 && j->finish_time >= 0) {
        r.exact = g * ov; /* one run at one placement: held exactly over [s, e] at a constant rate */
        return r;
    }
    /* It held its GPUs for run_time somewhere in [s, e]: inside at most all of it or g x ov, at
     * least what cannot fit in the (e - s - ov) seconds outside. */
    r.known = false;
    r.lo = fmax(0, held - g * (e - s - ov));
    r.hi = fmin(held, g * ov);
    r.share = held * ov / (e - s);
    return r;
}

/* Busy GPU-seconds inside [a, b] from /timeseries: a sample at t_k holds the state just before
 * t_k (the engine samples before the events at t_k), so it stands for [t_(k-1), t_k). Exact
 * between events; each event inside a sampling interval shifts it by at most its GPUs x the
 * interval. -1 without at least two samples. */
static double series_inside(const dike_timeseries *ts, double a, double b)
{
    if (!ts || ts->n < 2)
        return -1;
    double sum = 0;
    for (size_t k = 1; k < ts->n; k++) {
        double ov = fmin(ts->time[k], b) - fmax(ts->time[k - 1], a);
        if (ov > 0)
            sum += ts->busy_gpus[k] * ov;
    }
    return sum;
}

void dike_summarize_window(const dike_job_record *jobs, size_t njobs,
                           const dike_tenant_record *tenants, size_t ntenants, uint64_t total_gpus,
                           const dike_timeseries *ts, const dike_window *w, dike_summary *out,
                           dike_window_info *info, dike_tenant_record *win_tenants)
{
    dike_job_record *in = dike_xmalloc((njobs + 1) * sizeof *in);
    dike_tenant_record *tr = dike_xcalloc(ntenants + 1, sizeof *tr);
    double *tshare = dike_xcalloc(ntenants + 1, sizeof *tshare);
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

    /* Exact part, and the bounds and even-spread shares of the jobs that are not known. */
    double exact = 0, lo = 0, hi = 0, share = 0, useful = 0, useful_share = 0;
    bool unknown = false;
    for (size_t i = 0; i < njobs && b > a; i++) {
        inside x = held_inside(&jobs[i], a, b, run_end);
        uint32_t t = jobs[i].tenant < ntenants ? jobs[i].tenant : (uint32_t)ntenants;
        if (x.known) {
            exact += x.exact;
            useful += x.useful;
            tr[t].gpu_seconds += x.exact;
            continue;
        }
        unknown = true;
        lo += x.lo;
        hi += x.hi;
        share += x.share;
        useful_share += x.useful;
        tshare[t] += x.share;
    }
    /* The jobs not known exactly get what the sampled busy GPUs leave beside the exact part, kept
     * within their bounds; without samples, their even spread. It is divided among them (and their
     * useful work scaled) in proportion to their spread shares. */
    double rest = share;
    if (unknown) {
        double busy = series_inside(ts, a, b);
        if (busy >= 0)
            rest = fmin(fmax(busy - exact, lo), hi);
    }
    double f = share > 0 ? rest / share : 0;
    info->apportioned_gpu_seconds = rest;
    for (size_t t = 0; t < ntenants; t++)
        tr[t].gpu_seconds += f * tshare[t];
    double alloc = exact + rest, span = b - a, tsum = 0;
    useful += f * useful_share;
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
    free(tshare);
    free(tr);
    free(in);
}
