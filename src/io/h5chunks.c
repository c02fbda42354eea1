/* Chunks of rank 0's tables filtered by every rank (h5chunks.h says why). */
#include "io/h5chunks.h"
#include "base/mpi.h"
#include "dike/base.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Chunks per rank in one batch: 16 chunks of about 256 KiB (h5out.c's H5_CHUNK_BYTES), 4 MiB a
 * rank, so rank 0 holds a batch's results and the next batch's rows at once without a large
 * buffer, and a batch is worth its four collectives. */
#define PER_RANK 16u

static MPI_Comm share = MPI_COMM_NULL; /* rank 0, between begin and end */

/* Buffers kept from batch to batch (a fresh one per batch costs its page faults each time, which
 * cost more than the deflate saves): the results (rank 0), a rank's rows and its filtered chunks,
 * and one shuffled chunk. */
static struct {
    unsigned char *out, *in, *dst, *tmp;
    size_t out_cap, in_cap, dst_cap, tmp_cap;
} buf;

static unsigned char *room(unsigned char **b, size_t *cap, size_t need)
{
    if (need > *cap) {
        free(*b);
        *cap = need + need / 2;
        *b = dike_xmalloc(*cap);
    }
    return *b;
}

/* Like room, keeping the contents. */
static unsigned char *grow(unsigned char **b, size_t *cap, size_t need)
{
    if (need > *cap) {
        *cap = need + need / 2;
        *b = dike_xrealloc(*b, *cap);
    }
    return *b;
}

void dike_h5_chunks_release(void)
{
    free(buf.out);
    free(buf.in);
    free(buf.dst);
    free(buf.tmp);
    memset(&buf, 0, sizeof buf);
}

void dike_h5_shuffle(const unsigned char *in, unsigned char *out, size_t nelem, size_t esize)
{
    if (esize <= 1) {
        memcpy(out, in, nelem * esize);
        return;
    }
    for (size_t b = 0; b < esize; b++) {
        unsigned char *o = out + b * nelem;
        const unsigned char *p = in + b;
        for (size_t i = 0; i < nelem; i++, p += esize)
            o[i] = *p;
    }
}

/* Filter @p n chunks at @p raw into @p dst (compressBound(chunk_bytes) bytes apart), sizes to
 * @p size. Returns 0 or -1. */
static int filter_local(const unsigned char *raw, size_t n, size_t chunk_bytes, size_t esize,
                        int level, unsigned char *dst, size_t stride, uint64_t *size)
{
    unsigned char *tmp = room(&buf.tmp, &buf.tmp_cap, chunk_bytes + 1);
    int st = 0;
    for (size_t k = 0; k < n && !st; k++) {
        dike_h5_shuffle(raw + k * chunk_bytes, tmp, chunk_bytes / esize, esize);
        uLongf len = (uLongf)stride;
        if (compress2(dst + k * stride, &len, tmp, (uLong)chunk_bytes, level) != Z_OK)
            st = -1;
        size[k] = len;
    }
    return st;
}

/* One batch on every rank of @p comm (rank 0 passes its rows, the others NULL): rank r filters
 * chunks [n r / P, n (r + 1) / P). On rank 0 the results land packed in @p out from @p at, their
 * sizes in @p size. Returns 0 or -1 (on every rank: the ranks agree). */
