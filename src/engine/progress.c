/* Progress reporting. */
#include "engine/progress.h"

#include <mpi.h>
#include <unistd.h>

void dike_progress_init(dike_progress *p, FILE *out, double interval_s, dike_time last_submit,
                        size_t total_jobs)
{
    p->out = interval_s > 0 ? out : NULL;
    p->tty = p->out && isatty(fileno(p->out));
    p->interval = p->tty ? 0.5 : interval_s;
    p->start = MPI_Wtime();
    p->next = p->start + p->interval;
    p->last_submit = last_submit > 0 ? last_submit : 1;
    p->total = total_jobs;
    p->printed = 0;
}

static void print(dike_progress *p, dike_time now, size_t finished, uint64_t events, double t)
{
    double el = t - p->start;
    double pct = 100.0 * (double)now / (double)p->last_submit;
    if (pct > 100)
        pct = 100;
    double eps = el > 0 ? (double)events / el : 0;
    char eta[32] = "?";
    if (finished > 0 && finished < p->total)
        snprintf(eta, sizeof eta, "%.0f s", el * (double)(p->total - finished) / (double)finished);
    else if (finished == p->total)
        snprintf(eta, sizeof eta, "done");
    fprintf(p->out, "%sdike-emu: sim %.0f s (%.0f%% of submits), jobs %zu/%zu finished, %.3g events/s, %.1f s elapsed, ETA %s%s",
            p->tty ? "\r" : "", dike_time_to_s(now), pct, finished, p->total, eps, el, eta,
            p->tty ? "\033[K" : "\n");
    fflush(p->out);
    p->printed = 1;
}

void dike_progress_update(dike_progress *p, dike_time now, size_t finished, uint64_t events)
{
    if (!p->out)
        return;
    double t = MPI_Wtime();
    if (t < p->next)
        return;
    p->next = t + p->interval;
    print(p, now, finished, events, t);
}

void dike_progress_done(dike_progress *p, dike_time now, size_t finished, uint64_t events)
{
    if (!p->out || !p->printed)
        return; /* short runs print nothing */
    print(p, now, finished, events, MPI_Wtime());
    if (p->tty)
        fputc('\n', p->out);
}
