/* The window loop (internal): coordinator and node ranks in lockstep windows. */
#ifndef DIKE_WINDOW_H
#define DIKE_WINDOW_H

#include <math.h>
#include <mpi.h>
#include "engine/checkpoint.h"
#include "engine/coord.h"
#include "engine/partition.h"

/** What the loop needs besides the state. */
typedef struct dike_window_opts {
    size_t window_actions;      /**< engine.window_actions */
    int inject_fatal_rank;      /**< engine.inject_fatal_rank */
    dike_time ckpt_every;       /**< simulated time between checkpoints, 0 = on request only */
    double ckpt_wall;           /**< wall seconds between checkpoints (rank 0's clock), 0 = off */
    dike_time stop_at;          /**< testing: stop as on a signal at this simulated time, 0 = never */
    const char *ckpt_path;      /**< where checkpoints go */
    const char *config_ini;     /**< the configuration as INI text, stored in checkpoints */
    const char *trace_sha256;   /**< stored in checkpoints, checked on resume */
    dike_ckpt_build build;      /**< stored in checkpoints: who ran the emulation */
    int no_run_ahead;           /**< emulating mode: engine.run_ahead = false (emulate.c, run_ahead) */
} dike_window_opts;

/** Checkpoints by the wall clock: the next one falls due no sooner than this many times what the
 *  last one took to write after it, so that all writes but the last take at most 1 / this of the
 *  running time (docs/reliability.md, "Checkpoints by the wall clock"). */
#define DIKE_CKPT_WALL_RUN_PER_WRITE 9.0

/** Rank 0, at the start (@p last_cost 0) and after each checkpoint, which took @p last_cost wall
 *  seconds: the MPI_Wtime at which the next run.checkpoint_wall_s checkpoint falls due, S after
 *  now or DIKE_CKPT_WALL_RUN_PER_WRITE x @p last_cost, whichever is later (INFINITY when off, and
 *  on every other rank). */
static inline double dike_wall_ckpt_next(int rank, const dike_window_opts *o, double last_cost)
{
    double gap = DIKE_CKPT_WALL_RUN_PER_WRITE * last_cost;
    return rank == 0 && o->ckpt_wall > 0 ? MPI_Wtime() + (gap > o->ckpt_wall ? gap : o->ckpt_wall)
                                         : INFINITY;
}

/** Is the checkpoint of @p next (from dike_wall_ckpt_next) due? Reads no clock when it is off. */
static inline int dike_wall_ckpt_due(double next)
{
    return next != INFINITY && MPI_Wtime() >= next;
}

/** Run the emulation to the end (or until a stop request, after a checkpoint: DIKE_ESTOPPED).
 *  @p s is the coordinator on rank 0 (NULL elsewhere); @p p is this rank's node block. Fills
 *  @p perf with this rank's counters. Returns the same status on every rank. */
int dike_window_loop(MPI_Comm comm, dike_sched *s, dike_part *p, const dike_part_layout *l,
                     const dike_window_opts *o, dike_perf_record *perf, dike_err *e);

#endif
