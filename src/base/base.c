#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
/* Error messages, the one fatal path, checked allocation. */
#include "dike/base.h"
#include "base/mpi.h"

#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>

dike_time dike_time_from_s(double s)
{
    return (dike_time)llround(s * 1e6);
}

#undef dike_err_set /* the analyzer's view of it (base.h) */
int dike_err_set(dike_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

void dike_eprint(const char *prefix, const char *msg)
{
    /* One line whatever the message holds: a library's text (HDF5's errno report spans two lines)
     * or a control character from a file name or a value is shown as '?'; a newline or tab as a
     * space. */
    fputs(prefix, stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
        fputc(*p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p < 0x20 || *p == 0x7f ? '?' : *p, stderr);
    fputc('\n', stderr);
}

double dike_mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void dike__fatal(const char *file, int line, const char *fmt, ...)
{
    int rank = 0, inited = dike_mpi_started();
    if (inited)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "dike-emu: fatal error on rank %d at %s:%d: %s\n", rank, file, line, msg);
    fflush(stderr);
    /* MPI_Abort ends every rank of the job; exit() on one rank would leave the others waiting. */
    if (inited)
        MPI_Abort(MPI_COMM_WORLD, 3);
    abort();
}

/* Large blocks (job records, the capacity index, heaps, output rows: hundreds of MB at millions
 * of jobs) are asked to be backed by transparent huge pages where the kernel offers them
 * (`madvise` mode, Debian's default): one page fault and one TLB entry per 2 MiB instead of 512
 * (docs/performance.md, "Huge pages for large blocks"). Only the block's whole 2 MiB-aligned
 * interior is advised; the advice is a hint, and its failure changes nothing but speed. */
enum { HUGE_MIN = 8u << 20 };
static const uintptr_t HUGE_PAGE = (uintptr_t)2 << 20;

static void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (n < HUGE_MIN)
        return;
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

void *dike_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        dike_fatal("out of memory allocating %zu bytes", n);
    advise_huge(p, n);
    return p;
}

void *dike_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        dike_fatal("out of memory allocating %zu x %zu bytes", n, size);
    if (size && n <= SIZE_MAX / size)
        advise_huge(p, n * size);
    return p;
}

void *dike_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        dike_fatal("out of memory reallocating %zu bytes", n);
    advise_huge(q, n);
    return q;
}

void *dike_heap_lines_grow(void *old, size_t n, size_t cap, size_t slot, void **mem)
{
    enum { LINE = 64 };
    void *block = dike_xmalloc(cap * slot + 2 * LINE);
    uintptr_t line = ((uintptr_t)block + LINE - 1) / LINE * LINE;
    void *a = (void *)(line + LINE - slot);
    if (n)
        memcpy(a, old, n * slot);
    free(*mem);
    *mem = block;
    return a;
}

char *dike_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = dike_xmalloc(n);
    memcpy(d, s, n);
    return d;
}
