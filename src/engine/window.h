/* The window loop (internal): coordinator and node ranks in lockstep windows. */
#ifndef DIKE_WINDOW_H
#define DIKE_WINDOW_H

#include <mpi.h>
#include "engine/coord.h"
#include "engine/partition.h"

/** Run the emulation to the end. @p s is the coordinator on rank 0 (NULL elsewhere); @p p is
 *  this rank's node block. Fills @p perf with this rank's counters. */
void dike_window_loop(MPI_Comm comm, dike_sched *s, dike_part *p, const dike_part_layout *l,
                      size_t window_actions, int inject_fatal_rank, dike_perf_record *perf);

#endif
