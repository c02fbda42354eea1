/* Event pool and 4-ary heap. */
#include "engine/event.h"

#include "base/bytes.h"

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
    free(h->mem);
    memset(h, 0, sizeof *h);
}

/* The heap is 4-ary with 16-byte slots placed so that the four children of slot i, 4i + 1 ..
 * 4i + 4, fill one 64-byte line: a level of a sift reads one line, and a heap of a million
 * events is ten levels deep instead of twenty (docs/performance.md, "The event heap"). The
 * order is total (dike_event_cmp never returns 0 for two live events), so the order of pops does
 * not depend on the heap's shape. */
enum { ARITY = 4 };

static inline int slot_less(const dike_heap_slot *x, const dike_heap_slot *y)
{
    if (x->time != y->time)
        return x->time < y->time;
    return dike_event_cmp(x->ev, y->ev) < 0;
}

/* Room for @p cap slots, a placed so that slot 1 starts a line (then so does every 4k + 1). */
static void grow(dike_heap *h, size_t cap)
{
    h->a = dike_heap_lines_grow(h->a, h->n, cap, sizeof *h->a, &h->mem);
    h->cap = cap;
}

void dike_heap_push(dike_heap *h, dike_event *ev)
{
    if (h->n == h->cap)
        grow(h, h->cap ? 2 * h->cap : 256);
    dike_heap_slot slot = {ev->time, ev};
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / ARITY;
        if (!slot_less(&slot, &h->a[parent]))
            break;
        h->a[i] = h->a[parent];
        i = parent;
    }
    h->a[i] = slot;
}

dike_event *dike_heap_pop(dike_heap *h)
{
    if (!h->n)
        return NULL;
    dike_event *top = h->a[0].ev;
    size_t n = --h->n;
    if (!n)
        return top;
    dike_heap_slot last = h->a[n];
    size_t i = 0;
    for (;;) {
        size_t c = ARITY * i + 1;
        if (c >= n)
            break;
        size_t end = c + ARITY < n ? c + ARITY : n, best = c;
        for (c++; c < end; c++)
            if (slot_less(&h->a[c], &h->a[best]))
                best = c;
        if (!slot_less(&h->a[best], &last))
            break;
        h->a[i] = h->a[best];
        i = best;
    }
    h->a[i] = last;
    return top;
}

void dike_event_xfer(struct dike_bytes *b, int save, dike_event *ev)
{
    dike_bytes_xfer(b, save, &ev->time, sizeof ev->time);
    dike_bytes_xfer(b, save, &ev->entity, sizeof ev->entity);
    dike_bytes_xfer(b, save, &ev->seq, sizeof ev->seq);
    dike_bytes_xfer(b, save, &ev->data, sizeof ev->data);
    dike_bytes_xfer(b, save, &ev->phase, sizeof ev->phase);
    dike_bytes_xfer(b, save, &ev->kind, sizeof ev->kind);
}
