/* Progress reporting (progress.h says what and why). */
#include "engine/progress.h"

#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <mpi.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Wall seconds between two samples of the rate's history. */
#define PROGRESS_SAMPLE_S 1.0
/* Seconds between rewrites of a live line (at most; output.progress_interval_s if shorter). */
#define PROGRESS_LIVE_S 0.5

static dike_progress_mode default_mode = DIKE_PROGRESS_AUTO;

void dike_progress_set_mode(dike_progress_mode m)
{
    default_mode = m;
}

int dike_progress_mode_parse(const char *s)
{
    static const char *const names[] = {"auto", "live", "log", "off"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* The controlling terminal, for a live line when stderr is not one: under mpirun stderr is a pipe
 * to mpirun, but the ranks it starts keep its session and terminal. In a batch job (Slurm) there
 * is none and the open fails. */
static FILE *open_tty(void)
{
    int fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f)
        close(fd);
    return f;
}

void dike_progress_init(dike_progress *p, FILE *out, double interval_s, dike_time last_submit,
                        size_t total_jobs)
{
    memset(p, 0, sizeof *p);
    dike_progress_mode m = default_mode;
    p->out = interval_s > 0 && m != DIKE_PROGRESS_OFF ? out : NULL;
    if (p->out && m != DIKE_PROGRESS_LOG) {
        /* Auto takes the terminal only when stderr is a pipe or socket (mpirun, srun, `| tee`);
         * stderr redirected to a file asked for a log. */
        struct stat sb;
        bool piped = fstat(fileno(p->out), &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode));
        if (isatty(fileno(p->out))) {
            p->tty = 1;
        } else if (m == DIKE_PROGRESS_LIVE || piped) {
            FILE *t = open_tty();
            if (t) {
                p->out = t;
                p->own_out = 1;
                p->tty = 1;
            } else {
                p->tty = m == DIKE_PROGRESS_LIVE; /* asked for: '\r' lines on stderr anyway */
            }
        }
    }
    p->interval = p->tty && interval_s > PROGRESS_LIVE_S ? PROGRESS_LIVE_S : interval_s;
    p->start = MPI_Wtime();
    p->next = p->start + p->interval;
    p->last_submit = last_submit > 0 ? last_submit : 1;
    p->total = total_jobs;
    p->rate = -1;
}

/* Progress in [0, 1]: the mean of the submissions' share of simulated time and the finished
 * jobs' share; both are 1 exactly when the run ends. */
static double fraction(const dike_progress *p, dike_time now, size_t finished)
{
    double sim = (double)now / (double)p->last_submit;
    double jobs = p->total ? (double)finished / (double)p->total : 1.0;
    return 0.5 * (sim < 1 ? sim : 1) + 0.5 * (jobs < 1 ? jobs : 1);
}

double dike_progress_observe(dike_progress *p, double wall, dike_time now, size_t finished)
{
    double f = fraction(p, now, finished);
    int newest = (p->ring_head + DIKE_PROGRESS_RING - 1) % DIKE_PROGRESS_RING;
    if (!p->observed) {
        p->observed = 1;
        p->base_wall = wall;
    }
    /* The oldest sample inside the window (else the newest): the rate is the progress since. */
    int from = -1;
    for (int k = p->ring_n; k-- > 0;) {
        int i = (p->ring_head + DIKE_PROGRESS_RING - 1 - k) % DIKE_PROGRESS_RING;
        if (wall - p->ring_wall[i] <= DIKE_PROGRESS_WINDOW_S) {
            from = i;
            break;
        }
    }
    if (from < 0 && p->ring_n)
        from = newest;
    if (from >= 0 && wall > p->ring_wall[from])
        p->rate = (f - p->ring_frac[from]) / (wall - p->ring_wall[from]);
    if (!p->ring_n || wall - p->ring_wall[newest] >= PROGRESS_SAMPLE_S) {
        p->ring_wall[p->ring_head] = wall;
        p->ring_frac[p->ring_head] = f;
        p->ring_head = (p->ring_head + 1) % DIKE_PROGRESS_RING;
        if (p->ring_n < DIKE_PROGRESS_RING)
            p->ring_n++;
    }
    if (f >= 1)
        return 0;
    return p->rate > 0 ? (1 - f) / p->rate : -1;
}

/* "40 s", "3 min 20 s", "2 h 05 min". */
static void fmt_duration(char *buf, size_t n, double s)
{
    if (s < 60)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 3600)
        snprintf(buf, n, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else if (s < 1e8)
        snprintf(buf, n, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
    else
        snprintf(buf, n, "years");
}

static void print(dike_progress *p, dike_time now, size_t finished, uint64_t events, double t, double eta)
{
    double el = t - p->start, since = t - p->base_wall;
    double pct = 100.0 * (double)now / (double)p->last_submit;
    if (pct > 100)
        pct = 100;
    double eps = p->observed && since > 0 ? (double)(events - p->base_events) / since : 0;
    char when[32], sim[48], etas[32] = "?";
    time_t wt = time(NULL);
    struct tm tm;
    gmtime_r(&wt, &tm);
    strftime(when, sizeof when, p->tty ? "%H:%M:%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
    long long sec = (long long)dike_time_to_s(now);
    snprintf(sim, sizeof sim, "%lld d %02lld:%02lld:%02lld", sec / 86400, sec / 3600 % 24, sec / 60 % 60, sec % 60);
    if (finished >= p->total)
        snprintf(etas, sizeof etas, "done");
    else if (eta >= 0)
        fmt_duration(etas, sizeof etas, eta);
    fprintf(p->out, "%sdike-emu: %s sim %s (%.0f%% of submits), jobs %zu/%zu finished, %.3g events/s, %.1f s elapsed, ETA %s%s",
            p->tty ? "\r" : "", when, sim, pct, finished, p->total, eps, el, etas, p->tty ? "\033[K" : "\n");
    fflush(p->out);
    p->printed = 1;
}

void dike_progress_update(dike_progress *p, dike_time now, size_t finished, uint64_t events)
{
    if (!p->out)
        return;
    double t = MPI_Wtime();
    if (!p->observed)
        p->base_events = events;
    double eta = dike_progress_observe(p, t, now, finished);
    if (t < p->next)
        return;
    p->next = t + p->interval;
    print(p, now, finished, events, t, eta);
}

void dike_progress_done(dike_progress *p, dike_time now, size_t finished, uint64_t events)
{
    if (p->out && p->printed) { /* short runs print nothing */
        print(p, now, finished, events, MPI_Wtime(), 0);
        if (p->tty)
            fputc('\n', p->out);
        fflush(p->out);
    }
    if (p->own_out)
        fclose(p->out);
    p->out = NULL;
    p->own_out = 0;
}
