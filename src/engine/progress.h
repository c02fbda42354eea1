/* Progress of a long run (internal), printed by rank 0 only.
 *
 * Two forms. A live line, rewritten in place about twice a second, on the user's terminal: stderr
 * when it is one, else, when stderr is a pipe or socket, the controlling terminal /dev/tty (under
 * mpirun stderr is a pipe to mpirun, but the ranks keep mpirun's terminal; a batch job has none).
 * Log lines, one every output.progress_interval_s wall seconds on stderr, for Slurm logs and files. Each shows the UTC time, the simulated time in
 * days and hours, how far through the submissions it is, jobs finished / total, events per second
 * and an ETA.
 *
 * The ETA divides the work left by a moving rate of progress. Progress is the mean of two
 * fractions that both reach 1 exactly at the end: simulated time over the last submission (capped
 * at 1), and jobs finished over jobs. The rate is the progress made over the last
 * DIKE_PROGRESS_WINDOW_S wall seconds, so it follows a run whose cost per unit of progress changes
 * (an empty cluster filling up fast, a slow saturated middle, a quick drain), and it is measured
 * from this process's first observation, never from simulated time 0, so a run continued from a
 * checkpoint does not count the work done before the checkpoint as done in no time. */
#ifndef DIKE_PROGRESS_H
#define DIKE_PROGRESS_H

#include <stdint.h>
#include <stdio.h>
#include "dike/base.h"

#define DIKE_PROGRESS_WINDOW_S 30.0 /**< the ETA's rate is the progress of the last this many wall s */
#define DIKE_PROGRESS_RING 64        /**< samples kept: > the window at one sample per second */

/** How progress is shown (--progress). */
typedef enum dike_progress_mode {
    DIKE_PROGRESS_AUTO = 0, /**< live on a terminal (stderr, or /dev/tty if stderr is a pipe), else log */
    DIKE_PROGRESS_LIVE,     /**< a live line: the terminal if there is one, else stderr with '\r' */
    DIKE_PROGRESS_LOG,      /**< log lines on stderr */
    DIKE_PROGRESS_OFF       /**< nothing */
} dike_progress_mode;

typedef struct dike_progress {
    FILE *out;             /**< where lines go, NULL when off */
    int tty;               /**< live line (rewritten with '\r') */
    int own_out;           /**< out is /dev/tty, opened here (closed at the end) */
    double interval;       /**< wall seconds between lines */
    double start, next;    /**< wall clock: start, next print, s */
    dike_time last_submit; /**< for "percent of submits" */
    size_t total;          /**< jobs */
    int printed;           /**< something was printed (a live line needs its newline at the end) */
    int observed;          /**< the first observation (base_*) was taken */
    double base_wall;      /**< first observation: wall clock, s */
    double ring_wall[DIKE_PROGRESS_RING];   /**< samples (one per wall second at most): wall clock, s */
    double ring_frac[DIKE_PROGRESS_RING];   /**< ... and progress fraction then */
    int ring_head, ring_n; /**< next slot, samples held */
    double rate;           /**< the last rate, progress fraction per wall second; < 0 = none yet */
    uint64_t base_events;  /**< events at the first observation (events/s count this run's only) */
} dike_progress;

/** The mode of every later dike_progress_init (the CLI's --progress; default AUTO). */
void dike_progress_set_mode(dike_progress_mode m);

/** "auto", "live", "log", "off" -> mode; -1 if none of these. */
int dike_progress_mode_parse(const char *s);

/** @p interval_s 0 or @p out NULL: off. */
void dike_progress_init(dike_progress *p, FILE *out, double interval_s, dike_time last_submit,
                        size_t total_jobs);
/** Cheap to call often: prints only when it is time. */
void dike_progress_update(dike_progress *p, dike_time now, size_t finished, uint64_t events);
/** Final line (a live line gets its newline). */
void dike_progress_done(dike_progress *p, dike_time now, size_t finished, uint64_t events);

/** Take an observation at wall clock @p wall (s) and return the ETA in wall seconds, or a
 *  negative number when no rate is known yet (the first observation only sets the base).
 *  dike_progress_update calls it with MPI_Wtime(); tests call it with made-up clocks. */
double dike_progress_observe(dike_progress *p, double wall, dike_time now, size_t finished);

#endif
