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

/** Set (e.g. from a SIGTERM/SIGUSR1 handler) to stop at the next window boundary after writing a
 *  checkpoint; dike_run then returns DIKE_ESTOPPED. */
#include <signal.h>
extern volatile sig_atomic_t dike_stop_requested;

/** Continue the run saved in checkpoint @p ckpt (collective) with the configuration stored in it
 *  (@p cfg is filled from it; @p adjust, may be NULL, may then change output-only keys such as
 *  run.out or run.checkpoint_every_s before the run continues). Otherwise as dike_run. */
int dike_resume(const char *ckpt, MPI_Comm comm, dike_config *cfg,
                int (*adjust)(dike_config *cfg, void *ctx, dike_err *e), void *ctx, dike_results *out,
                dike_perf_record *perf_out, dike_err *e);

/** Let dike_resume continue a checkpoint written from other emulator sources (its
 *  `source_sha256`; refused by default, docs/reliability.md). The output's `builds` attribute
 *  names every build that ran the emulation. Process-wide; `dike-emu resume --allow-other-build`
 *  sets it. */
void dike_resume_allow_other_build(int yes);

/** Tell the library how long this process's MPI_Init took (seconds, measured by the caller
 *  around it), so that /perf and the summary can split the process's time: start-up, read,
 *  engine, output. Without it the start-up is reported as 0; only the process's first run reports
 *  it (the later runs of a campaign did not pay it). */
void dike_run_note_startup(double seconds);
/** Print the summary table of @p r (rank 0) to @p f. */
void dike_print_summary(FILE *f, const dike_results *r, const dike_perf_record *perf);

#endif