static int batch(MPI_Comm comm, const uint64_t hdr[4], const unsigned char *raw, unsigned char *out,
                 uint64_t *size)
{
    int rank = dike_mpi_rank(comm), np = dike_mpi_size(comm);
    size_t n = (size_t)hdr[0], cb = (size_t)hdr[1], esize = (size_t)hdr[2];
    int level = (int)hdr[3];
    size_t lo = n * (size_t)rank / (size_t)np, hi = n * (size_t)(rank + 1) / (size_t)np, mine = hi - lo;
    size_t stride = compressBound((uLong)cb);
    int *cnt = NULL, *displ = NULL, *ccnt = NULL, *cdispl = NULL;
    if (rank == 0) {
        cnt = dike_xmalloc((size_t)np * sizeof *cnt);
        displ = dike_xmalloc((size_t)np * sizeof *displ);
        ccnt = dike_xmalloc((size_t)np * sizeof *ccnt);
        cdispl = dike_xmalloc((size_t)np * sizeof *cdispl);
        for (int r = 0; r < np; r++) {
            size_t a = n * (size_t)r / (size_t)np, b = n * (size_t)(r + 1) / (size_t)np;
            cnt[r] = (int)((b - a) * cb);
            displ[r] = (int)(a * cb);
            ccnt[r] = (int)(b - a);
            cdispl[r] = (int)a;
        }
    }
    unsigned char *in = rank == 0 ? NULL : room(&buf.in, &buf.in_cap, mine * cb + 1);
    DIKE_MPI_CHECK(MPI_Scatterv(raw, cnt, displ, MPI_BYTE, rank == 0 ? MPI_IN_PLACE : in,
                                (int)(mine * cb), MPI_BYTE, 0, comm));
    unsigned char *dst = room(&buf.dst, &buf.dst_cap, mine * stride + 1);
    uint64_t *sz = dike_xmalloc((mine ? mine : 1) * sizeof *sz);
    int st = filter_local(rank == 0 ? raw : in, mine, cb, esize, level, dst, stride, sz);
    /* Pack this rank's results, then gather sizes and bytes. */
    size_t bytes = 0;
    for (size_t k = 0; k < mine; k++) {
        memmove(dst + bytes, dst + k * stride, sz[k]);
        bytes += sz[k];
    }
    DIKE_MPI_CHECK(MPI_Gatherv(sz, (int)mine, MPI_UINT64_T, size, ccnt, cdispl, MPI_UINT64_T, 0, comm));
    if (rank == 0) {
        size_t at = 0;
        for (int r = 0; r < np; r++) {
            size_t rb = 0;
            for (int k = 0; k < ccnt[r]; k++)
                rb += size[cdispl[r] + k];
            cnt[r] = (int)rb;
            displ[r] = (int)at;
            at += rb;
        }
    }
    DIKE_MPI_CHECK(MPI_Gatherv(dst, (int)bytes, MPI_BYTE, out, cnt, displ, MPI_BYTE, 0, comm));
    st = dike_mpi_agree(comm, st, NULL) ? -1 : 0;
    free(sz);
    free(cnt);
    free(displ);
    free(ccnt);
    free(cdispl);
    return st;
}

int dike_h5_chunks_filter(const unsigned char *raw, size_t n, size_t chunk_bytes, size_t esize,
                          int level, unsigned char **out, size_t *off, size_t *size)
{
    size_t stride = compressBound((uLong)chunk_bytes), used = 0;
    int np = share == MPI_COMM_NULL ? 1 : dike_mpi_size(share);
    size_t per = (size_t)np * PER_RANK;
    /* MPI counts and displacements are ints: a batch's bytes, raw or filtered, must fit (with
     * thousands of ranks a batch then gives some of them no chunk). */
    if (np > 1 && per > (size_t)INT_MAX / stride)
        per = (size_t)INT_MAX / stride;
    if (per == 0) { /* chunks of 2 GiB: rank 0 alone */
        np = 1;
        per = PER_RANK;
    }
    uint64_t *sz = dike_xmalloc(per * sizeof *sz);
    int st = 0;
    for (size_t k0 = 0; k0 < n && !st; k0 += per) {
        size_t m = n - k0 < per ? n - k0 : per;
        unsigned char *o = grow(&buf.out, &buf.out_cap, used + m * stride) + used;
        if (np == 1) {
            st = filter_local(raw + k0 * chunk_bytes, m, chunk_bytes, esize, level, o, stride, sz);
            for (size_t k = 0, at = 0; k < m; k++) { /* pack */
                memmove(o + at, o + k * stride, sz[k]);
                at += sz[k];
            }
        } else {
            uint64_t hdr[4] = {m, chunk_bytes, esize, (uint64_t)level};
            DIKE_MPI_CHECK(MPI_Bcast(hdr, 4, MPI_UINT64_T, 0, share));
            st = batch(share, hdr, raw + k0 * chunk_bytes, o, sz);
        }
        for (size_t k = 0; k < m && !st; k++) {
            off[k0 + k] = used;
            size[k0 + k] = (size_t)sz[k];
            used += (size_t)sz[k];
        }
    }
    free(sz);
    *out = buf.out;
    return st;
}

int dike_h5_chunks_shared(void)
{
    return share != MPI_COMM_NULL;
}

void dike_h5_chunks_begin(MPI_Comm comm)
{
    share = dike_mpi_size(comm) > 1 ? comm : MPI_COMM_NULL;
}

void dike_h5_chunks_end(void)
{
    if (share != MPI_COMM_NULL) {
        uint64_t hdr[4] = {0, 0, 0, 0};
        DIKE_MPI_CHECK(MPI_Bcast(hdr, 4, MPI_UINT64_T, 0, share));
    }
    share = MPI_COMM_NULL;
    dike_h5_chunks_release();
}

void dike_h5_chunks_serve(MPI_Comm comm)
{
    for (;;) {
        uint64_t hdr[4];
        DIKE_MPI_CHECK(MPI_Bcast(hdr, 4, MPI_UINT64_T, 0, comm));
        if (!hdr[0]) {
            dike_h5_chunks_release();
            return;
        }
        batch(comm, hdr, NULL, NULL, NULL);
    }
}
