/* Event pool and binary heap. */
#include "dike/engine.h"

#include <stdlib.h>
#include <string.h>

#define POOL_CHUNK 4096

void dike_pool_init(dike_event_pool *p)
{
    memset(p, 0, sizeof *p);
    p->used_in_last = POOL_CHUNK; /* forces a chunk on first use */
}

void dike_pool_free(dike_event_pool *p)
{
    for (size_t i = 0; i < p->nchunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    memset(p, 0, sizeof *p);
}

dike_event *dike_pool_get(dike_event_pool *p)
{
    dike_event *ev;
    if (p->free_list) {
        ev = p->free_list;
        memcpy(&p->free_list, ev, sizeof p->free_list);
    } else {
        if (p->used_in_last == POOL_CHUNK) {
            p->chunks = dike_xrealloc(p->chunks, (p->nchunks + 1) * sizeof *p->chunks);
            p->chunks[p->nchunks++] = dike_xmalloc(POOL_CHUNK * sizeof(dike_event));
            p->used_in_last = 0;
        }
        ev = &p->chunks[p->nchunks - 1][p->used_in_last++];
    }
    p->live++;
    return ev;
}

void dike_pool_put(dike_event_pool *p, dike_event *ev)
{
    memcpy(ev, &p->free_list, sizeof p->free_list);
    p->free_list = ev;
    p->live--;
}

void dike_heap_init(dike_heap *h)
{
    memset(h, 0, sizeof *h);
}

void dike_heap_free(dike_heap *h)
{
    free(h->a);
    memset(h, 0, sizeof *h);
}

void dike_heap_push(dike_heap *h, dike_event *ev)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 256;
        h->a = dike_xrealloc(h->a, h->cap * sizeof *h->a);
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (dike_event_cmp(h->a[parent], ev) <= 0)
            break;
        h->a[i] = h->a[parent];
        i = parent;
    }
    h->a[i] = ev;
}

dike_event *dike_heap_pop(dike_heap *h)
{
    if (!h->n)
        return NULL;
    dike_event *top = h->a[0];
    dike_event *last = h->a[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && dike_event_cmp(h->a[c + 1], h->a[c]) < 0)
            c++;
        if (dike_event_cmp(last, h->a[c]) <= 0)
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (n)
        h->a[i] = last;
    return top;
}
