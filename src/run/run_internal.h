/* dike_run with a workload built by the caller (tests, tools) instead of the configured one. */
#ifndef DIKE_RUN_INTERNAL_H
#define DIKE_RUN_INTERNAL_H
#include "dike/run.h"
#include "dike/workload.h"
/** As dike_run; @p given (rank 0, may be NULL) replaces the configured workload. */
int dike_run_workload(const dike_config *cfg, MPI_Comm comm, const dike_workload *given,
                       const char *out_path, dike_results *out, dike_perf_record *perf_out,
                       dike_err *e);
#endif
