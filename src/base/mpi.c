/* The MPI-check policy and the status agreement (see mpi.h). */
#include "base/mpi.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

void dike_mpi_fail(const char *file, int line, const char *call, int rc)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error code %d", rc);
    dike__fatal(file, line, "MPI call failed: %s: %s", call, text);
}

int dike_mpi_rank(MPI_Comm comm)
{
    int rank;
    DIKE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    return rank;
}

int dike_mpi_started(void)
{
    int on = 0;
    MPI_Initialized(&on);
    return on != 0;
}

int dike_mpi_size(MPI_Comm comm)
{
    int size;
    DIKE_MPI_CHECK(MPI_Comm_size(comm, &size));
    return size;
}

int dike_mpi_agree(MPI_Comm comm, int rc, dike_err *e)
{
    int rank = dike_mpi_rank(comm), first = INT_MAX;
    int mine = rc ? rank : INT_MAX;
    DIKE_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first == INT_MAX)
        return 0;
    /* code and message in one broadcast; a rank without a buffer receives into a scratch one */
    dike_err scratch, *out = e ? e : &scratch;
    if (rank == first) {
        if (!e)
            scratch.msg[0] = '\0';
        out->code = rc;
    }
    DIKE_MPI_CHECK(MPI_Bcast(out, (int)sizeof *out, MPI_BYTE, first, comm));
    out->msg[sizeof out->msg - 1] = '\0';
    return out->code;
}

MPI_Datatype dike_mpi_bytes_type(size_t n)
{
    if (n > INT_MAX)
        dike_fatal("an MPI record of %zu bytes is too large", n);
    MPI_Datatype t;
    DIKE_MPI_CHECK(MPI_Type_contiguous((int)n, MPI_BYTE, &t));
    DIKE_MPI_CHECK(MPI_Type_commit(&t));
    return t;
}
