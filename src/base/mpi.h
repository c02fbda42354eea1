/* MPI helpers every layer uses: the one policy for a failing MPI call, and the one way ranks
 * agree on a status.
 *
 * A failing MPI call ends the job. After a failed collective nobody knows which ranks took part
 * or what the communicator still holds, so there is no state to return to: DIKE_MPI_CHECK(call)
 * calls dike_fatal with the call's text, file:line and MPI_Error_string, and dike_fatal calls
 * MPI_Abort. (With MPI's default handler, MPI_ERRORS_ARE_FATAL, the library aborts before the
 * call returns; the macro is what happens when a caller or a test has set MPI_ERRORS_RETURN.)
 * Errors that are the input's or the file system's are not MPI errors: they travel as statuses,
 * and dike_mpi_agree makes every rank return the same one. */
#ifndef DIKE_BASE_MPI_H
#define DIKE_BASE_MPI_H

#include <mpi.h>
#include <stddef.h>

#include "dike/base.h"

/** Evaluate the MPI call @p call; anything but MPI_SUCCESS is fatal (see above). */
#define DIKE_MPI_CHECK(call)                                                                       \
    do {                                                                                           \
        int dike_mpi_rc_ = (call);                                                                 \
        if (dike_mpi_rc_ != MPI_SUCCESS)                                                           \
            dike_mpi_fail(__FILE__, __LINE__, #call, dike_mpi_rc_);                               \
    } while (0)

/** What DIKE_MPI_CHECK calls on a failure: dike_fatal at @p file:@p line with MPI's text. */
void dike_mpi_fail(const char *file, int line, const char *call, int rc)
    __attribute__((noreturn));

/** 1 once MPI_Init has run in this process (dike-emu starts MPI only for the commands that
 *  emulate), else 0. */
int dike_mpi_started(void);

/** This rank's number in @p comm. */
int dike_mpi_rank(MPI_Comm comm);
/** The number of ranks of @p comm. */
int dike_mpi_size(MPI_Comm comm);

/** Agree on a status (collective over @p comm): every rank passes its own @p rc (0 or a negative
 *  DIKE_E* code) and every rank gets back the same answer: 0 if all passed 0, else the code of the
 *  lowest-numbered failing rank, whose message is copied into @p e on every rank (@p e may be
 *  NULL). The lowest rank, not the first to fail, so the answer never depends on timing. Costs
 *  one MPI_Allreduce of one int when nobody failed, plus one MPI_Bcast of the message otherwise.
 *  Use it where rank 0 alone checked something (the others pass 0) as well as where every rank
 *  did. */
int dike_mpi_agree(MPI_Comm comm, int rc, dike_err *e);

/** A committed datatype of @p n contiguous bytes, for sending fixed-size records; free it with
 *  MPI_Type_free. */
MPI_Datatype dike_mpi_bytes_type(size_t n);

#endif
