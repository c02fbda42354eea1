/* The window loop of the emulating mode (internal): node ranks track progress, conservative
 * windows of length scheduler.decision_latency_s (docs/architecture.md#two-modes). */
#ifndef DIKE_EMULATE_H
#define DIKE_EMULATE_H

#include <mpi.h>
#include "engine/coord.h"
#include "engine/nodes.h"
#include "engine/partition.h"
#include "engine/window.h"

/** Run the emulation to the end. @p s is the coordinator on rank 0 (NULL elsewhere), @p ns this
 *  rank's node state. Returns the same status on every rank. */
int dike_emulate_loop(MPI_Comm comm, dike_sched *s, dike_part *p, dike_nodes *ns,
                      const dike_part_layout *l, dike_time latency_us, const dike_window_opts *o,
                      dike_perf_record *perf, dike_err *e);

#endif
