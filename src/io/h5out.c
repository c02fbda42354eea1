/* HDF5 output writer (SPEC §7; the layout is documented in docs/output-schema.md).
 *
 * Two phases, because the data live in two places:
 *  1. Every rank owns a block of /nodes and one row of /perf. The ranks create the file together
 *     through MPI-IO and each writes its own hyperslab with a collective transfer.
 *  2. Everything else (attributes, /jobs, /tenants, /timeseries, /summary) is held by rank 0
 *     alone, which reopens the file with the default (sec2) driver. Parallel HDF5 requires every
 *     rank to make every metadata call with identical arguments; doing that for data only rank 0
 *     has would mean broadcasting all of it for nothing.
 * The file is built under "<path>.tmp-<pid of rank 0>", fsync'ed, and renamed to <path> by rank 0
 * only when complete, so a crashed or failed run never leaves a file at <path> that looks complete.
 *
 * Errors. Parallel HDF5 calls are collective: a rank that fails must not leave the others waiting
 * in the next collective call. After every collective step the ranks agree (dike_mpi_agree) on
 * whether any rank failed, and then all of them take the same path to the one cleanup label, so
 * the collective closes there happen in the same order everywhere; every rank returns the code
 * and text of the lowest failing rank. A failing MPI call itself is fatal (base/mpi.h). */
#include "dike/results.h"
#include "dike/config.h"
#include "dike/metrics.h"
#include "dike/outpath.h"
#include "dike/provenance.h"
#include "io/h5chunks.h"
#include "io/h5types.h"
#include "base/mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Target chunk size of the serial tables: large enough that a million-row /jobs is a few hundred
 * chunks, small enough to fit HDF5's default 1 MiB chunk cache. */
#define H5_CHUNK_BYTES (256u * 1024u)
#define H5_MAX_FIELDS 32

/* ------------------------------------------------------------------------------------------------
 * Record types. One table per record: it builds the HDF5 compound type and the `units` attribute,
 * so the two cannot drift apart. Units: s, GPUs, GPU*s, B, and 1 for anything dimensionless
 * (indices, counts, ratios, labels). */

typedef struct h5_field {
    const char *name;  /**< member name = C field name */
    size_t offset;     /**< offsetof in the C struct */
    hid_t type;        /**< native HDF5 type; H5I_INVALID_HID for a string of strsize bytes */
    size_t strsize;    /**< bytes of a fixed-length string member */
    const char *unit;  /**< unit of the column */
} h5_field;

/* The HDF5 type of a numeric member follows from its C type, so the two cannot disagree (a
 * member of another type does not compile). */
#define F_TYPE(x)                                                                                 \
    _Generic((x), int32_t: H5T_NATIVE_INT32, uint32_t: H5T_NATIVE_UINT32,                         \
             int64_t: H5T_NATIVE_INT64, uint64_t: H5T_NATIVE_UINT64, double: H5T_NATIVE_DOUBLE)
#define F_NUM(st, m, u) { #m, offsetof(st, m), F_TYPE(((st *)0)->m), 0, (u) }
#define F_STR(st, m, u) { #m, offsetof(st, m), H5I_INVALID_HID, sizeof(((st *)0)->m), (u) }
#define F_COPY(f, t)                                                                              \
    do {                                                                                          \
        _Static_assert(sizeof(t) / sizeof((t)[0]) <= H5_MAX_FIELDS, "raise H5_MAX_FIELDS");       \
        memcpy((f), (t), sizeof(t));                                                              \
    } while (0)
/* A table function: static size_t NAME(h5_field *f) filling @p f with the fields given. */
#define FIELDS_FN(name, ...)                                                                      \
    static size_t name(h5_field *f)                                                               \
    {                                                                                             \
        const h5_field t[] = {__VA_ARGS__};                                                       \
        F_RETURN(f, t);                                                                           \
    }
#define F_RETURN(f, t)                                                                            \
    do {                                                                                          \
        F_COPY(f, t);                                                                             \
        return sizeof t / sizeof t[0];                                                            \
    } while (0)

/* A record's table: fills @p f (H5_MAX_FIELDS entries) and returns the number of fields. */
typedef size_t (*fields_fn)(h5_field *f);

#define JOB(m, u) F_NUM(dike_job_record, m, u)
FIELDS_FN(job_fields,
    JOB(job_id, "1"), JOB(tenant, "1"), JOB(num_gpus, "GPUs"),
    /* times and durations */
    JOB(submit_time, "s"), JOB(start_time, "s"), JOB(finish_time, "s"), JOB(duration, "s"),
    JOB(jct, "s"), JOB(queue_delay, "s"), JOB(t_ideal, "s"), JOB(rho, "1"), JOB(run_time, "s"),
    /* what the schedule cost it */
    JOB(preemptions, "1"), JOB(migrations, "1"), JOB(restarts, "1"), JOB(lost_work, "GPU*s"),
    F_STR(dike_job_record, gpu_type, "1"))
#undef JOB

#define TEN(m, u) F_NUM(dike_tenant_record, m, u)
FIELDS_FN(tenant_fields,
    TEN(tenant, "1"), F_STR(dike_tenant_record, name, "1"), TEN(weight, "1"),
    TEN(jobs, "1"), TEN(finished, "1"), TEN(gpu_seconds, "GPU*s"), TEN(avg_jct, "s"),
    /* fairness */
    TEN(mean_rho, "1"), TEN(fairness_ratio, "1"), TEN(weight_share, "1"),
    /* GPUs held against GPUs entitled */
    TEN(avg_gpus, "GPUs"), TEN(entitlement, "GPUs"), TEN(gpu_share, "1"), TEN(entitled_share, "1"))
#undef TEN

FIELDS_FN(node_fields,
    F_NUM(dike_node_record, node, "1"), F_NUM(dike_node_record, rack, "1"),
    F_STR(dike_node_record, gpu_type, "1"),
    F_NUM(dike_node_record, busy_gpu_seconds, "GPU*s"),
    F_NUM(dike_node_record, jobs_hosted, "1"), F_NUM(dike_node_record, failures, "1"))

#define PERF(m, u) F_NUM(dike_perf_record, m, u)
FIELDS_FN(perf_fields,
    PERF(rank, "1"), PERF(events, "1"), PERF(windows, "1"), PERF(messages, "1"), PERF(bytes_sent, "B"),
    PERF(wall_seconds, "s"), PERF(compute_seconds, "s"), PERF(decide_seconds, "s"),
    PERF(decide_p99_us, "us"), PERF(comm_seconds, "s"), PERF(decisions, "1"), PERF(nodes_owned, "1"),
    /* the decision-step latency (rank 0) */
    PERF(decide_timed, "1"), PERF(decide_mean_us, "us"), PERF(decide_p50_us, "us"),
    PERF(decide_max_us, "us"), PERF(active_mean, "1"), PERF(active_max, "1"), PERF(decide_max_active, "1"),
    /* emulating mode; then where a short run's time goes */
    PERF(node_seconds, "s"), PERF(remote_records, "1"), PERF(owner_seconds, "s"), PERF(coord_seconds, "s"),
    PERF(wait_records_seconds, "s"), PERF(wait_reports_seconds, "s"), PERF(wait_actions_seconds, "s"),
    PERF(startup_seconds, "s"), PERF(read_seconds, "s"))
#undef PERF

#define DEC(m, u) F_NUM(dike_decide_record, m, u)
FIELDS_FN(decide_fields,
    DEC(active_lo, "1"), DEC(active_hi, "1"), DEC(active_mean, "1"), DEC(timed, "1"),
    DEC(mean_us, "us"), DEC(p50_us, "us"), DEC(p99_us, "us"), DEC(max_us, "us"))
#undef DEC

/* /summary is written as scalar attributes, one per field, from the same kind of table. */
static size_t summary_fields(h5_field *f)
{
#define SUM(m, u) F_NUM(dike_summary, m, u)
    const h5_field t[] = {
        SUM(jobs, "1"), SUM(finished, "1"),
        SUM(avg_jct, "s"), SUM(p50_jct, "s"), SUM(p95_jct, "s"), SUM(p99_jct, "s"), SUM(makespan, "s"),
        SUM(avg_queue_delay, "s"),
        /* fairness */
        SUM(mean_rho, "1"), SUM(p99_rho, "1"), SUM(max_rho, "1"), SUM(unfair_fraction, "1"), SUM(jain, "1"),
        /* efficiency and what preemptions and failures cost */
        SUM(utilization, "1"), SUM(effective_utilization, "1"), SUM(preemptions, "1"), SUM(migrations, "1"),
        SUM(allocated_gpu_seconds, "GPU*s"), SUM(restarts, "1"), SUM(lost_work, "GPU*s"), SUM(goodput, "1"),
    };
#undef SUM
    /* Every member is 8 bytes: a field added to dike_summary but not here changes the size. The
     * one more is `gpus`, kept in memory for the window's utilisation and not written. */
    _Static_assert(sizeof(dike_summary) == 8 * (sizeof t / sizeof t[0] + 1),
                   "dike_summary changed: update summary_fields()");
    F_RETURN(f, t);
}

hid_t dike_h5_str_type(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return H5I_INVALID_HID;
    if (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

static hid_t build_compound(size_t size, const h5_field *f, size_t n)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, size), str = H5I_INVALID_HID;
    if (t < 0)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        hid_t m = f[i].type;
        if (m == H5I_INVALID_HID && (m = str = dike_h5_str_type(f[i].strsize)) < 0)
            goto fail;
        if (H5Tinsert(t, f[i].name, f[i].offset, m) < 0)
            goto fail;
        if (str >= 0 && H5Tclose(str) < 0) {
            str = H5I_INVALID_HID;
            goto fail;
        }
        str = H5I_INVALID_HID;
    }
    return t;
