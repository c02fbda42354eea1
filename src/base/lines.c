/* A text file read once in large blocks, with its SHA-256 (see lines.h). */
#include "base/lines.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int dike_lines_open(dike_lines *l, const char *path, bool hash, dike_err *e)
{
    memset(l, 0, sizeof *l);
    l->fd = open(path, O_RDONLY);
    if (l->fd < 0)
        return dike_err_set(e, DIKE_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (hash) {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
            EVP_MD_CTX_free(ctx);
            close(l->fd);
            l->fd = -1;
            return dike_err_set(e, DIKE_EINTERNAL, "%s: OpenSSL cannot start a SHA-256 digest", path);
        }
        l->sha = ctx;
    }
    return 0;
}

/* Read one more block after the unread text, moving it to the front first; 0 at the end of the
 * file, -1 on a read error. The buffer grows only when the unread text fills it (a long line). */
static int fill(dike_lines *l)
{
    if (l->eof || l->err)
        return 0;
    if (l->start > 0) {
        memmove(l->buf, l->buf + l->start, l->end - l->start);
        l->end -= l->start;
        l->start = 0;
    }
    if (l->cap - l->end < DIKE__LINES_BLOCK + 1) {
        l->cap = l->end + DIKE__LINES_BLOCK + 1; /* + 1: room for the NUL after a last line */
        l->buf = dike_xrealloc(l->buf, l->cap);
    }
    ssize_t got;
    do
        got = read(l->fd, l->buf + l->end, DIKE__LINES_BLOCK);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        l->err = errno ? errno : EIO;
        return -1;
    }
    if (got == 0) {
        l->eof = true;
        return 0;
    }
    if (l->sha && !EVP_DigestUpdate(l->sha, l->buf + l->end, (size_t)got)) {
        l->err = EIO;
        return -1;
    }
    l->end += (size_t)got;
    return 1;
}

long dike_lines_next(dike_lines *l, char **line, size_t max)
{
    size_t scanned = 0; /* bytes of the unread text already known to hold no '\n' */
    for (;;) {
        char *s = l->buf + l->start;
        size_t avail = l->end - l->start;
        char *nl = avail > scanned ? memchr(s + scanned, '\n', avail - scanned) : NULL;
        if (nl) {
            size_t len = (size_t)(nl - s);
            if (len > max)
                return -2;
            *nl = '\0';
            l->start += len + 1;
            *line = s;
            return (long)len;
        }
        if (avail > max)
            return -2;
        scanned = avail;
        int r = fill(l);
        if (r < 0)
            return -1;
        if (r == 0) { /* the end: what is left is a last line without '\n' */
            if (l->err || l->end == l->start)
                return -1;
            s = l->buf + l->start;
            size_t len = l->end - l->start;
            s[len] = '\0'; /* fill left room for it */
            l->start = l->end;
            *line = s;
            return (long)len;
        }
    }
}

int dike_lines_sha256(dike_lines *l, const char *path, char out[65], dike_err *e)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    out[0] = '\0';
    if (!l->sha)
        return dike_err_set(e, DIKE_EINTERNAL, "%s: not opened for a SHA-256 digest", path);
    l->start = l->end; /* the unread text is hashed already; only what follows is needed */
    while (fill(l) > 0)
        l->start = l->end;
    if (l->err)
        return dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(l->err));
    if (!EVP_DigestFinal_ex(l->sha, md, &mdlen) || mdlen != 32)
        return dike_err_set(e, DIKE_EINTERNAL, "%s: OpenSSL SHA-256 final failed", path);
    for (unsigned int i = 0; i < mdlen; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return 0;
}

void dike_lines_close(dike_lines *l)
{
    if (l->fd >= 0)
        close(l->fd);
    EVP_MD_CTX_free(l->sha);
    free(l->buf);
    memset(l, 0, sizeof *l);
    l->fd = -1;
}
