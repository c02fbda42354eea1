/* A growable byte buffer written and read in order (see bytes.h). */
#include "base/bytes.h"

#include <string.h>
#include "dike/base.h"

void dike_bytes_put(dike_bytes *b, const void *v, size_t n)
{
    if (n == 0)
        return; /* v may be NULL then (memcpy must not see it) */
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 4096;
        b->p = dike_xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, v, n);
    b->len += n;
}

void dike_bytes_get(dike_bytes *b, void *v, size_t n)
{
    if (n == 0)
        return;
    if (b->bad || n > b->len - b->pos) {
        b->bad = 1;
        memset(v, 0, n);
        return;
    }
    memcpy(v, b->p + b->pos, n);
    b->pos += n;
}

void dike_bytes_xfer(dike_bytes *b, int save, void *p, size_t n)
{
    if (save)
        dike_bytes_put(b, p, n);
    else
        dike_bytes_get(b, p, n);
}
