/* MPI driver test of the HDF5 writer: every rank owns a contiguous block of /nodes (in the 4-rank
 * run the last rank owns none, to exercise empty selections) and one row of /perf; after the
 * collective write rank 0 reads both datasets back and checks every row. Also checks that a
 * failure gives every rank the same code and message and leaves no file behind.
 * Exit status: 0 when every check passes on every rank. */
#include <dirent.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dike/results.h"
#include "io/h5types.h"

#define NODES_PER_RANK 10

static int failures;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            int r_ = -1;                                                                          \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                   \
            fprintf(stderr, "mpi_h5out: rank %d: line %d: check failed: %s: ", r_, __LINE__,     \
                    #cond);                                                                       \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

/* Nodes of @p rank: the last rank of a 4-rank run owns none. */
static uint32_t owned(int rank, int size)
{
    return size == 4 && rank == 3 ? 0 : NODES_PER_RANK;
}

static uint32_t first_node(int rank, int size)
{
    uint32_t first = 0;
    for (int r = 0; r < rank; r++)
        first += owned(r, size);
    return first;
}

/* The row every rank writes for @p node, and rank 0 expects back. */
static void node_row(dike_node_record *nd, uint32_t node)
{
    memset(nd, 0, sizeof *nd);
    nd->node = node;
    nd->rack = node / 4;
    snprintf(nd->gpu_type, sizeof nd->gpu_type, "%s", node % 3 ? "v100" : "a100-80g");
    nd->busy_gpu_seconds = 0.5 + 1000.25 * node;
    nd->jobs_hosted = 7 * node + 1;
    nd->failures = node % 5;
}

static void perf_row(dike_perf_record *p, int rank, int size)
{
    memset(p, 0, sizeof *p);
    p->rank = rank;
    p->events = 1000 + (uint64_t)rank;
    p->windows = 2000 + (uint64_t)rank;
    p->messages = 3000 + (uint64_t)rank;
    p->bytes_sent = (uint64_t)1 << (33 + rank);
    p->wall_seconds = 1.5 * rank + 0.25;
    p->compute_seconds = 0.75 * rank;
    p->comm_seconds = 0.125 * rank;
    p->decisions = rank == 0 ? 42 : 0;
    p->nodes_owned = owned(rank, size);
}

/* Rows of dataset @p name, read with @p type into a new array; @p n gets the row count. */
static void *read_rows(hid_t file, const char *name, hid_t type, size_t rowsize, size_t *n)
{
    *n = 0;
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    CHECK(ds >= 0, "no dataset %s", name);
    if (ds < 0)
        return NULL;
    hid_t sp = H5Dget_space(ds);
    hsize_t dims = 0;
    CHECK(H5Sget_simple_extent_ndims(sp) == 1, "%s is not 1-D", name);
    H5Sget_simple_extent_dims(sp, &dims, NULL);
    H5Sclose(sp);
    void *rows = calloc(dims ? dims : 1, rowsize);
    CHECK(H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0, "cannot read %s", name);
    H5Dclose(ds);
    *n = dims;
    return rows;
}

static void check_file(const char *path, uint64_t total, int size)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file >= 0, "cannot open %s", path);
    if (file < 0)
        return;

    size_t n = 0;
    hid_t t = dike_h5_node_type();
    dike_node_record *nodes = read_rows(file, "/nodes", t, sizeof *nodes, &n);
    H5Tclose(t);
    CHECK(n == total, "/nodes has %zu rows, expected %llu", n, (unsigned long long)total);
    for (size_t i = 0; nodes && i < n; i++) {
        dike_node_record want;
        node_row(&want, (uint32_t)i);
        const dike_node_record *got = &nodes[i];
        CHECK(got->node == want.node && got->rack == want.rack &&
                  !strcmp(got->gpu_type, want.gpu_type) &&
                  got->busy_gpu_seconds == want.busy_gpu_seconds &&
                  got->jobs_hosted == want.jobs_hosted && got->failures == want.failures,
              "/nodes row %zu: node %u rack %u type '%s' busy %g hosted %u failures %u", i,
              got->node, got->rack, got->gpu_type, got->busy_gpu_seconds, got->jobs_hosted,
              got->failures);
    }
    free(nodes);

    t = dike_h5_perf_type();
    dike_perf_record *perf = read_rows(file, "/perf", t, sizeof *perf, &n);
    H5Tclose(t);
    CHECK(n == (size_t)size, "/perf has %zu rows, expected %d", n, size);
    for (size_t i = 0; perf && i < n; i++) {
        dike_perf_record want;
        perf_row(&want, (int)i, size);
        const dike_perf_record *got = &perf[i];
        CHECK(got->rank == want.rank && got->events == want.events &&
                  got->windows == want.windows && got->messages == want.messages &&
                  got->bytes_sent == want.bytes_sent && got->wall_seconds == want.wall_seconds &&
                  got->compute_seconds == want.compute_seconds &&
                  got->comm_seconds == want.comm_seconds && got->decisions == want.decisions &&
                  got->nodes_owned == want.nodes_owned,
              "/perf row %zu: rank %d events %llu nodes_owned %u", i, got->rank,
              (unsigned long long)got->events, got->nodes_owned);
    }
    free(perf);

    /* Rank 0's part is there too. */
    int32_t ranks = 0;
    hid_t a = H5Aopen(file, "ranks", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT32, &ranks) >= 0 && ranks == size,
          "root attribute ranks = %d", ranks);
    if (a >= 0)
        H5Aclose(a);
    CHECK(H5Fclose(file) >= 0, "closing %s", path);
}

