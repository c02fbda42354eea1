/* The emulating mode's window blocks (internal): the fixed-size blocks its three collectives move
 * (src/engine/emulate.c), in a header of their own so that bench/handoff_bench.c times exactly
 * these sizes. */
#ifndef DIKE_EMULATE_BLOCKS_H
#define DIKE_EMULATE_BLOCKS_H

#include <stdint.h>
#include "engine/nodes.h"

/* Inline capacities of the fixed-size blocks. Workload b of bench/scaling.sh §4 (L = 1 s) has about
 * two reports and four actions per window over all ranks, so 8 of each covers nearly every window
 * with one collective; a block stays below Open MPI's shared-memory eager limit (4 KiB). A rank
 * with more sends the rest point to point right after the collective (the receiver learns the
 * count from the block). Larger capacities would cost rank 0 more bytes per rank and window. */
enum { INL_REP = 8, INL_ACT = 8, INL_REC = 8 };

/* Gathered from every rank: its reports and what rank 0 needs to pick the next window. */
typedef struct up_block {
    int64_t nrep;       /* reports in all (the first INL_REP inline) */
    int64_t next;       /* the rank's next event time, us */
    int64_t may_remote; /* it hosts a slice of another rank's gang */
    int64_t stop;       /* U_STOP: a stop was requested here; U_FULL: its node samples are full
                           (emulate.c) */
    dike_nrep rep[INL_REP];
} up_block;

/* Scattered to every rank: its actions, the next window and the flags. */
typedef struct down_block {
    int64_t nact; /* actions in all (the first INL_ACT inline) */
    int64_t next; /* the next window's start T, us */
    int64_t flags; /* F_* (emulate.c) */
    int64_t pad_;
    dike_nact act[INL_ACT];
} down_block;

/* Exchanged between every pair while gangs span ranks: slice-factor records for the home. */
typedef struct rec_block {
    int64_t n; /* records in all (the first INL_REC inline) */
    int64_t pad_;
    dike_jrec rec[INL_REC];
} rec_block;

#endif
