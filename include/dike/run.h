/* One emulation from a resolved configuration to an output file: the library's top level. */
#ifndef DIKE_RUN_H
#define DIKE_RUN_H

#include <mpi.h>
#include "dike/config.h"
#include "dike/results.h"

/** Run one emulation over @p comm (collective). Every rank returns the same status; on failure
 *  no output file exists. On success rank 0's @p out holds the results (others: empty); free
 *  with dike_results_free. @p out_path NULL or "" skips writing the HDF5 file (tests).
 *  @p perf_out (may be NULL) receives this rank's perf row. */
int dike_run(const dike_config *cfg, MPI_Comm comm, const char *out_path, dike_results *out,
             dike_perf_record *perf_out, dike_err *e);

/** Print the summary table of @p r (rank 0) to @p f. */
void dike_print_summary(FILE *f, const dike_results *r, const dike_perf_record *perf);

#endif