fail:
    if (str >= 0)
        H5Tclose(str);
    if (t >= 0)
        H5Tclose(t);
    return H5I_INVALID_HID;
}

/* The compound type of a record of @p size bytes described by @p fields. */
static hid_t record_type(size_t size, fields_fn fields)
{
    h5_field f[H5_MAX_FIELDS];
    return build_compound(size, f, fields(f));
}

hid_t dike_h5_job_type(void) { return record_type(sizeof(dike_job_record), job_fields); }
hid_t dike_h5_tenant_type(void) { return record_type(sizeof(dike_tenant_record), tenant_fields); }
hid_t dike_h5_node_type(void) { return record_type(sizeof(dike_node_record), node_fields); }
hid_t dike_h5_perf_type(void) { return record_type(sizeof(dike_perf_record), perf_fields); }
hid_t dike_h5_decide_type(void) { return record_type(sizeof(dike_decide_record), decide_fields); }

/* The on-disk type: the memory type without its C padding, so files hold no garbage bytes and
 * do not depend on the writer's struct alignment. */
static hid_t packed_type(hid_t mem)
{
    hid_t t = H5Tcopy(mem);
    if (t >= 0 && H5Tpack(t) < 0) {
        H5Tclose(t);
        t = H5I_INVALID_HID;
    }
    return t;
}

/* "name=unit,name=unit,..." for the `units` attribute. */
static char *units_string(const h5_field *f, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(f[i].name) + strlen(f[i].unit) + 2;
    char *s = dike_xmalloc(len), *p = s;
    *p = '\0';
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s%s=%s", i ? "," : "", f[i].name, f[i].unit);
    return s;
}

/* ------------------------------------------------------------------------------------------------
 * Error handling. */

typedef struct h5ctx {
    const char *path; /**< the final output path, named in every message */
    dike_err *e;      /**< this rank's message */
} h5ctx;

typedef struct h5_reason {
    char *buf;
    size_t n;
} h5_reason;

static herr_t reason_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    h5_reason *r = data;
    /* Walked upward, entry 0 is where the error was first detected: the most specific text. */
    if (n == 0) {
        if (err->desc && err->desc[0])
            snprintf(r->buf, r->n, "%s", err->desc);
        else if (H5Eget_msg(err->min_num, NULL, r->buf, r->n) < 0)
            r->buf[0] = '\0';
    }
    return 0;
}

/* Record an HDF5 failure: "<path>: cannot write output: <what> (HDF5: <innermost reason>)". Call
 * it right after the failing call, before another HDF5 call replaces the error stack. */
static int h5fail(const h5ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int h5fail(const h5ctx *c, const char *fmt, ...)
{
    char what[512], why[384] = "";
    h5_reason r = { why, sizeof why };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, reason_cb, &r);
    H5Eclear2(H5E_DEFAULT);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (why[0])
        return dike_err_set(c->e, DIKE_EH5, "%s: cannot write output: %s (HDF5: %s)", c->path, what,
                            why);
    return dike_err_set(c->e, DIKE_EH5, "%s: cannot write output: %s", c->path, what);
}

/* Close @p id with @p fn if it is open; a failure becomes the status unless one is already set. */
static void h5close(const h5ctx *c, int *st, hid_t id, herr_t (*fn)(hid_t), const char *what,
                    const char *obj)
{
    if (id < 0)
        return;
    if (fn(id) < 0 && *st == 0)
        *st = h5fail(c, "closing %s %s", what, obj);
}

/* ------------------------------------------------------------------------------------------------
 * Files built in memory. HDF5 1.10 cannot survive a failed close: when H5Dclose or H5Fclose fails
 * to flush (a full disk, an I/O error), the object is freed but its identifier stays registered,
 * and the library's shutdown in MPI_Finalize then closes it again and crashes. So the writer never
 * lets HDF5 write to a disk where space is allocated: whatever rank 0 writes is built in memory
 * (the core driver without a backing store) and its image is written with write(2), whose errors
 * are ours to report (with errno); the ranks' collective writes of /nodes and /perf go into space
 * that image already holds (contiguous datasets, allocated early), so they allocate nothing. */

/* A file access property list for an in-memory file that is never written back. */
static hid_t memory_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) < 0) {
        H5Pclose(fapl);
        fapl = H5I_INVALID_HID;
    }
    return fapl;
}

/* Write @p len bytes of @p img as the whole content of @p tmp (created or truncated). */
static int write_image(const h5ctx *c, const char *tmp, const char *img, size_t len)
{
    int err = dike_write_whole_file(tmp, img, len);
    if (err)
        return dike_err_set(c->e, DIKE_EIO, "%s: cannot write output: writing %zu bytes to %s: %s",
                            c->path, len, tmp, strerror(err));
    return 0;
}

/* Flush the in-memory @p file and write its image to @p tmp. */
static int save_image(const h5ctx *c, hid_t file, const char *tmp)
{
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        return h5fail(c, "flushing the file image of %s", tmp);
    ssize_t n = H5Fget_file_image(file, NULL, 0);
    if (n <= 0)
        return h5fail(c, "getting the size of the file image of %s", tmp);
    char *img = dike_xmalloc((size_t)n);
    int st = 0;
    if (H5Fget_file_image(file, img, (size_t)n) != n)
        st = h5fail(c, "getting the file image of %s", tmp);
    else
        st = write_image(c, tmp, img, (size_t)n);
    free(img);
    return st;
}

/* After a collective step: did any rank fail? Every rank then holds the status and message of
 * the lowest failing rank (dike_mpi_agree), so all take the same path to the cleanup. */
static bool agree(MPI_Comm comm, int *st, const h5ctx *c)
{
    *st = dike_mpi_agree(comm, *st, c->e);
    return *st != 0;
}

/* ------------------------------------------------------------------------------------------------
 * Argument checks: every rank learns the node blocks of all ranks, so the check of the whole
 * /nodes tiling gives the same answer (and message) everywhere. */

enum { BLK_OK = 0, BLK_NODES_NULL, BLK_NOT_CONTIGUOUS, BLK_PERF_NULL };

typedef struct node_block {
    uint64_t first, count, bad, total;
} node_block;

