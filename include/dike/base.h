/* dike-emu: basic types shared by every layer — simulated time, error convention. */
#ifndef DIKE_BASE_H
#define DIKE_BASE_H

#include <stddef.h>
#include <stdint.h>

#define DIKE_VERSION "0.1.0"
/** Room for a list of builds (`git describe` strings, comma-separated): /run's `builds`. */
#define DIKE_BUILDS_MAX 512
#define DIKE_SCHEMA_VERSION 1

/** Simulated time: integer microseconds since the first submit of the workload. */
typedef int64_t dike_time;
#define DIKE_US_PER_S INT64_C(1000000)
#define DIKE_TIME_INF INT64_MAX

/** Seconds (double) to simulated time, rounded to the nearest microsecond. */
dike_time dike_time_from_s(double s);
/** Simulated time to seconds. */
static inline double dike_time_to_s(dike_time t) { return (double)t / 1e6; }

/* Return codes: 0 is success, negative values are errors. */
enum {
    DIKE_OK = 0,
    DIKE_EINVAL = -1, /**< bad input: config, trace, command line */
    DIKE_EIO = -2,    /**< file missing, unreadable or unwritable */
    DIKE_ENOMEM = -3, /**< allocation failed */
    DIKE_EH5 = -4,    /**< HDF5 library error */
    DIKE_EMPI = -5,   /**< MPI error */
    DIKE_EINTERNAL = -6, /**< broken invariant: a bug */
    DIKE_ESTOPPED = -7   /**< stopped on request (SIGTERM/SIGUSR1) after writing a checkpoint */
};

/** Error message buffer: every fallible function takes one and fills it on failure. */
typedef struct dike_err {
    int code;        /**< the negative DIKE_E* code, 0 when unset */
    char msg[1024];  /**< "file:line: field 'x': reason" style message */
} dike_err;

/** Fill @p e (if not NULL) with a printf-style message; returns @p code for `return dike_err_set(...)`. */
int dike_err_set(dike_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#ifdef __clang_analyzer__
/* For clang's static analyzer only (scripts/analyze.sh): it cannot see across files that the call
 * returns its code, so every `return dike_err_set(...)` would look as if it might return 0. */
#define dike_err_set(e, code, ...) (dike_err_set((e), (code), __VA_ARGS__), (code))
#endif

/** Print @p prefix and @p msg to stderr as one line: newlines and tabs become spaces, other
 *  control characters '?' (messages echo file names and values the user gave). */
void dike_eprint(const char *prefix, const char *msg);

/** Fatal, unrecoverable condition: prints rank and location once and ends the whole MPI job. */
#define dike_fatal(...) dike__fatal(__FILE__, __LINE__, __VA_ARGS__)
void dike__fatal(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/** Wall seconds from a monotonic clock (any origin): for intervals, also before MPI_Init, when
 *  MPI_Wtime cannot be called. */
double dike_mono_seconds(void);

/** Checked allocation helpers: on failure they call dike_fatal (out of memory is not recoverable). */
void *dike_xmalloc(size_t n);
void *dike_xcalloc(size_t n, size_t size);
void *dike_xrealloc(void *p, size_t n);
char *dike_xstrdup(const char *s);
/** Grow a heap array to room for @p cap slots of @p slot bytes (a divisor of 64), placed so that
 *  slot 1 starts a 64-byte line, and so every slot 4k + 1 when slot is 16: the children
 *  4i + 1 .. 4i + 4 of a 4-ary heap share one line. The @p n slots of @p old (slot 0 of the
 *  block *mem, or NULL with n = 0) are copied and *mem is freed and replaced by the new block.
 *  Returns the new slot 0. */
void *dike_heap_lines_grow(void *old, size_t n, size_t cap, size_t slot, void **mem);

#endif
