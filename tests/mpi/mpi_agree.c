/* MPI driver test of dike_mpi_agree (src/base/mpi.c): every rank gets 0 when no rank failed, and
 * otherwise the code and message of the lowest-numbered failing rank, whichever ranks failed and
 * whether a rank passes a message buffer at all. Also checks dike_mpi_bytes_type's size.
 * Exit status: 0 when every check passes on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "base/mpi.h"

static int failures;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "mpi_agree: rank %d: line %d: check failed: %s: ",                    \
                    dike_mpi_rank(MPI_COMM_WORLD), __LINE__, #cond);                              \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm w = MPI_COMM_WORLD;
    int rank = dike_mpi_rank(w), size = dike_mpi_size(w);
    dike_err e;

    /* nobody failed: 0 everywhere, the buffer untouched */
    dike_err_set(&e, 0, "untouched");
    int rc = dike_mpi_agree(w, 0, &e);
    CHECK(rc == 0, "got %d", rc);
    CHECK(e.code == 0 && strcmp(e.msg, "untouched") == 0, "code %d, message '%s'", e.code, e.msg);

    /* rank 0 alone checked something and failed: its code and message reach every rank */
    memset(&e, 0, sizeof e);
    rc = rank == 0 ? dike_err_set(&e, DIKE_EINVAL, "bad input on rank 0") : 0;
    rc = dike_mpi_agree(w, rc, &e);
    CHECK(rc == DIKE_EINVAL, "got %d", rc);
    CHECK(e.code == DIKE_EINVAL && strcmp(e.msg, "bad input on rank 0") == 0, "code %d, message '%s'",
          e.code, e.msg);

    /* the last rank fails with EIO; then every rank but 0 fails, each with its own code (rank r:
     * -r) and message: the lowest failing rank, 1, wins (with one rank, rank 0 itself) */
    memset(&e, 0, sizeof e);
    rc = rank == size - 1 ? dike_err_set(&e, DIKE_EIO, "disk full on the last rank") : 0;
    rc = dike_mpi_agree(w, rc, &e);
    CHECK(rc == DIKE_EIO && strcmp(e.msg, "disk full on the last rank") == 0, "got %d, '%s'", rc, e.msg);
    int first = size > 1 ? 1 : 0;
    memset(&e, 0, sizeof e);
    rc = rank >= first ? dike_err_set(&e, -(rank + 1), "rank %d failed", rank) : 0;
    rc = dike_mpi_agree(w, rc, &e);
    char want[64];
    snprintf(want, sizeof want, "rank %d failed", first);
    CHECK(rc == -(first + 1) && e.code == rc, "got %d (code %d), want %d", rc, e.code, -(first + 1));
    CHECK(strcmp(e.msg, want) == 0, "message '%s', want '%s'", e.msg, want);

    /* a rank without a message buffer still gets the code */
    rc = dike_mpi_agree(w, rank == 0 ? DIKE_EH5 : 0, rank == size - 1 ? NULL : &e);
    CHECK(rc == DIKE_EH5, "got %d", rc);

    /* a record type of 24 bytes is 24 bytes */
    MPI_Datatype t = dike_mpi_bytes_type(24);
    int tsize = 0;
    DIKE_MPI_CHECK(MPI_Type_size(t, &tsize));
    CHECK(tsize == 24, "size %d", tsize);
    DIKE_MPI_CHECK(MPI_Type_free(&t));

    int any = 0;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, w);
    if (rank == 0)
        printf("mpi_agree: %d ranks: %s\n", size, any ? "FAILED" : "all checks passed");
    MPI_Finalize();
    return any ? 1 : 0;
}