static int cmp_block(const void *a, const void *b)
{
    const node_block *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

static int check_blocks(const h5ctx *c, MPI_Comm comm, int size, const dike_node_record *nodes,
                        size_t nnodes, uint64_t total_nodes, const dike_perf_record *perf,
                        uint64_t *first)
{
    node_block mine = { nnodes && nodes ? nodes[0].node : 0, nnodes, BLK_OK, total_nodes };
    if (!perf)
        mine.bad = BLK_PERF_NULL;
    else if (nnodes && !nodes)
        mine.bad = BLK_NODES_NULL;
    for (size_t i = 1; mine.bad == BLK_OK && i < nnodes; i++)
        if (nodes[i].node != mine.first + i)
            mine.bad = BLK_NOT_CONTIGUOUS;
    *first = mine.first;

    node_block *all = dike_xcalloc((size_t)size, sizeof *all);
    int st = 0;
    DIKE_MPI_CHECK(MPI_Allgather(&mine, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T, comm));
    uint64_t sum = 0;
    for (int r = 0; r < size; r++) {
        const node_block *b = &all[r];
        if (b->bad == BLK_PERF_NULL) {
            st = dike_err_set(c->e, DIKE_EINTERNAL, "%s: cannot write output: rank %d passed no perf row",
                              c->path, r);
            goto out;
        }
        if (b->total != total_nodes) {
            st = dike_err_set(c->e, DIKE_EINTERNAL,
                              "%s: cannot write output: total_nodes is %llu on rank %d but %llu here",
                              c->path, (unsigned long long)b->total, r,
                              (unsigned long long)total_nodes);
            goto out;
        }
        if (b->bad != BLK_OK) {
            st = dike_err_set(c->e, DIKE_EINTERNAL,
                              "%s: cannot write output: rank %d: its %llu /nodes rows are %s", c->path,
                              r, (unsigned long long)b->count,
                              b->bad == BLK_NODES_NULL ? "NULL" : "not contiguous node indices");
            goto out;
        }
        if (b->count && (b->first >= total_nodes || b->count > total_nodes - b->first)) {
            st = dike_err_set(c->e, DIKE_EINTERNAL,
                              "%s: cannot write output: rank %d: /nodes rows %llu..%llu outside 0..%llu",
                              c->path, r, (unsigned long long)b->first,
                              (unsigned long long)(b->first + b->count - 1),
                              (unsigned long long)total_nodes - 1);
            goto out;
        }
        sum += b->count;
    }
    if (sum != total_nodes) {
        st = dike_err_set(c->e, DIKE_EINTERNAL,
                          "%s: cannot write output: the ranks hold %llu /nodes rows, expected %llu",
                          c->path, (unsigned long long)sum, (unsigned long long)total_nodes);
        goto out;
    }
    /* In range and summing to total_nodes: they tile 0..total_nodes-1 unless two overlap. */
    qsort(all, (size_t)size, sizeof *all, cmp_block);
    for (int r = 1; r < size; r++)
        if (all[r].count && all[r - 1].count && all[r].first < all[r - 1].first + all[r - 1].count) {
            st = dike_err_set(c->e, DIKE_EINTERNAL,
                              "%s: cannot write output: two ranks both hold /nodes row %llu",
                              c->path, (unsigned long long)all[r].first);
            goto out;
        }
out:
    free(all);
    return st;
}

static int check_results(const h5ctx *c, const dike_results *r)
{
    const char *bad = NULL;
    if (!r)
        bad = "no results on rank 0";
    else if (r->njobs && !r->jobs)
        bad = "jobs is NULL";
    else if (r->ntenants && !r->tenants)
        bad = "tenants is NULL";
    else if (r->ndecide && !r->decide)
        bad = "decide is NULL";
    else if (r->ts.n && (!r->ts.time || !r->ts.busy_gpus || !r->ts.queued || !r->ts.running ||
                         (r->ts.ntenants && !r->ts.tenant_gpus)))
        bad = "a timeseries array is NULL";
    if (bad)
        return dike_err_set(c->e, DIKE_EINTERNAL, "%s: cannot write output: %s", c->path, bad);
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Phase 1: /nodes and /perf, collectively. */

/* /node_timeseries: [node][sample] arrays, one block of rows per rank, chunked and compressed
 * (deflate). Parallel HDF5 1.10 can write filtered datasets collectively, but it allocates the
 * compressed chunks during the write, and this writer never lets HDF5 allocate file space outside
 * the in-memory skeleton (see "Files built in memory"). So the ranks compress their own chunks with
 * zlib (the format of HDF5's deflate filter), rank 0 reserves each chunk at its compressed size in
 * the skeleton (H5Dwrite_chunk of zeros) and sends back the chunks' file addresses
 * (H5Dget_chunk_info_by_coord), and the ranks write the compressed bytes there, collectively,
 * through the file's MPI-IO handle.
 *
 * Chunk shape: NTS_ROWS nodes x NTS_COLS samples. Rows divide every boundary between two ranks'
 * blocks (the blocks are whole racks), so every chunk has one owner and no two ranks ever write
 * the same chunk; at most NTS_MAX_ROWS (the largest such divisor), and as many samples as make a
 * chunk about NTS_CELLS cells (64 Ki: 128 KiB of busy_gpus, 256 KiB of factor uncompressed), big
 * enough to compress well, small enough that reading a node range over a time range decompresses
 * little beyond it. */
#define NTS_MAX_ROWS 256u
#define NTS_CELLS 65536u
#define NTS_DEFLATE_LEVEL 1 /* the samples repeat a lot: level 1 gets most of the gain, fastest */

static dike_node_samples node_samples;
static const char *const nts_names[3] = {"/node_timeseries/busy_gpus", "/node_timeseries/factor",
                                         "/node_timeseries/up"};
static const char *const nts_units[3] = {"GPUs", "1", "1"};
static const char *const nts_desc[3] = {
    "GPUs allocated on the node at each sample (row = node, column = sample k at k x interval_s)",
    "speed factor of the node's jobs: up x slowdown episode x interference (0 = down)",
    "1 = the node is up, 0 = failed"};
static const size_t nts_esz[3] = {2, 4, 1};

/* The chunks of one write: geometry (the same on every rank), this rank's compressed chunks, and
 * on rank 0 every rank's chunk sizes and, once the skeleton exists, their addresses. */
static struct nts_plan {
    uint64_t rows, cols;        /* chunk shape */
    uint64_t total, nsamples;   /* dataset shape */
    uint64_t nlocal;            /* this rank's chunks, per dataset */
    int nranks;
    unsigned char *data;        /* its compressed chunks, dataset after dataset */
    uint64_t *size;             /* [3 x nlocal] compressed sizes */
    int *cnt, *displ;           /* rank 0: 3 x chunks per rank, in the arrays below */
    uint64_t *all_size, *all_addr, *all_row; /* rank 0: per chunk of every rank; all_row: first
                                                row chunk of each rank's block */
    uint64_t *addr;             /* this rank's chunk addresses (from rank 0) */
} nts;

static void nts_plan_free(void)
{
    free(nts.data);
    free(nts.size);
    free(nts.cnt);
    free(nts.displ);
    free(nts.all_size);
    free(nts.all_addr);
    free(nts.all_row);
    free(nts.addr);
    memset(&nts, 0, sizeof nts);
}

void dike_h5_set_node_samples(const dike_node_samples *s)
{
    if (s)
        node_samples = *s;
    else
        memset(&node_samples, 0, sizeof node_samples);
}

static hid_t nts_file_type(int i)
{
    return i == 0 ? H5T_STD_U16LE : i == 1 ? H5T_IEEE_F32LE : H5T_STD_U8LE;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Cell (node k of the block, sample t) of dataset i, little-endian as the file types say. */
static void nts_cell(int i, size_t k, size_t t, size_t n, unsigned char *dst)
{
    const dike_node_samples *s = &node_samples;
    size_t src = t * n + k;
    if (i == 0) {
        uint16_t v = s->busy[src];
        dst[0] = (unsigned char)(v & 0xff);
        dst[1] = (unsigned char)(v >> 8);
    } else if (i == 1) {
        uint32_t v;
        memcpy(&v, &s->factor[src], 4);
        for (int b = 0; b < 4; b++)
            dst[b] = (unsigned char)(v >> (8 * b));
    } else {
        dst[0] = s->up[src];
    }
}

/* Compress this rank's chunks of dataset i into nts.data (appended) and nts.size. */
static int nts_compress(const h5ctx *c, int i, uint64_t first, size_t n, size_t *used, size_t *cap)
{
    uint64_t R = nts.rows, S = nts.cols, ns = nts.nsamples;
    uint64_t ncols = (ns + S - 1) / S, r0 = first / R;
    size_t raw = (size_t)(R * S) * nts_esz[i];
    unsigned char *buf = dike_xmalloc(raw);
    uLong bound = compressBound((uLong)raw);
    int st = 0;
    for (uint64_t j = 0; j < nts.nlocal && !st; j++) {
        uint64_t rc = r0 + j / ncols, cc = j % ncols;
        memset(buf, 0, raw); /* beyond the dataset's edge: the fill value */
        for (uint64_t a = 0; a < R; a++) {
            uint64_t node = rc * R + a;
            if (node >= first + n)
                break;
            for (uint64_t b = 0; b < S && cc * S + b < ns; b++)
                nts_cell(i, (size_t)(node - first), (size_t)(cc * S + b), n,
                         buf + (size_t)(a * S + b) * nts_esz[i]);
        }
        if (*used + bound > *cap) {
            *cap = 2 * (*used + bound);
            nts.data = dike_xrealloc(nts.data, *cap);
        }
        uLongf out = bound;
        if (compress2(nts.data + *used, &out, buf, (uLong)raw, NTS_DEFLATE_LEVEL) != Z_OK)
            st = dike_err_set(c->e, DIKE_EIO, "%s: cannot write output: compressing a chunk of %s",
                              c->path, nts_names[i]);
        nts.size[(size_t)i * nts.nlocal + j] = out;
        *used += out;
    }
    free(buf);
    return st;
}

/* All ranks, before the skeleton: the chunk shape, this rank's compressed chunks, and their
 * sizes at rank 0. Collective. */
static int nts_prepare(const h5ctx *c, MPI_Comm comm, int rank, int size, uint64_t first, size_t n,
                       uint64_t total)
{
    int st = 0;
    nts_plan_free();
    nts.total = total;
    nts.nranks = size;
    nts.nsamples = node_samples.nsamples;
    /* rows: a divisor of every inner block boundary */
    unsigned long long mine[2] = {first, first + n}, *all = dike_xmalloc(2 * (size_t)size * sizeof *all);
    DIKE_MPI_CHECK(MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, all, 2, MPI_UNSIGNED_LONG_LONG, comm));
    uint64_t g = 0;
    for (int r = 0; r < 2 * size && !st; r++)
        if (all[r] > 0 && all[r] < total)
            g = gcd64(g, all[r]);
    uint64_t R = g ? 1 : (total < NTS_MAX_ROWS ? total : NTS_MAX_ROWS);
    for (uint64_t d = NTS_MAX_ROWS; g && d >= 1; d--)
        if (g % d == 0) {
            R = d;
            break;
        }
    nts.rows = R ? R : 1;
    uint64_t S = NTS_CELLS / nts.rows;
    nts.cols = S < 1 ? 1 : S > nts.nsamples ? nts.nsamples : S;
    uint64_t ncols = (nts.nsamples + nts.cols - 1) / nts.cols;
    nts.nlocal = n ? ((first + n + nts.rows - 1) / nts.rows - first / nts.rows) * ncols : 0;
    nts.size = dike_xcalloc(3 * nts.nlocal + 1, sizeof *nts.size);
    size_t used = 0, cap = 0;
    for (int i = 0; i < 3 && !st; i++)
        st = nts_compress(c, i, first, n, &used, &cap);
    /* the sizes, and each rank's first row chunk, to rank 0 */
    int mycnt = (int)(3 * nts.nlocal);
    if (rank == 0) {
        nts.cnt = dike_xcalloc((size_t)size, sizeof *nts.cnt);
        nts.displ = dike_xcalloc((size_t)size, sizeof *nts.displ);
        nts.all_row = dike_xcalloc((size_t)size, sizeof *nts.all_row);
    }
    DIKE_MPI_CHECK(MPI_Gather(&mycnt, 1, MPI_INT, nts.cnt, 1, MPI_INT, 0, comm));
    size_t nall = 0;
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            nts.displ[r] = (int)nall;
            nall += (size_t)nts.cnt[r];
            nts.all_row[r] = all[2 * r] / nts.rows;
        }
        nts.all_size = dike_xcalloc(nall + 1, sizeof *nts.all_size);
        nts.all_addr = dike_xcalloc(nall + 1, sizeof *nts.all_addr);
    }
    DIKE_MPI_CHECK(MPI_Gatherv(nts.size, mycnt, MPI_UINT64_T, nts.all_size, nts.cnt, nts.displ,
                               MPI_UINT64_T, 0, comm));
    free(all);
    return st;
}

