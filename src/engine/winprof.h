/* The window bound (internal, output.window_bound): from one run on one rank, what the emulating
 * mode's windows would cost with the nodes split over P ranks, if communication were free.
 *
 * The owner and home steps time each piece of their work (an action, a node event, a rack's
 * shares, a node's factors; a record applied, a run's new rate, a completion) and charge it to a
 * rack: the node's, or the rack of the run's first node (its home). At the end of each window the
 * bound takes, for each P, the racks' blocks as a P-rank run would own them (partition.c) and adds
 * the largest block's owner time plus the largest block's home time (a window's two steps are
 * separated by the records' exchange, and the window ends when the slowest block is done), plus
 * the coordinator's part of the window, which is serial whatever P is. Work that belongs to no
 * rack (sorting a window's records, sending a timestamp's group minima) is counted as if it
 * divided evenly over the blocks, and printed, so the reader sees how much it is.
 *
 * What it leaves out: the collectives' latency, and the extra records of gangs whose slices fall
 * on several blocks (one group per rank, each sending its minimum). What it assumes: a piece of
 * work costs on P ranks what it cost on one, while a rank holding 1/P of the state may do it
 * faster (caches). So the bound is a floor on what P ranks take at one rank's costs;
 * docs/scaling.md compares it with real 2-rank runs. */
#ifndef DIKE_WINPROF_H
#define DIKE_WINPROF_H

#include <stdint.h>
#include <stdio.h>
#include "dike/cluster.h"

typedef struct dike_winprof dike_winprof;

enum { DIKE_WP_OWNER = 0, DIKE_WP_HOME = 1 };

/** Whether a P-rank run's coordinator owns a block of nodes: the run's own rule
 *  (engine.coordinator_owns_nodes), asked for each P. */
typedef int (*dike_winprof_owns_fn)(const void *ctx, int nranks);

/** A bound for P = 2, 3, 4, 8, 16, ... up to the cluster's racks, with the blocks @p owns (called
 *  with @p ctx) gives a P-rank run. A second bound recuts the blocks every
 *  @p rebalance_every windows (0 = never) from the work charged so far: contiguous racks, the
 *  heaviest block as light as possible (what moving racks between ranks during a run could give
 *  if the moves were free). */
dike_winprof *dike_winprof_new(const dike_cluster *cl, uint32_t njobs, dike_winprof_owns_fn owns,
                               const void *ctx, uint32_t rebalance_every);
void dike_winprof_free(dike_winprof *w);

/** A clock in ticks (the time-stamp counter on x86-64, else nanoseconds). */
static inline uint64_t dike_winprof_clock(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    extern uint64_t dike_winprof_ns(void);
    return dike_winprof_ns();
#endif
}

/** Charge @p ticks of @p phase (DIKE_WP_*) to @p rack; rack UINT32_MAX = no rack (divisible). */
void dike_winprof_add(dike_winprof *w, int phase, uint32_t rack, uint64_t ticks);
/** The rack of @p job's home, known from its start (DIKE_ACT_START, slice 0's node). */
void dike_winprof_set_home(dike_winprof *w, uint32_t job, uint32_t home_node);
uint32_t dike_winprof_home_rack(const dike_winprof *w, uint32_t job);
/** Close a window whose coordinator part took @p coord_seconds. */
void dike_winprof_window(dike_winprof *w, double coord_seconds);
/** One row of the bound, in ticks: for P ranks (@p blocks of racks), the sum over windows of
 *  the largest block's owner time and of its home time, the largest block's total over the
 *  run (the bound if the windows were free to balance), and owner + home with the recut blocks. */
typedef struct dike_winprof_row {
    int ranks, blocks;
    double owner, home, heaviest, rebalanced;
} dike_winprof_row;
/** Rows measured (P = 2, 3, 4, 8, ...); row -1 is one rank (the totals). */
int dike_winprof_count(const dike_winprof *w);
void dike_winprof_get(const dike_winprof *w, int i, dike_winprof_row *row);
/** The table, as text (caller frees); ticks are converted to seconds by the ticks and the
 *  monotonic clock's seconds since dike_winprof_new. */
char *dike_winprof_report(const dike_winprof *w);

#endif
