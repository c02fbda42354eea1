/* Indexed binary min-heap of ids. */
#include "policy/idheap.h"

#include <stdlib.h>
#include <string.h>

#include "dike/base.h"

void dike_idheap_init(dike_idheap *q, uint32_t nids, const double *key)
{
    memset(q, 0, sizeof *q);
    q->key = key;
    q->nids = nids;
    q->h = dike_xmalloc((nids + 1) * sizeof *q->h);
    q->pos = dike_xmalloc((nids + 1) * sizeof *q->pos);
    for (uint32_t i = 0; i < nids; i++)
        q->pos[i] = DIKE_IDHEAP_NONE;
}

void dike_idheap_free(dike_idheap *q)
{
    free(q->h);
    free(q->pos);
    memset(q, 0, sizeof *q);
}

static inline int before(const dike_idheap *q, uint32_t a, uint32_t b)
{
    if (q->key[a] != q->key[b])
        return q->key[a] < q->key[b];
    return a < b;
}

static inline void put(dike_idheap *q, uint32_t i, uint32_t id)
{
    q->h[i] = id;
    q->pos[id] = i;
}

static void sift_up(dike_idheap *q, uint32_t i)
{
    uint32_t id = q->h[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!before(q, id, q->h[p]))
            break;
        put(q, i, q->h[p]);
        i = p;
    }
    put(q, i, id);
}

static void sift_down(dike_idheap *q, uint32_t i)
{
    uint32_t id = q->h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && before(q, q->h[c + 1], q->h[c]))
            c++;
        if (!before(q, q->h[c], id))
            break;
        put(q, i, q->h[c]);
        i = c;
    }
    put(q, i, id);
}

void dike_idheap_push(dike_idheap *q, uint32_t id)
{
    if (id >= q->nids || dike_idheap_has(q, id))
        dike_fatal("idheap: cannot add id %u", id);
    put(q, q->n++, id);
    sift_up(q, q->n - 1);
}

void dike_idheap_remove(dike_idheap *q, uint32_t id)
{
    if (id >= q->nids || !dike_idheap_has(q, id))
        dike_fatal("idheap: id %u is not in the heap", id);
    uint32_t i = q->pos[id];
    q->pos[id] = DIKE_IDHEAP_NONE;
    if (i == --q->n)
        return;
    put(q, i, q->h[q->n]);
    dike_idheap_update(q, q->h[i]);
}

void dike_idheap_update(dike_idheap *q, uint32_t id)
{
    uint32_t i = q->pos[id];
    if (i > 0 && before(q, id, q->h[(i - 1) / 2]))
        sift_up(q, i);
    else
        sift_down(q, i);
}

void dike_idheap_rebuild(dike_idheap *q)
{
    for (uint32_t i = q->n / 2; i-- > 0;)
        sift_down(q, i);
}