static int annotate(const h5ctx *c, hid_t obj, const char *objpath, const char *units,
                    const char *desc);

/* Rank 0, in the skeleton: dataset i, chunked and deflated, with every chunk reserved at its
 * compressed size and its address noted in nts.all_addr. */
static int nts_reserve(const h5ctx *c, hid_t file, int i, int size)
{
    int st = 0;
    hsize_t dims[2] = {nts.total, nts.nsamples}, chunk[2] = {nts.rows, nts.cols};
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = H5I_INVALID_HID, dx = H5Pcreate(H5P_DATASET_XFER);
    if (sp < 0 || dcpl < 0 || dx < 0 || H5Pset_chunk(dcpl, 2, chunk) < 0 ||
        H5Pset_deflate(dcpl, NTS_DEFLATE_LEVEL) < 0 || H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0 ||
        (d = H5Dcreate2(file, nts_names[i], nts_file_type(i), sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
        st = h5fail(c, "creating dataset %s", nts_names[i]);
    uint64_t ncols = (nts.nsamples + nts.cols - 1) / nts.cols, maxsz = 1;
    for (int r = 0; r < size; r++)
        for (int j = 0; j < nts.cnt[r]; j++)
            if (nts.all_size[nts.displ[r] + j] > maxsz)
                maxsz = nts.all_size[nts.displ[r] + j];
    unsigned char *zeros = dike_xcalloc(maxsz, 1);
    for (int r = 0; r < size && !st; r++) {
        uint64_t nl = (uint64_t)nts.cnt[r] / 3;
        for (uint64_t j = 0; j < nl && !st; j++) {
            size_t at = (size_t)nts.displ[r] + (size_t)i * nl + j;
            hsize_t off[2] = {(nts.all_row[r] + j / ncols) * nts.rows, (j % ncols) * nts.cols};
            unsigned mask = 0;
            haddr_t addr = HADDR_UNDEF;
            hsize_t got = 0;
            if (H5Dwrite_chunk(d, dx, 0, off, nts.all_size[at], zeros) < 0 ||
                H5Dget_chunk_info_by_coord(d, off, &mask, &addr, &got) < 0 || addr == HADDR_UNDEF ||
                got != nts.all_size[at])
                st = h5fail(c, "reserving chunk (%llu, %llu) of %s", (unsigned long long)off[0],
                            (unsigned long long)off[1], nts_names[i]);
            nts.all_addr[at] = (uint64_t)addr;
        }
    }
    free(zeros);
    hid_t ts = H5I_INVALID_HID, ua = H5I_INVALID_HID, us = H5I_INVALID_HID;
    hid_t ds = H5I_INVALID_HID, da = H5I_INVALID_HID;
    if (st)
        ;
    else if ((ts = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(ts, strlen(nts_units[i]) + 1) < 0 ||
             (us = H5Screate(H5S_SCALAR)) < 0 ||
             (ua = H5Acreate2(d, "units", ts, us, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
             H5Awrite(ua, ts, nts_units[i]) < 0)
        st = h5fail(c, "writing attribute units of %s", nts_names[i]);
    else if ((ds = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(ds, strlen(nts_desc[i]) + 1) < 0 ||
             (da = H5Acreate2(d, "description", ds, us, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
             H5Awrite(da, ds, nts_desc[i]) < 0)
        st = h5fail(c, "writing attribute description of %s", nts_names[i]);
    h5close(c, &st, da, H5Aclose, "attribute description of", nts_names[i]);
    h5close(c, &st, ds, H5Tclose, "string type of description of", nts_names[i]);
    h5close(c, &st, ua, H5Aclose, "attribute units of", nts_names[i]);
    h5close(c, &st, us, H5Sclose, "dataspace of units of", nts_names[i]);
    h5close(c, &st, ts, H5Tclose, "string type of units of", nts_names[i]);
    h5close(c, &st, d, H5Dclose, "dataset", nts_names[i]);
    h5close(c, &st, dx, H5Pclose, "transfer properties of", nts_names[i]);
    h5close(c, &st, dcpl, H5Pclose, "creation properties of", nts_names[i]);
    h5close(c, &st, sp, H5Sclose, "dataspace of", nts_names[i]);
    return st;
}

/* Rank 0, in the skeleton: the group, its interval attribute and the three datasets. (@p dcpl,
 * the contiguous layout of /nodes, is not used: these datasets are chunked.) */
static int nts_create(const h5ctx *c, hid_t file, hid_t dcpl, uint64_t total_nodes, size_t ns,
                      double interval_s)
{
    (void)dcpl;
    (void)total_nodes;
    (void)ns;
    int st = 0;
    hid_t g = H5Gcreate2(file, "/node_timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return h5fail(c, "creating group /node_timeseries");
    hid_t sc = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
    if (sc < 0 || (a = H5Acreate2(g, "interval_s", H5T_IEEE_F64LE, sc, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        H5Awrite(a, H5T_NATIVE_DOUBLE, &interval_s) < 0)
        st = h5fail(c, "writing attribute interval_s of /node_timeseries");
    if (!st)
        st = annotate(c, g, "/node_timeseries", NULL,
                      "per-node samples written by the nodes' owners: row = node, column = sample k "
                      "at k x interval_s");
    h5close(c, &st, a, H5Aclose, "attribute interval_s of", "/node_timeseries");
    h5close(c, &st, sc, H5Sclose, "dataspace of", "interval_s");
    h5close(c, &st, g, H5Gclose, "group", "/node_timeseries");
    for (int i = 0; i < 3 && !st; i++)
        st = nts_reserve(c, file, i, nts.nranks);
    return st;
}

/* All ranks, with the file open through MPI-IO: the compressed chunks to the addresses rank 0
 * reserved, one collective write per chunk index (ranks with fewer chunks write nothing). */
static int nts_write(const h5ctx *c, hid_t file, hid_t dxpl, uint64_t first, size_t n,
                     uint64_t total_nodes, MPI_Comm comm)
{
    (void)dxpl;
    (void)first;
    (void)n;
    (void)total_nodes;
    int st = 0, mycnt = (int)(3 * nts.nlocal);
    nts.addr = dike_xcalloc((size_t)mycnt + 1, sizeof *nts.addr);
    DIKE_MPI_CHECK(MPI_Scatterv(nts.all_addr, nts.cnt, nts.displ, MPI_UINT64_T, nts.addr, mycnt,
                                MPI_UINT64_T, 0, comm));
    void *vfd = NULL;
    hid_t fapl = H5Fget_access_plist(file);
    if (fapl < 0 || H5Fget_vfd_handle(file, fapl, &vfd) < 0 || !vfd)
        st = h5fail(c, "getting the MPI-IO handle of the output");
    h5close(c, &st, fapl, H5Pclose, "access properties of", "the output");
    if (agree(comm, &st, c))
        return st;
    MPI_File fh = *(MPI_File *)vfd;
    unsigned long long most = 0, my = (unsigned long long)mycnt;
    DIKE_MPI_CHECK(MPI_Allreduce(&my, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm));
    size_t off = 0;
    for (unsigned long long j = 0; j < most; j++) {
        int len = j < my ? (int)nts.size[j] : 0;
        MPI_Offset at = j < my ? (MPI_Offset)nts.addr[j] : 0;
        /* a failed write is the disk's (full, quota), not the protocol's: reported, not fatal */
        int rc = MPI_File_write_at_all(fh, at, nts.data + off, len, MPI_BYTE, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS && !st) {
            char msg[MPI_MAX_ERROR_STRING];
            int ml = 0;
            MPI_Error_string(rc, msg, &ml);
            st = dike_err_set(c->e, DIKE_EIO, "%s: cannot write output: rank writing chunks of "
                              "/node_timeseries: %s", c->path, msg);
        }
        off += (size_t)len;
    }
    agree(comm, &st, c);
    return st;
}

/* Convert @p n rows from @p mem to @p file layout into a new buffer (freed by the caller). Writing
 * already-packed rows keeps the transfer collective: HDF5 1.10 silently falls back to independent
 * I/O when a collective write needs a type conversion. */
static void *pack_rows(const h5ctx *c, int *st, hid_t mem, hid_t file, const void *rows, size_t n,
                       const char *obj)
{
    size_t msz = H5Tget_size(mem), fsz = H5Tget_size(file);
    if (!msz || !fsz) {
        *st = h5fail(c, "getting the row size of %s", obj);
        return NULL;
    }
    size_t sz = msz > fsz ? msz : fsz;
    void *buf = dike_xcalloc(n ? n : 1, sz);
    if (n) {
        /* Compound conversions may use a background buffer; HDF5 crashes if it needs one and
         * gets NULL. */
        void *bkg = dike_xcalloc(n, sz);
        memcpy(buf, rows, n * msz);
        herr_t rc = H5Tconvert(mem, file, n, buf, bkg, H5P_DEFAULT);
        free(bkg);
        if (rc < 0) {
            *st = h5fail(c, "converting the rows of %s", obj);
            free(buf);
            return NULL;
        }
    }
    return buf;
}

/* Select rows [first, first+count) of @p fspace and a matching @p count-row memory space. */
static hid_t select_rows(hid_t fspace, uint64_t first, uint64_t count)
{
    hsize_t start = first, cnt = count, one = 1;
    hid_t m = H5Screate_simple(1, count ? &cnt : &one, NULL);
    if (m < 0)
        return H5I_INVALID_HID;
    herr_t rc = count ? H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &cnt, NULL)
                      : H5Sselect_none(fspace);
    if (rc >= 0 && !count)
        rc = H5Sselect_none(m);
    if (rc < 0) {
        H5Sclose(m);
        return H5I_INVALID_HID;
    }
    return m;
}

/* Rank 0: the file with /nodes and /perf allocated (contiguous, early) but not yet written,
 * built in memory and written to @p tmp. */
static int create_skeleton(const h5ctx *c, const char *tmp, hid_t nfile, hid_t nspace, hid_t pfile,
                           hid_t pspace)
{
    hid_t fapl = memory_fapl(), dcpl = H5I_INVALID_HID, file = H5I_INVALID_HID;
    hid_t nds = H5I_INVALID_HID, pds = H5I_INVALID_HID;
    int st = 0;
    if (fapl < 0)
        st = h5fail(c, "setting up an in-memory file");
    else if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_layout(dcpl, H5D_CONTIGUOUS) < 0 ||
             H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
             H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) < 0)
        st = h5fail(c, "setting up the layout of /nodes and /perf");
    else if ((file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
        st = h5fail(c, "creating temporary file %s in memory", tmp);
    else if ((nds = H5Dcreate2(file, "/nodes", nfile, nspace, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
        st = h5fail(c, "creating dataset /nodes");
    else if ((pds = H5Dcreate2(file, "/perf", pfile, pspace, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
        st = h5fail(c, "creating dataset /perf");
    else if (node_samples.nsamples)
        st = nts_create(c, file, dcpl, (uint64_t)H5Sget_simple_extent_npoints(nspace),
                        node_samples.nsamples, node_samples.interval_s);
    h5close(c, &st, pds, H5Dclose, "dataset", "/perf");
    h5close(c, &st, nds, H5Dclose, "dataset", "/nodes");
    if (!st)
        st = save_image(c, file, tmp);
    h5close(c, &st, file, H5Fclose, "in-memory file", tmp);
    h5close(c, &st, dcpl, H5Pclose, "creation properties of", "/nodes");
    h5close(c, &st, fapl, H5Pclose, "access properties of", tmp);
    return st;
}

static int write_parallel(const h5ctx *c, const char *tmp, MPI_Comm comm, int rank, int size,
                          const dike_node_record *nodes, size_t nnodes, uint64_t first,
                          uint64_t total_nodes, const dike_perf_record *perf)
{
    hid_t fapl = H5I_INVALID_HID, dxpl = H5I_INVALID_HID, file = H5I_INVALID_HID;
    hid_t nmem = H5I_INVALID_HID, nfile = H5I_INVALID_HID, pmem = H5I_INVALID_HID,
          pfile = H5I_INVALID_HID;
    hid_t nspace = H5I_INVALID_HID, nsel = H5I_INVALID_HID, pspace = H5I_INVALID_HID,
          psel = H5I_INVALID_HID;
    hid_t nds = H5I_INVALID_HID, pds = H5I_INVALID_HID;
    void *nbuf = NULL, *pbuf = NULL;
    hsize_t ndims = total_nodes, pdims = (hsize_t)size;
    int st = 0;

    /* Local preparation: nothing here is collective. */
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0)
        st = h5fail(c, "setting up MPI-IO file access");
    else if ((dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0 ||
             H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
        st = h5fail(c, "setting up collective transfers");
    else if ((nmem = dike_h5_node_type()) < 0 || (nfile = packed_type(nmem)) < 0)
        st = h5fail(c, "building the /nodes row type");
    else if ((pmem = dike_h5_perf_type()) < 0 || (pfile = packed_type(pmem)) < 0)
        st = h5fail(c, "building the /perf row type");
    else if ((nspace = H5Screate_simple(1, &ndims, NULL)) < 0 ||
             (nsel = select_rows(nspace, first, nnodes)) < 0)
        st = h5fail(c, "selecting rows %llu..+%zu of /nodes", (unsigned long long)first, nnodes);
    else if ((pspace = H5Screate_simple(1, &pdims, NULL)) < 0 ||
             (psel = select_rows(pspace, (uint64_t)rank, 1)) < 0)
        st = h5fail(c, "selecting row %d of /perf", rank);
    else if ((nbuf = pack_rows(c, &st, nmem, nfile, nodes, nnodes, "/nodes")) != NULL)
        pbuf = pack_rows(c, &st, pmem, pfile, perf, 1, "/perf");
    if (agree(comm, &st, c))
        goto out;

    /* Rank 0 lays the file out in memory and writes it: the space of every row exists on disk
     * before any rank writes one (see "Files built in memory" above). */
    if (rank == 0)
        st = create_skeleton(c, tmp, nfile, nspace, pfile, pspace);
    if (agree(comm, &st, c))
        goto out;
    if ((file = H5Fopen(tmp, H5F_ACC_RDWR, fapl)) < 0)
        st = h5fail(c, "opening temporary file %s", tmp);
    if (agree(comm, &st, c))
        goto out;
    if ((nds = H5Dopen2(file, "/nodes", H5P_DEFAULT)) < 0)
        st = h5fail(c, "opening dataset /nodes");
    if (agree(comm, &st, c))
        goto out;
    if ((pds = H5Dopen2(file, "/perf", H5P_DEFAULT)) < 0)
        st = h5fail(c, "opening dataset /perf");
    if (agree(comm, &st, c))
        goto out;
    /* A zero-size contiguous dataset has no storage address: HDF 1.10 fails even an empty write
     * to it. total_nodes is the same on every rank (checked), so all skip the write together. */
    if (total_nodes && H5Dwrite(nds, nfile, nsel, nspace, dxpl, nbuf) < 0)
        st = h5fail(c, "writing rows %llu..+%zu of /nodes", (unsigned long long)first, nnodes);
    if (agree(comm, &st, c))
        goto out;
    if (H5Dwrite(pds, pfile, psel, pspace, dxpl, pbuf) < 0)
        st = h5fail(c, "writing row %d of /perf", rank);
    if (agree(comm, &st, c))
        goto out;
    if (node_samples.nsamples)
        st = nts_write(c, file, dxpl, first, nnodes, total_nodes, comm);

out:
    /* Every rank reaches this point with the same objects open (each step above ends in an
     * agreement), so the collective closes of the datasets and the file match across ranks. */
    h5close(c, &st, pds, H5Dclose, "dataset", "/perf");
    h5close(c, &st, nds, H5Dclose, "dataset", "/nodes");
    h5close(c, &st, file, H5Fclose, "temporary file", tmp);
    h5close(c, &st, psel, H5Sclose, "memory space of", "/perf");
    h5close(c, &st, pspace, H5Sclose, "dataspace of", "/perf");
    h5close(c, &st, nsel, H5Sclose, "memory space of", "/nodes");
    h5close(c, &st, nspace, H5Sclose, "dataspace of", "/nodes");
    h5close(c, &st, pfile, H5Tclose, "row type of", "/perf");
    h5close(c, &st, pmem, H5Tclose, "row type of", "/perf");
    h5close(c, &st, nfile, H5Tclose, "row type of", "/nodes");
    h5close(c, &st, nmem, H5Tclose, "row type of", "/nodes");
    h5close(c, &st, dxpl, H5Pclose, "transfer properties of", tmp);
    h5close(c, &st, fapl, H5Pclose, "access properties of", tmp);
    free(pbuf);
    free(nbuf);
    return st;
}

/* ------------------------------------------------------------------------------------------------
 * Phase 2: rank 0 alone. */

static char *bounded_dup(const char *s, size_t maxlen)
{
    size_t n = s ? strnlen(s, maxlen) : 0;
    char *d = dike_xmalloc(n + 1);
    if (n)
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static int attr_write(const h5ctx *c, hid_t obj, const char *objpath, const char *name, hid_t ftype,
                      hid_t mtype, const void *value)
{
    hid_t space = H5I_INVALID_HID, a = H5I_INVALID_HID;
    int st = 0;
    if ((space = H5Screate(H5S_SCALAR)) < 0)
        st = h5fail(c, "creating the dataspace of attribute %s of %s", name, objpath);
    else if ((a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        st = h5fail(c, "creating attribute %s of %s", name, objpath);
    else if (H5Awrite(a, mtype, value) < 0)
        st = h5fail(c, "writing attribute %s of %s", name, objpath);
    h5close(c, &st, a, H5Aclose, "attribute of", objpath);
    h5close(c, &st, space, H5Sclose, "attribute dataspace of", objpath);
    return st;
}

/* Strings are variable-length UTF-8 scalar attributes: the config text has no useful bound, and
 * h5py returns them as str. */
static int attr_str(const h5ctx *c, hid_t obj, const char *objpath, const char *name, const char *s,
                    size_t maxlen)
{
    char *copy = bounded_dup(s, maxlen);
    const char *p = copy;
    hid_t t = H5Tcopy(H5T_C_S1);
    int st = 0;
    if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)
        st = h5fail(c, "building the string type of attribute %s of %s", name, objpath);
    else
        st = attr_write(c, obj, objpath, name, t, t, &p);
    h5close(c, &st, t, H5Tclose, "string type of", objpath);
    free(copy);
    return st;
}

/* The `units` and `description` attributes every dataset and group carries. */
static int annotate(const h5ctx *c, hid_t obj, const char *objpath, const char *units,
                    const char *desc)
{
    int st = 0;
    if (units)
        st = attr_str(c, obj, objpath, "units", units, SIZE_MAX);
    if (!st)
        st = attr_str(c, obj, objpath, "description", desc, SIZE_MAX);
    return st;
}

/* One `units_<column>` attribute per column of @p f (per attribute for /summary and the root),
 * beside the packed `units` string older readers parse: a reader asks for the unit of a column by
 * name instead of splitting text. */
#define UNITS_PREFIX "units_"

static int column_units(const h5ctx *c, hid_t obj, const char *objpath, const h5_field *f, size_t n)
{
    int st = 0;
    char name[128];
    for (size_t i = 0; !st && i < n; i++) {
        snprintf(name, sizeof name, UNITS_PREFIX "%s", f[i].name);
        st = attr_str(c, obj, objpath, name, f[i].unit, SIZE_MAX);
    }
    return st;
}

/* Open @p objpath and write its `units` and `description` (when @p desc is given) and one
 * units_<column> attribute per field of @p fields (when given). */
static int annotate_path(const h5ctx *c, hid_t file, const char *objpath, const char *units,
                         const char *desc, fields_fn fields)
{
    h5_field f[H5_MAX_FIELDS];
    int st = 0;
    hid_t o = H5Oopen(file, objpath, H5P_DEFAULT);
    if (o < 0)
        st = h5fail(c, "opening %s", objpath);
    if (!st && desc)
        st = annotate(c, o, objpath, units, desc);
    if (!st && fields)
        st = column_units(c, o, objpath, f, fields(f));
    h5close(c, &st, o, H5Oclose, "object", objpath);
    return st;
}

/* Rank 0's tables are deflated at this level after a byte shuffle (HDF5's filters, set on the
 * dataset); on more than one rank the filtering is done here, shared with the other ranks
 * (io/h5chunks.h). */
#define TABLE_DEFLATE_LEVEL 1
/* Tables of fewer chunks are filtered by HDF5 on rank 0 even on several ranks: each batch costs
 * five collectives, and below 64 chunks (16 MiB of rows, about a tenth of a second of deflate
 * here) they cost more than the shared deflate saves, far more when the ranks share cores
 * (mpi_equivalence's 3,000-job runs on 4 oversubscribed ranks). */
#define TABLE_SHARE_MIN_CHUNKS 64u
/* Chunks converted to the file type and filtered in one go: 64 of about 256 KiB, 16 MiB of rows
 * at a time however long the table. */
#define TABLE_CHUNKS_PER_PASS 64u

/* Write @p buf (dims[0] rows of dims[1] or 1 elements of @p mtype) into the chunked, filtered
 * dataset @p ds (@p ftype, chunks of chunk[0] whole rows): each pass converts its rows to the file
 * type (H5Tconvert, as H5Dwrite would), zeroes the last chunk beyond the table's end (HDF5's fill
 * value), has the chunks shuffled and deflated, and stores them with H5Dwrite_chunk. */
static int write_filtered(const h5ctx *c, hid_t ds, const char *objpath, hid_t mtype, hid_t ftype,
                          int rank, const hsize_t *dims, const hsize_t *chunk, const void *buf)
{
    size_t msz = H5Tget_size(mtype), fsz = H5Tget_size(ftype), big = msz > fsz ? msz : fsz;
    size_t width = rank == 2 ? (size_t)dims[1] : 1, crow = (size_t)chunk[0], nrows = (size_t)dims[0];
    size_t nchunks = (nrows + crow - 1) / crow, cb = crow * width * fsz;
    size_t pass = nchunks < TABLE_CHUNKS_PER_PASS ? nchunks : TABLE_CHUNKS_PER_PASS;
    unsigned char *scratch = dike_xmalloc(pass * crow * width * big);
    /* The compound conversion reads a background buffer of file-type rows (HDF5 crashes without
     * one); every member is converted, so its contents do not matter. */
    unsigned char *bkg = dike_xcalloc(pass * crow * width, fsz);
    size_t *off = dike_xmalloc(pass * sizeof *off), *size = dike_xmalloc(pass * sizeof *size);
    unsigned char *out = NULL; /* h5chunks.c's buffer, released by dike_h5_chunks_end */
    int st = 0;
    for (size_t k0 = 0; k0 < nchunks && !st; k0 += pass) {
        size_t m = nchunks - k0 < pass ? nchunks - k0 : pass;
        size_t r0 = k0 * crow, rows = nrows - r0 < m * crow ? nrows - r0 : m * crow;
        memcpy(scratch, (const unsigned char *)buf + r0 * width * msz, rows * width * msz);
        if (H5Tconvert(mtype, ftype, rows * width, scratch, bkg, H5P_DEFAULT) < 0) {
            st = h5fail(c, "converting the rows of %s", objpath);
            break;
        }
        memset(scratch + rows * width * fsz, 0, (m * crow - rows) * width * fsz);
        if (dike_h5_chunks_filter(scratch, m, cb, fsz, TABLE_DEFLATE_LEVEL, &out, off, size)) {
            st = dike_err_set(c->e, DIKE_EIO, "%s: cannot write output: compressing %s", c->path,
                              objpath);
            break;
        }
        for (size_t k = 0; k < m && !st; k++) {
            hsize_t at[2] = {(hsize_t)((k0 + k) * crow), 0};
            if (H5Dwrite_chunk(ds, H5P_DEFAULT, 0, at, size[k], out + off[k]) < 0)
                st = h5fail(c, "writing dataset %s", objpath);
        }
    }
    free(off);
    free(size);
    free(bkg);
    free(scratch);
    return st;
}

/* A chunked dataset with unlimited maximum dimensions: zero-row tables are valid datasets. */
static int write_dataset(const h5ctx *c, hid_t file, const char *objpath, hid_t mtype, hid_t ftype,
                         int rank, const hsize_t *dims, const void *buf, const char *units,
                         const char *desc)
{
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, ds = H5I_INVALID_HID;
    hsize_t maxdims[2] = { H5S_UNLIMITED, H5S_UNLIMITED }, chunk[2] = { 1, 1 };
    int st = 0;
    size_t row = H5Tget_size(ftype);
    bool empty = dims[0] == 0, filtered = H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0;
    if (rank == 2) {
        chunk[1] = dims[1] ? dims[1] : 1;
        row *= chunk[1];
        empty = empty || dims[1] == 0;
    }
    if (!row) {
        st = h5fail(c, "getting the element size of %s", objpath);
        goto out;
    }
    chunk[0] = H5_CHUNK_BYTES / row ? H5_CHUNK_BYTES / row : 1;
    if (chunk[0] > dims[0])
        chunk[0] = dims[0] ? dims[0] : 1;

    /* Shared with the other ranks only when there is enough to share (TABLE_SHARE_MIN_CHUNKS). */
    bool shared = filtered && dike_h5_chunks_shared() &&
                  (dims[0] + chunk[0] - 1) / chunk[0] >= TABLE_SHARE_MIN_CHUNKS;
    if ((space = H5Screate_simple(rank, dims, maxdims)) < 0)
        st = h5fail(c, "creating the dataspace of %s", objpath);
    else if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0)
        st = h5fail(c, "setting the chunking of %s", objpath);
    /* Rank 0 writes these tables alone (sec2 driver), so filters are allowed: shuffle + deflate
     * level 1 where the library has it (a 1M-job /jobs shrinks several times, see
     * docs/performance.md); HDF5 filters on H5Dwrite, or write_filtered for a shared table. */
    else if (filtered && (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, TABLE_DEFLATE_LEVEL) < 0))
        st = h5fail(c, "setting the compression of %s", objpath);
    else if ((ds = H5Dcreate2(file, objpath, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
        st = h5fail(c, "creating dataset %s", objpath);
    else if (!empty && shared &&
             (st = write_filtered(c, ds, objpath, mtype, ftype, rank, dims, chunk, buf)))
        ;
    else if (!empty && !shared && H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        st = h5fail(c, "writing dataset %s", objpath);
    else
        st = annotate(c, ds, objpath, units, desc);
out:
    h5close(c, &st, ds, H5Dclose, "dataset", objpath);
    h5close(c, &st, dcpl, H5Pclose, "creation properties of", objpath);
    h5close(c, &st, space, H5Sclose, "dataspace of", objpath);
    return st;
}

static int write_table(const h5ctx *c, hid_t file, const char *objpath, hid_t (*type_fn)(void),
                       fields_fn fields, const void *rows, size_t n, const char *desc)
{
    h5_field f[H5_MAX_FIELDS];
    char *units = units_string(f, fields(f));
    hid_t mem = H5I_INVALID_HID, disk = H5I_INVALID_HID;
    hsize_t dims = n;
    int st = 0;
    if ((mem = type_fn()) < 0 || (disk = packed_type(mem)) < 0)
        st = h5fail(c, "building the row type of %s", objpath);
    else
        st = write_dataset(c, file, objpath, mem, disk, 1, &dims, rows, units, desc);
    if (!st)
        st = annotate_path(c, file, objpath, NULL, NULL, fields);
    h5close(c, &st, disk, H5Tclose, "row type of", objpath);
    h5close(c, &st, mem, H5Tclose, "row type of", objpath);
    free(units);
    return st;
}

static int write_root_attrs(const h5ctx *c, hid_t file, const dike_run_meta *m)
{
    int32_t schema = DIKE_SCHEMA_VERSION;
    int st = attr_write(c, file, "/", "schema_version", H5T_STD_I32LE, H5T_NATIVE_INT32, &schema);
    if (!st)
        st = attr_str(c, file, "/", "version", m->version, sizeof m->version);
    if (!st)
        st = attr_str(c, file, "/", "policy", m->policy, sizeof m->policy);
    if (!st)
        st = attr_str(c, file, "/", "placement", m->placement, sizeof m->placement);
    if (!st)
        st = attr_write(c, file, "/", "seed", H5T_STD_I64LE, H5T_NATIVE_INT64, &m->seed);
    if (!st)
        st = attr_write(c, file, "/", "ranks", H5T_STD_I32LE, H5T_NATIVE_INT32, &m->ranks);
    if (!st)
        st = attr_str(c, file, "/", "config", m->config_text, SIZE_MAX);
    if (!st)
        st = attr_str(c, file, "/", "trace_path", m->trace_path, sizeof m->trace_path);
    if (!st)
        st = attr_str(c, file, "/", "trace_sha256", m->trace_sha256, sizeof m->trace_sha256);
    if (!st)
        st = attr_write(c, file, "/", "wall_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                        &m->wall_seconds);
    if (!st)
        st = annotate(c, file, "/", "wall_seconds=s",
                      "dike-emu run output; layout in docs/output-schema.md");
    if (!st)
        st = attr_str(c, file, "/", UNITS_PREFIX "wall_seconds", "s", SIZE_MAX);
    /* Provenance: when, where, by what build and libraries, from which command or campaign point. */
    dike_provenance p;
    dike_provenance_get(&p);
    const struct {
        const char *name, *value;
        size_t maxlen;
    } prov[] = {
        {"created_utc", p.created_utc, sizeof p.created_utc}, {"host", p.host, sizeof p.host},
        {"command_line", p.command_line, SIZE_MAX}, {"build", p.build, SIZE_MAX},
        {"builds", m->builds[0] ? m->builds : p.build, sizeof m->builds},
        {"source_sha256", p.source_sha256, SIZE_MAX},
        {"compiler", p.compiler, SIZE_MAX}, {"hdf5_version", p.hdf5_version, sizeof p.hdf5_version},
        {"mpi_version", p.mpi_version, sizeof p.mpi_version}, {"campaign", p.campaign, SIZE_MAX},
    };
    for (size_t i = 0; !st && i < sizeof prov / sizeof *prov; i++)
        st = attr_str(c, file, "/", prov[i].name, prov[i].value, prov[i].maxlen);
    if (!st)
        st = attr_write(c, file, "/", "campaign_point", H5T_STD_I64LE, H5T_NATIVE_INT64,
                        &p.campaign_point);
    if (!st)
        st = attr_str(c, file, "/", "campaign_axes", p.campaign_axes, SIZE_MAX);
    return st;
}

static int write_timeseries(const h5ctx *c, hid_t file, const dike_timeseries *ts)
{
    hid_t g = H5Gcreate2(file, "/timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t n[2] = { ts->n, ts->ntenants };
    int st = 0;
    if (g < 0) {
        st = h5fail(c, "creating group /timeseries");
        goto out;
    }
    st = annotate(c, g, "/timeseries", NULL,
                  "cluster state sampled at regular simulated times; one row per sample");
    if (!st)
        st = write_dataset(c, file, "/timeseries/time", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, n,
                           ts->time, "s", "simulated time of the sample");
    if (!st)
        st = write_dataset(c, file, "/timeseries/busy_gpus", H5T_NATIVE_UINT32, H5T_STD_U32LE, 1,
                           n, ts->busy_gpus, "GPUs", "GPUs allocated to jobs");
    if (!st)
        st = write_dataset(c, file, "/timeseries/queued", H5T_NATIVE_UINT32, H5T_STD_U32LE, 1, n,
                           ts->queued, "1", "jobs submitted and waiting for GPUs");
    if (!st)
        st = write_dataset(c, file, "/timeseries/running", H5T_NATIVE_UINT32, H5T_STD_U32LE, 1, n,
                           ts->running, "1", "jobs holding GPUs");
    if (!st)
        st = write_dataset(c, file, "/timeseries/tenant_gpus", H5T_NATIVE_UINT32, H5T_STD_U32LE, 2,
                           n, ts->tenant_gpus, "GPUs",
                           "GPUs allocated per tenant: [sample][tenant index]");
out:
    h5close(c, &st, g, H5Gclose, "group", "/timeseries");
    return st;
}

/* /job_nodes: the nodes of each job's last placement, as offsets into one list (a job's count
 * varies). Batsim's allocated_resources; dike-emu export writes them per job. */
static int write_job_nodes(const h5ctx *c, hid_t file, const dike_results *r)
{
    hid_t g = H5Gcreate2(file, "/job_nodes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return h5fail(c, "creating group /job_nodes");
    int st = annotate(c, g, "/job_nodes", NULL,
                      "nodes of each job's last placement: job i (the row of /jobs) ran on "
                      "node[offset[i] .. offset[i + 1]), ascending; none if it never started");
    hsize_t noff = r->njobs + 1, nn = r->node_off ? r->node_off[r->njobs] : 0;
    /* results built without placements (a test's hand-made rows): every job has none */
    uint64_t *zeros = r->node_off ? NULL : dike_xcalloc(noff, sizeof *zeros);
    static const uint32_t no_node = 0;
    if (!st)
        st = write_dataset(c, file, "/job_nodes/offset", H5T_NATIVE_UINT64, H5T_STD_U64LE, 1, &noff,
                           r->node_off ? (const void *)r->node_off : zeros, "1",
                           "index into node of each job's first node; njobs + 1 entries");
    if (!st)
        st = write_dataset(c, file, "/job_nodes/node", H5T_NATIVE_UINT32, H5T_STD_U32LE, 1, &nn,
                           r->node_ids ? (const void *)r->node_ids : &no_node, "1",
                           "node indices (as in /nodes), job after job");
    free(zeros);
    h5close(c, &st, g, H5Gclose, "group", "/job_nodes");
    return st;
}

/* One summary group: one scalar attribute per field of dike_summary, then the units (`units` and
 * `units_<name>`) of those and of @p extra (names and units of the caller's own attributes, written
 * into the group by then), and the description. */
static int summary_attrs(const h5ctx *c, hid_t g, const char *objpath, const dike_summary *s,
                         const h5_field *extra, size_t nextra, const char *desc)
{
    h5_field f[H5_MAX_FIELDS + 8];
    size_t n = summary_fields(f);
    int st = 0;
    for (size_t i = 0; !st && i < n; i++)
        st = attr_write(c, g, objpath, f[i].name, f[i].type, f[i].type, (const char *)s + f[i].offset);
    if (nextra > 8)
        dike_fatal("summary_attrs: %zu extra attributes, room for 8", nextra);
    for (size_t i = 0; i < nextra; i++)
        f[n + i] = extra[i];
    n += nextra;
    char *units = units_string(f, n);
    if (!st)
        st = annotate(c, g, objpath, units, desc);
    if (!st)
        st = column_units(c, g, objpath, f, n);
    free(units);
    return st;
}

/* /summary/window/tenants: the /tenants columns that the window's jobs and time span determine
 * (entitlements are integrated by the engine over the whole run only, so they are left out). */
static size_t window_tenant_fields(h5_field *f)
{
    h5_field all[H5_MAX_FIELDS];
    size_t n = tenant_fields(all), m = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, "entitlement") != 0 && strcmp(all[i].name, "entitled_share") != 0)
            f[m++] = all[i];
    return m;
}

static hid_t window_tenant_type(void)
{
    h5_field f[H5_MAX_FIELDS];
    return build_compound(sizeof(dike_tenant_record), f, window_tenant_fields(f));
}

/* The run's metrics.window (the run, or a resumed run, copies it from its configuration into
 * the results' meta; "" or a caller's own results: no window). */
static int run_window(const h5ctx *c, const dike_run_meta *m, dike_window *w, char *spec, size_t n)
{
    memset(w, 0, sizeof *w);
    snprintf(spec, n, "%s", m->metrics_window);
    char why[256];
    if (dike_window_parse(m->metrics_window, w, why, sizeof why))
        return dike_err_set(c->e, DIKE_EINTERNAL, "%s: cannot write output: [metrics] window: %s (got "
                            "'%s')", c->path, why, m->metrics_window);
    return 0;
}

/* /summary/window: the summary over metrics.window (metrics/window.c), with the same attribute
 * names as /summary plus what describes the window. */
static int write_summary_window(const h5ctx *c, hid_t file, const dike_results *r,
                                const dike_window *w, const char *spec)
{
    static const char *const path = "/summary/window";
    dike_summary s;
    dike_window_info info;
    dike_tenant_record *tr = dike_xcalloc(r->ntenants + 1, sizeof *tr);
    dike_summarize_window(r->jobs, r->njobs, r->tenants, r->ntenants, r->summary.gpus, &r->ts, w, &s,
                          &info, tr);
    bool jobs = w->kind == DIKE_WINDOW_JOBS;
    double first = jobs ? (double)w->first_id : w->t0, last = jobs ? (double)w->last_id : w->t1;
    /* names and units of the attributes that describe the window (kind and spec are strings) */
    const h5_field extra[] = {
        {"first", 0, H5I_INVALID_HID, 0, jobs ? "1" : "s"},
        {"last", 0, H5I_INVALID_HID, 0, jobs ? "1" : "s"},
        {"span_start", 0, H5I_INVALID_HID, 0, "s"},
        {"span_end", 0, H5I_INVALID_HID, 0, "s"},
        {"apportioned_gpu_seconds", 0, H5I_INVALID_HID, 0, "GPU*s"},
    };
    hid_t g = H5Gcreate2(file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int st = 0;
    if (g < 0) {
        st = h5fail(c, "creating group %s", path);
        goto out;
    }
    st = attr_str(c, g, path, "kind", jobs ? "jobs" : "time", SIZE_MAX);
    if (!st)
        st = attr_str(c, g, path, "spec", spec, SIZE_MAX);
    if (!st)
        st = attr_write(c, g, path, "first", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &first);
    if (!st)
        st = attr_write(c, g, path, "last", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &last);
    if (!st)
        st = attr_write(c, g, path, "span_start", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &info.span_start);
    if (!st)
        st = attr_write(c, g, path, "span_end", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &info.span_end);
    if (!st)
        st = attr_write(c, g, path, "apportioned_gpu_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                        &info.apportioned_gpu_seconds);
    if (!st)
        st = summary_attrs(c, g, path, &s, extra, sizeof extra / sizeof extra[0],
                           jobs ? "metrics over the jobs with ids in [first, last] (metrics.window); "
                                  "utilisation over their submits, [span_start, span_end]"
                                : "metrics over the jobs submitted in [first, last) (metrics.window); "
                                  "utilisation over [span_start, span_end]");
    if (!st)
        st = write_table(c, file, "/summary/window/tenants", window_tenant_type, window_tenant_fields,
                         tr, r->ntenants, "one row per tenant, over the window's jobs and time span");
out:
    h5close(c, &st, g, H5Gclose, "group", path);
    free(tr);
    return st;
}

static int write_summary(const h5ctx *c, hid_t file, const dike_results *r)
{
    dike_window w;
    char spec[256];
    int st = run_window(c, &r->meta, &w, spec, sizeof spec);
    if (st)
        return st;
    hid_t g = H5Gcreate2(file, "/summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) {
        st = h5fail(c, "creating group /summary");
        goto out;
    }
    st = summary_attrs(c, g, "/summary", &r->summary, NULL, 0,
                       "whole-run metrics, one scalar attribute each");
    if (!st && w.kind != DIKE_WINDOW_NONE)
        st = write_summary_window(c, file, r, &w, spec);
out:
    h5close(c, &st, g, H5Gclose, "group", "/summary");
    return st;
}

static int write_serial(const h5ctx *c, const char *tmp, const dike_results *r)
{
    hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID;
    h5_field f[H5_MAX_FIELDS];
    char *nunits = units_string(f, node_fields(f)), *punits = units_string(f, perf_fields(f));
    int st = 0;
    /* The file is read into memory, completed there, and its image written back by us (see
     * "Files built in memory"): HDF5 itself never writes to the disk here. */
    if ((fapl = memory_fapl()) < 0)
        st = h5fail(c, "setting up an in-memory file");
    else if ((file = H5Fopen(tmp, H5F_ACC_RDWR, fapl)) < 0)
        st = h5fail(c, "reopening temporary file %s", tmp);
    if (!st)
        st = write_root_attrs(c, file, &r->meta);
    if (!st)
        st = annotate_path(c, file, "/nodes", nunits, "one row per node, written by its owner rank",
                           node_fields);
    if (!st)
        st = annotate_path(c, file, "/perf", punits, "one row per MPI rank: engine counters and timers",
                           perf_fields);
    if (!st)
        st = write_table(c, file, "/jobs", dike_h5_job_type, job_fields, r->jobs, r->njobs,
                         "one row per job of the workload");
    if (!st)
        st = write_table(c, file, "/tenants", dike_h5_tenant_type, tenant_fields, r->tenants,
                         r->ntenants, "one row per tenant, by tenant index");
    if (!st)
        st = write_table(c, file, "/decide", dike_h5_decide_type, decide_fields, r->decide,
                         r->ndecide, "decision-step latency by octave of active jobs (rank 0, "
                         "every 8th step timed)");
    if (!st)
        st = write_timeseries(c, file, &r->ts);
    if (!st)
        st = write_job_nodes(c, file, r);
    if (!st)
        st = write_summary(c, file, r);
    if (!st)
        st = save_image(c, file, tmp);
    h5close(c, &st, file, H5Fclose, "temporary file", tmp);
    h5close(c, &st, fapl, H5Pclose, "access properties of", tmp);
    free(punits);
    free(nunits);
    return st;
}

/* Make the complete file durable, then give it its final name: rename(2) is atomic, so <path> is
 * either absent (or the previous file) or this complete one. */
static int commit(const h5ctx *c, const char *tmp)
{
    int fd = open(tmp, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return dike_err_set(c->e, DIKE_EIO, "%s: cannot write output: syncing %s: %s", c->path, tmp,
                            strerror(err));
    }
    if (close(fd) != 0)
        return dike_err_set(c->e, DIKE_EIO, "%s: cannot write output: closing %s: %s", c->path, tmp,
                            strerror(errno));
    if (dike_rename_target_ok(c->path, "output", c->e))
        return c->e->code;
    if (rename(tmp, c->path) != 0)
        return dike_err_set(c->e, DIKE_EIO, "%s: cannot write output: renaming %s: %s", c->path, tmp,
                            strerror(errno));
    return 0;
}

/* Rank 0 chooses the temporary name (its pid makes it unique on its host) and tells the others. */
static void bcast_tmp_name(const h5ctx *c, MPI_Comm comm, int rank, char **out)
{
    int len = 0;
    char *name = NULL;
    if (rank == 0) {
        size_t n = strlen(c->path) + 128;
        name = dike_xmalloc(n);
        dike_tmp_name(c->path, name, n);
        len = (int)strlen(name) + 1;
    }
    DIKE_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, 0, comm));
    if (rank != 0)
        name = dike_xmalloc((size_t)len);
    DIKE_MPI_CHECK(MPI_Bcast(name, len, MPI_CHAR, 0, comm));
    *out = name;
}

int dike_h5_write(const char *path, MPI_Comm comm, const dike_results *r,
                  const dike_node_record *nodes, size_t nnodes, uint64_t total_nodes,
                  const dike_perf_record *perf, dike_err *e)
{
    dike_err le = { 0, "" };
    h5ctx c = { path ? path : "(no path)", &le };
    int rank = 0, size = 0, st = 0;
    bool failed = false;
    char *tmp = NULL;
    uint64_t first = 0;
    H5E_auto2_t old_fn = NULL;
    void *old_data = NULL;

    rank = dike_mpi_rank(comm);
    size = dike_mpi_size(comm);
    /* Our messages replace HDF5's own stack dumps, which would print once per rank. */
    bool restore = H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data) >= 0;
    if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
        restore = false;

    if (rank == 0) {
        if (!path || !path[0])
            st = dike_err_set(&le, DIKE_EIO, "%s: cannot write output: empty path", c.path);
        else if (!(st = check_results(&c, r)))
            st = dike_h5_check_writable(path, &le);
    }
    /* Every rank takes part in the gather even when it already failed, or the others would wait
     * for it; the first error found is the one reported. */
    dike_err scratch = { 0, "" };
    int bst = check_blocks(&(h5ctx){ c.path, st ? &scratch : &le }, comm, size, nodes, nnodes,
                           total_nodes, perf, &first);
    if (!st)
        st = bst;
    if ((failed = agree(comm, &st, &c)))
        goto out;
    {
        /* every rank must bring the same number of node samples (or none) */
        unsigned long long ns[2] = {node_samples.nsamples, ~(unsigned long long)node_samples.nsamples}, mx[2];
        DIKE_MPI_CHECK(MPI_Allreduce(ns, mx, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm));
        if (mx[0] != ~mx[1])
            st = dike_err_set(&le, DIKE_EINTERNAL, "%s: cannot write output: the ranks hold "
                              "different numbers of /node_timeseries samples", c.path);
    }
    if ((failed = agree(comm, &st, &c)))
        goto out;
    if (node_samples.nsamples)
        st = nts_prepare(&c, comm, rank, size, first, nnodes, total_nodes);
    if ((failed = agree(comm, &st, &c)))
        goto out;
    bcast_tmp_name(&c, comm, rank, &tmp);

    st = write_parallel(&c, tmp, comm, rank, size, nodes, nnodes, first, total_nodes, perf);
    if ((failed = agree(comm, &st, &c)))
        goto out;
    /* Rank 0 builds the rest alone; the others filter its tables' chunks meanwhile. */
    if (rank == 0) {
        dike_h5_chunks_begin(comm);
        st = write_serial(&c, tmp, r);
        dike_h5_chunks_end();
        if (!st)
            st = commit(&c, tmp);
    } else {
        dike_h5_chunks_serve(comm);
    }
    failed = st != 0;

out:
    memset(&node_samples, 0, sizeof node_samples);
    nts_plan_free();
    /* Every rank has closed the file by now: write_parallel ends with a collective close. */
    if (rank == 0 && failed && tmp)
        unlink(tmp);
    free(tmp);
    st = dike_mpi_agree(comm, st, &le);
    if (restore)
        H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    if (st && e)
        *e = le;
    return st;
}

int dike_h5_check_writable(const char *path, dike_err *e)
{
    if (!path || !path[0])
        return dike_err_set(e, DIKE_EIO, "(no path): cannot write output: empty path");
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return dike_err_set(e, DIKE_EIO, "%s: cannot write output: %s", path, strerror(EISDIR));

    /* A probe beside the output: same folder, same permissions, same file system. O_EXCL so a
     * file of someone else's is never touched; retry a few names if one happens to exist. */
    size_t n = strlen(path) + 48;
    char *probe = dike_xmalloc(n);
    int fd = -1, err = 0;
    for (int i = 0; i < 8 && fd < 0; i++) {
        snprintf(probe, n, "%s.probe-%ld-%d", path, (long)getpid(), i);
        fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
        err = errno;
        if (fd < 0 && err != EEXIST)
            break;
    }
    int st = 0;
    if (fd < 0) {
        st = dike_err_set(e, DIKE_EIO, "%s: cannot write output: %s", path, strerror(err));
    } else {
        close(fd);
        if (unlink(probe) != 0)
            st = dike_err_set(e, DIKE_EIO, "%s: cannot write output: removing probe %s: %s", path,
                              probe, strerror(errno));
    }
    free(probe);
    return st;
}
