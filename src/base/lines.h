/* Internal: a text file read once, in large blocks, line by line in place, with the SHA-256 of
 * its bytes computed on the way.
 *
 * A trace used to be read twice (parsed through getc(3) one byte at a time, then hashed with a
 * second read); one pass with read(2) into a large buffer does both, and the lines are handed out
 * where they lie in the buffer (no copy, no allocation per line). */
#ifndef DIKE_BASE_LINES_H
#define DIKE_BASE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include "dike/base.h"

/** Bytes asked of read(2) at a time. */
#define DIKE__LINES_BLOCK ((size_t)1 << 20)

typedef struct dike_lines {
    int fd;         /**< the open file */
    char *buf;      /**< text read so far and not yet handed out: buf[start..end) */
    size_t cap;     /**< size of buf */
    size_t start;   /**< first byte not yet handed out */
    size_t end;     /**< end of the bytes read */
    bool eof;       /**< read(2) has returned 0 */
    int err;        /**< errno of a failed read, 0 if none */
    void *sha;      /**< OpenSSL digest context (EVP_MD_CTX), NULL when not hashing */
} dike_lines;

/** Open @p path for reading; with @p hash, every byte read also goes into a SHA-256 digest.
 *  Returns 0 or DIKE_EIO ("PATH: cannot open: ...") / DIKE_EINTERNAL (OpenSSL). */
int dike_lines_open(dike_lines *l, const char *path, bool hash, dike_err *e);
/** The next line, in place and NUL-terminated, without its '\n' (a '\r' before it stays: callers
 *  trim). Returns its length; -1 at the end of the file or on a read error (@p l->err tells);
 *  -2 when the line is longer than @p max bytes (the rest of the file is not read). The line
 *  stays valid until the next call. */
long dike_lines_next(dike_lines *l, char **line, size_t max);
/** Read what is left of the file, then finish the digest: 64 hex digits in @p out. Returns 0,
 *  DIKE_EIO on a read error, DIKE_EINTERNAL if OpenSSL fails or the file was opened without hash. */
int dike_lines_sha256(dike_lines *l, const char *path, char out[65], dike_err *e);
/** Close the file and free the buffer and digest. */
void dike_lines_close(dike_lines *l);

#endif