/* Names in @p dir other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/* Every rank returned @p rc and @p msg: compare with rank 0's. */
static void check_same_everywhere(int rc, const char *msg)
{
    int rc0 = rc;
    char msg0[sizeof ((dike_err *)0)->msg];
    snprintf(msg0, sizeof msg0, "%s", msg);
    MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(msg0, (int)sizeof msg0, MPI_CHAR, 0, MPI_COMM_WORLD);
    CHECK(rc == rc0 && !strcmp(msg, msg0), "rank 0 returned %d '%s', this rank %d '%s'", rc0,
          msg0, rc, msg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char dir[256] = "/tmp/dike-mpi-h5out-XXXXXX";
    if (rank == 0 && !mkdtemp(dir)) {
        perror("mkdtemp");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    char path[320];
    snprintf(path, sizeof path, "%s/out.h5", dir);

    uint32_t first = first_node(rank, size), count = owned(rank, size);
    uint64_t total = first_node(size, size);
    dike_node_record *nodes = calloc(count ? count : 1, sizeof *nodes);
    for (uint32_t i = 0; i < count; i++)
        node_row(&nodes[i], first + i);
    dike_perf_record perf;
    perf_row(&perf, rank, size);

    dike_results r;
    memset(&r, 0, sizeof r);
    snprintf(r.meta.version, sizeof r.meta.version, "%s", DIKE_VERSION);
    r.meta.ranks = size;
    dike_timeseries_init(&r.ts, 0);
    const dike_results *rp = rank == 0 ? &r : NULL;

    /* 1. A good write; rank 0 checks every row. */
    dike_err e = { 0, "" };
    int rc = dike_h5_write(path, MPI_COMM_WORLD, rp, nodes, count, total, &perf, &e);
    CHECK(rc == 0, "write returned %d: %s", rc, e.msg);
    check_same_everywhere(rc, rc ? e.msg : "");
    if (rank == 0) {
        check_file(path, total, size);
        CHECK(count_entries(dir) == 1, "%d entries in %s, expected only out.h5", count_entries(dir),
              dir);
        unlink(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. A folder that does not exist: the same error everywhere, no file. */
    char bad[400];
    snprintf(bad, sizeof bad, "%s/missing/out.h5", dir);
    e = (dike_err){ 0, "" };
    rc = dike_h5_write(bad, MPI_COMM_WORLD, rp, nodes, count, total, &perf, &e);
    CHECK(rc == DIKE_EIO && strstr(e.msg, bad), "missing folder: returned %d: %s", rc, e.msg);
    check_same_everywhere(rc, e.msg);

    /* 3. The last rank claims one node too many: a caller bug, refused on every rank. */
    if (size > 1) {
        e = (dike_err){ 0, "" };
        dike_node_record extra[NODES_PER_RANK + 1];
        size_t n = count;
        memcpy(extra, nodes, count * sizeof *nodes);
        if (rank == size - 1) {
            uint32_t f = count ? first : (uint32_t)total - 1;
            for (size_t i = 0; i <= count; i++)
                node_row(&extra[i], f + (uint32_t)i);
            n = count + 1;
        }
        rc = dike_h5_write(path, MPI_COMM_WORLD, rp, extra, n, total, &perf, &e);
        CHECK(rc == DIKE_EINTERNAL, "overlapping blocks: returned %d: %s", rc, e.msg);
        check_same_everywhere(rc, e.msg);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(count_entries(dir) == 0, "%d entries left in %s after failures", count_entries(dir),
              dir);
        rmdir(dir);
    }

    dike_results_free(&r);
    free(nodes);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_h5out: %d ranks, %llu nodes: %s (%d failed checks)\n", size,
               (unsigned long long)total, all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
