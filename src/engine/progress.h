/* Progress of a long run on stderr (internal), printed by rank 0 only.
 *
 * On a terminal: one line rewritten in place about twice a second. Otherwise (Slurm logs, pipes):
 * one plain line every output.progress_interval_s wall seconds. Each shows simulated time and how
 * far through the submissions it is, jobs finished / total, events per second and an ETA. */
#ifndef DIKE_PROGRESS_H
#define DIKE_PROGRESS_H

#include <stdint.h>
#include <stdio.h>
#include "dike/base.h"

typedef struct dike_progress {
    FILE *out;          /**< stderr, or NULL when off */
    int tty;            /**< live line */
    double interval;    /**< wall seconds between lines */
    double start, next; /**< wall clock: start, next print */
    dike_time last_submit; /**< for "percent of trace" */
    size_t total;       /**< jobs */
    int printed;        /**< something was printed (a tty line needs its newline at the end) */
} dike_progress;

/** @p interval_s 0 or @p out NULL: off. */
void dike_progress_init(dike_progress *p, FILE *out, double interval_s, dike_time last_submit,
                        size_t total_jobs);
/** Cheap to call often: prints only when it is time. */
void dike_progress_update(dike_progress *p, dike_time now, size_t finished, uint64_t events);
/** Final line (terminal: ends the live line). */
void dike_progress_done(dike_progress *p, dike_time now, size_t finished, uint64_t events);

#endif
