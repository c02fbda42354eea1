/* Checkpoint and resume of a whole emulation (internal).
 *
 * At a window boundary every rank's state is consistent: rank 0 has processed every event before
 * the boundary, the node ranks have applied every action and reported every node event up to it.
 * The checkpoint is one HDF5 file written by rank 0 (node ranks send their block's state with one
 * MPI_Gatherv): the resolved configuration text, the trace checksum, and the state as named byte
 * blobs in a layout of this build (CKPT_FORMAT; a checkpoint is for resuming on the same kind of
 * machine, not an archive format). Resuming reads it on rank 0, rebuilds the coordinator, and
 * sends each node's record to whichever rank owns it now — any number of ranks. */
#ifndef DIKE_CHECKPOINT_H
#define DIKE_CHECKPOINT_H

#include <mpi.h>
#include "dike/config.h"
#include "engine/coord.h"
#include "engine/nodes.h"
#include "engine/partition.h"

/** Who ran the emulation, stored in a checkpoint (the run layer fills it from dike_provenance). */
typedef struct dike_ckpt_build {
    const char *builds;        /**< the builds that ran it so far (`git describe`), comma-separated,
                                    this one last */
    const char *source_sha256; /**< the digest of this build's emulator sources */
} dike_ckpt_build;

/** Write the checkpoint (collective). @p s is rank 0's coordinator (NULL elsewhere); @p config_ini
 *  the run's configuration as INI text (dike_config_to_ini, rank 0); @p build who ran the
 *  emulation (docs/reliability.md, "A checkpoint and the build that wrote it"). */
int dike_checkpoint_write(const char *path, MPI_Comm comm, dike_sched *s, const dike_part *p,
                          dike_nodes *ns, const char *config_ini, const char *trace_sha256,
                          const dike_ckpt_build *build, dike_err *e);

/** Between windows, in either mode's loop: write the checkpoint the loop asked for, periodic or on a
 *  stop request (@p stop). A periodic one that fails is a warning and the run goes on: returns 0.
 *  Returns 1 when the loop must end, with *status the write's error or DIKE_ESTOPPED after a
 *  stop's checkpoint (collective). */
int dike_checkpoint_step(const char *path, MPI_Comm comm, dike_sched *s, const dike_part *p,
                         dike_nodes *ns, const char *config_ini, const char *trace_sha256,
                         const dike_ckpt_build *build, int stop, int *status, dike_err *e);

/** Read the configuration text stored in a checkpoint, the builds that ran it (its `builds`
 *  attribute: comma-separated, the writer's last) and the writer's source digest, after checking
 *  the file, its format and version (rank-local; the caller frees all three). */
int dike_checkpoint_config(const char *path, char **config_text, char **builds, char **source_sha256,
                           dike_err *e);

/** Restore the state (collective), after dike_coord_init (rank 0) and dike_part_init (all). */
int dike_checkpoint_restore(const char *path, MPI_Comm comm, dike_sched *s, dike_part *p,
                            const dike_part_layout *l, dike_nodes *ns, const char *trace_sha256,
                            dike_err *e);

/** Testing only (fuzz/fuzz_resume.c): when set, called on the coordinator, node and emulator blobs just
 *  read, in place of the state checksum check — what a forger who recomputes every checksum can
 *  feed to the range checks. NULL in the program. */
extern void (*dike_ckpt_fuzz_mutate)(char *coord, size_t clen, char *nodes, size_t nlen, char *emu,
                                     size_t elen);

#endif
