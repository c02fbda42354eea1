/* Internal: a growable byte buffer written and read in order (checkpoint blobs).
 *
 * One walk over a struct's fields with dike_bytes_xfer and a direction flag writes and reads the
 * same fields in the same order by construction. A read past the end marks the buffer bad (and
 * stays bad), gives zeros, and the caller checks `bad` once at the end. */
#ifndef DIKE_BASE_BYTES_H
#define DIKE_BASE_BYTES_H

#include <stddef.h>

typedef struct dike_bytes {
    char *p;
    size_t len;  /**< bytes written (or given to read) */
    size_t cap;  /**< size of p (writing) */
    size_t pos;  /**< next byte to read */
    int bad;     /**< a read ran past the end */
} dike_bytes;

/** Append @p n bytes at @p v (nothing when n = 0; v may then be NULL). */
void dike_bytes_put(dike_bytes *b, const void *v, size_t n);
/** Read the next @p n bytes into @p v; past the end: zeros, and b->bad is set. */
void dike_bytes_get(dike_bytes *b, void *v, size_t n);
/** Save (@p save = 1: put) or load (0: get) @p n bytes at @p p. */
void dike_bytes_xfer(dike_bytes *b, int save, void *p, size_t n);

#endif
